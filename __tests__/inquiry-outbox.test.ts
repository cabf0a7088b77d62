/**
 * @jest-environment node
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Outbox, type OutboxRecord } from "../src/inquiry/server/outbox";
import { emptyInquiry } from "../src/inquiry/values";
import { newReference, referencePattern } from "../src/inquiry/server/reference";

const record = (reference: string): OutboxRecord => ({
  reference,
  receivedAt: "2026-11-22T10:00:00.000Z",
  transports: ["email"],
  subject: `Website inquiry ${reference}`,
  replyTo: { address: "pat@example.gov" },
  fields: [],
  values: emptyInquiry("general"),
});

/** As if the process restarted: forgets the outbox state it keeps process-wide under a registered symbol. */
const forgetProcessState = () => Reflect.deleteProperty(globalThis, Symbol.for("gov-supply-site.inquiry-outbox"));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "outbox-test-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("Outbox", () => {
  it("closes off a line torn by a crash before appending, and counts it as damaged", async () => {
    const outbox = new Outbox(dir);
    await outbox.add(record("CRS-AAAA-0001"));
    appendFileSync(outbox.inquiriesFile, '{"reference":"CRS-AAAA-00');
    await outbox.add(record("CRS-AAAA-0002"));
    const { entries, damagedLines } = await outbox.entries(8);
    expect(entries.map((entry) => entry.record.reference)).toEqual(["CRS-AAAA-0001", "CRS-AAAA-0002"]);
    expect(damagedLines).toBe(1);
  });

  it("refuses a reference it already holds, including one written before this process started", async () => {
    await new Outbox(dir).add(record("CRS-BBBB-0001"));
    forgetProcessState();
    await expect(new Outbox(dir).add(record("CRS-BBBB-0001"))).rejects.toThrow("CRS-BBBB-0001");
    expect(readFileSync(path.join(dir, "inquiries.ndjson"), "utf8").split("\n").filter(Boolean)).toHaveLength(1);
  });

  it("tells delivered, failed and untried transports apart, and what is pending", async () => {
    const outbox = new Outbox(dir);
    await outbox.add({ ...record("CRS-CCCC-0001"), transports: ["email", "webhook"] });
    await outbox.add({ ...record("CRS-CCCC-0002"), transports: [] });
    await outbox.recordAttempt({ reference: "CRS-CCCC-0001", transport: "email", ok: false, at: "t1" });
    await outbox.recordAttempt({ reference: "CRS-CCCC-0001", transport: "email", ok: true, at: "t2" });
    const { entries } = await outbox.entries(8);
    expect(entries.map((entry) => [entry.deliveries, entry.state, entry.attempts])).toEqual([
      [{ email: "delivered", webhook: "not tried" }, "pending", 2],
      [{}, "stored", 0],
    ]);
  });

  it("is due again at the retry time of its last failure, and dead after the last allowed attempt", async () => {
    const outbox = new Outbox(dir);
    await outbox.add(record("CRS-EEEE-0001"));
    const fail = (at: string, retryAt: string) =>
      outbox.recordAttempt({ reference: "CRS-EEEE-0001", transport: "email", ok: false, at, retryAt });
    await fail("2026-11-22T10:00:01.000Z", "2026-11-22T10:01:00.000Z");
    let [entry] = (await outbox.entries(2)).entries;
    expect([entry?.state, entry?.dueAt, entry?.deliveries]).toEqual([
      "pending",
      "2026-11-22T10:01:00.000Z",
      { email: "failed" },
    ]);
    await fail("2026-11-22T10:01:01.000Z", "2026-11-22T10:03:00.000Z");
    [entry] = (await outbox.entries(2)).entries;
    expect([entry?.state, entry?.dueAt, entry?.deliveries]).toEqual(["dead", null, { email: "dead" }]);
    // A higher limit (set by the operator) brings it back.
    [entry] = (await outbox.entries(3)).entries;
    expect(entry?.state).toBe("pending");
  });

  it("holds a quarantined inquiry until it is released", async () => {
    const outbox = new Outbox(dir);
    await outbox.add({ ...record("CRS-FFFF-0001"), quarantine: { reason: "honeypot filled" } });
    expect((await outbox.entries(8)).entries[0]?.state).toBe("quarantined");
    await outbox.release("CRS-FFFF-0001");
    const [entry] = (await outbox.entries(8)).entries;
    expect([entry?.state, entry?.released]).toEqual(["pending", true]);
  });

  it("stores one record for one idempotency key, however many arrive at once", async () => {
    const outbox = new Outbox(dir);
    const results = await Promise.all(
      ["CRS-GGGG-0001", "CRS-GGGG-0002", "CRS-GGGG-0003"].map((reference) =>
        outbox.add({ ...record(reference), idempotencyKey: "key-0123456789abcdef" }),
      ),
    );
    expect(results).toEqual([
      { reference: "CRS-GGGG-0001", created: true },
      { reference: "CRS-GGGG-0001", created: false },
      { reference: "CRS-GGGG-0001", created: false },
    ]);
    // Also after a restart, from the file.
    forgetProcessState();
    expect(await new Outbox(dir).add({ ...record("CRS-GGGG-0004"), idempotencyKey: "key-0123456789abcdef" })).toEqual({
      reference: "CRS-GGGG-0001",
      created: false,
    });
    expect((await outbox.read()).records).toHaveLength(1);
  });

  it("lets one process at a time deliver", async () => {
    const outbox = new Outbox(dir);
    let release: () => void = () => undefined;
    const holding = outbox.whileDelivering(() => new Promise<string>((resolve) => (release = () => resolve("first"))));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await outbox.whileDelivering(() => Promise.resolve("second"))).toBeNull();
    const waiting = outbox.whileDelivering(() => Promise.resolve("third"), 5_000);
    release();
    expect(await holding).toEqual({ value: "first" });
    expect(await waiting).toEqual({ value: "third" });
  });

  it("keeps its files readable by the server's user only", async () => {
    await new Outbox(dir).add(record("CRS-DDDD-0001"));
    expect(statSync(path.join(dir, "inquiries.ndjson")).mode & 0o777).toBe(0o600);
  });
});

describe("newReference", () => {
  it("makes short references in an alphabet that cannot be misheard", () => {
    const references = Array.from({ length: 2000 }, () => newReference("CRS"));
    for (const reference of references) expect(reference).toMatch(referencePattern);
    expect(references.join("")).not.toMatch(/[ILOU]/);
    expect(new Set(references).size).toBe(references.length);
  });
});
