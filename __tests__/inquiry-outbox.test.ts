/**
 * @jest-environment node
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Outbox, type OutboxRecord } from "../src/inquiry/server/outbox";
import { emptyInquiry } from "../src/inquiry/validation";
import { newReference, referencePattern } from "../src/inquiry/server/reference";

const record = (reference: string): OutboxRecord => ({
  reference,
  receivedAt: "2026-11-22T10:00:00.000Z",
  transports: ["email"],
  subject: `Website inquiry ${reference}`,
  replyTo: { name: "Pat", address: "pat@example.gov" },
  fields: [],
  values: emptyInquiry("general"),
});

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
    const { entries, damagedLines } = await outbox.entries();
    expect(entries.map((entry) => entry.record.reference)).toEqual(["CRS-AAAA-0001", "CRS-AAAA-0002"]);
    expect(damagedLines).toBe(1);
  });

  it("refuses a reference it already holds, including one written before this process started", async () => {
    await new Outbox(dir).add(record("CRS-BBBB-0001"));
    const state = Symbol.for("gov-supply-site.inquiry-outbox");
    delete (globalThis as Record<symbol, unknown>)[state];
    await expect(new Outbox(dir).add(record("CRS-BBBB-0001"))).rejects.toThrow("CRS-BBBB-0001");
    expect(readFileSync(path.join(dir, "inquiries.ndjson"), "utf8").split("\n").filter(Boolean)).toHaveLength(1);
  });

  it("tells delivered, failed and untried transports apart, and what is pending", async () => {
    const outbox = new Outbox(dir);
    await outbox.add({ ...record("CRS-CCCC-0001"), transports: ["email", "webhook"] });
    await outbox.add({ ...record("CRS-CCCC-0002"), transports: [] });
    await outbox.recordAttempt({ reference: "CRS-CCCC-0001", transport: "email", ok: false, at: "t1" });
    await outbox.recordAttempt({ reference: "CRS-CCCC-0001", transport: "email", ok: true, at: "t2" });
    const { entries } = await outbox.entries();
    expect(entries.map((entry) => [entry.deliveries, entry.pending, entry.attempts])).toEqual([
      [{ email: "delivered", webhook: "not tried" }, true, 2],
      [{}, false, 0],
    ]);
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
