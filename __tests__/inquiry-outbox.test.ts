/**
 * @jest-environment node
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { BlobsOutbox } from "../src/inquiry/server/blobs-outbox";
import { BlobsStore, BlobsWriteError, blobsAccessFromLambdaEvent } from "../src/inquiry/server/blobs-store";
import { readInquiryConfig } from "../src/inquiry/server/config";
import { readInquiryContent } from "../src/inquiry/server/content-on-disk";
import { openOutbox } from "../src/inquiry/server/open-outbox";
import { Outbox, type InquiryOutbox, type OutboxRecord } from "../src/inquiry/server/outbox";
import { emptyInquiry } from "../src/inquiry/values";
import { newReference, referencePattern } from "../src/inquiry/server/reference";
import { startBlobsServer, type LocalBlobsServer } from "./support/blobs-server";

const { delivery } = readInquiryContent(path.resolve("content")).form;

const record = (reference: string): OutboxRecord => ({
  reference,
  receivedAt: "2026-11-22T10:00:00.000Z",
  transports: ["email"],
  subject: `Website inquiry ${reference}`,
  replyTo: { address: "pat@example.gov" },
  fields: [],
  values: emptyInquiry("general"),
});

/** As if the process restarted: forgets what the outboxes keep process-wide under registered symbols. */
const forgetProcessState = () => {
  Reflect.deleteProperty(globalThis, Symbol.for("gov-supply-site.inquiry-outbox"));
  Reflect.deleteProperty(globalThis, Symbol.for("gov-supply-site.inquiry-blobs-outbox"));
};

let dir: string;
let blobsServer: LocalBlobsServer;
let storeNumber = 0;
let store: string;
beforeAll(async () => {
  blobsServer = await startBlobsServer();
});
afterAll(() => blobsServer.close());
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "outbox-test-"));
  // A store of its own for each test, on the one server.
  storeNumber += 1;
  store = `outbox-test-${storeNumber}`;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const blobsConfig = () => readInquiryConfig(delivery, blobsServer.env(store));

/** Each kind of outbox, opened the way the code opens it from the configuration. */
const kinds: [string, () => InquiryOutbox][] = [
  ["file", () => openOutbox(readInquiryConfig(delivery, { INQUIRY_DATA_DIR: dir }))],
  ["Netlify Blobs", () => openOutbox(blobsConfig())],
];

describe.each(kinds)("the %s outbox", (_kind, open) => {
  it("refuses a reference it already holds, including one written before this process started", async () => {
    await open().add(record("CRS-BBBB-0001"));
    forgetProcessState();
    await expect(open().add(record("CRS-BBBB-0001"))).rejects.toThrow("CRS-BBBB-0001");
    expect((await open().read()).records.map((stored) => stored.reference)).toEqual(["CRS-BBBB-0001"]);
  });

  it("tells delivered, failed and untried transports apart, and what is pending", async () => {
    const outbox = open();
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
    const outbox = open();
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
    const outbox = open();
    await outbox.add({ ...record("CRS-FFFF-0001"), quarantine: { reason: "honeypot filled" } });
    expect((await outbox.entries(8)).entries[0]?.state).toBe("quarantined");
    await outbox.release("CRS-FFFF-0001");
    const [entry] = (await outbox.entries(8)).entries;
    expect([entry?.state, entry?.released]).toEqual(["pending", true]);
  });

  it("stores one record for one idempotency key, however many arrive at once", async () => {
    const outbox = open();
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
    // Also after a restart, from what is stored.
    forgetProcessState();
    expect(await open().add({ ...record("CRS-GGGG-0004"), idempotencyKey: "key-0123456789abcdef" })).toEqual({
      reference: "CRS-GGGG-0001",
      created: false,
    });
    expect((await outbox.read()).records).toHaveLength(1);
  });

  it("finds one inquiry by its reference, with its attempts and release", async () => {
    const outbox = open();
    await outbox.add({ ...record("CRS-HHHH-0001"), quarantine: { reason: "sent too fast" } });
    await outbox.add(record("CRS-HHHH-0002"));
    await outbox.release("CRS-HHHH-0001");
    await outbox.recordAttempt({ reference: "CRS-HHHH-0001", transport: "email", ok: true, at: "t1" });
    const entry = await outbox.entry("CRS-HHHH-0001", 8);
    expect([entry?.record.reference, entry?.released, entry?.state]).toEqual(["CRS-HHHH-0001", true, "delivered"]);
    expect(await outbox.entry("CRS-NONE-0000", 8)).toBeNull();
  });

  it("lists every inquiry that is not delivered when asked for the open ones", async () => {
    const outbox = open();
    await outbox.add(record("CRS-JJJJ-0001"));
    await outbox.add(record("CRS-JJJJ-0002"));
    await outbox.add({ ...record("CRS-JJJJ-0003"), quarantine: { reason: "honeypot filled" } });
    await outbox.recordAttempt({ reference: "CRS-JJJJ-0001", transport: "email", ok: true, at: "t1" });
    const all = (await outbox.entries(8, "all")).entries.map((entry) => [entry.record.reference, entry.state]);
    expect(all).toEqual([
      ["CRS-JJJJ-0001", "delivered"],
      ["CRS-JJJJ-0002", "pending"],
      ["CRS-JJJJ-0003", "quarantined"],
    ]);
    const due = await outbox.entries(8, "open");
    const listed = due.entries.map((entry) => entry.record.reference);
    expect(listed).toContain("CRS-JJJJ-0002");
    // The quarantined one is listed, or counted as held without being read.
    expect(listed.filter((reference) => reference === "CRS-JJJJ-0003").length + (due.heldUnread ?? 0)).toBe(1);
  });

  it("lets one delivery run at a time hold its lock", async () => {
    const outbox = open();
    let release: () => void = () => undefined;
    const holding = outbox.whileDelivering(() => new Promise<string>((resolve) => (release = () => resolve("first"))));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await open().whileDelivering(() => Promise.resolve("second"))).toBeNull();
    const waiting = open().whileDelivering(() => Promise.resolve("third"), 5_000);
    release();
    expect(await holding).toEqual({ value: "first" });
    expect(await waiting).toEqual({ value: "third" });
  });
});

describe("the file outbox", () => {
  it("closes off a line torn by a crash before appending, and counts it as damaged", async () => {
    const outbox = new Outbox(dir);
    await outbox.add(record("CRS-AAAA-0001"));
    appendFileSync(outbox.inquiriesFile, '{"reference":"CRS-AAAA-00');
    await outbox.add(record("CRS-AAAA-0002"));
    const { entries, damagedLines } = await outbox.entries(8);
    expect(entries.map((entry) => entry.record.reference)).toEqual(["CRS-AAAA-0001", "CRS-AAAA-0002"]);
    expect(damagedLines).toBe(1);
  });

  it("writes a refused reference nowhere", async () => {
    await new Outbox(dir).add(record("CRS-BBBB-0001"));
    forgetProcessState();
    await expect(new Outbox(dir).add(record("CRS-BBBB-0001"))).rejects.toThrow("CRS-BBBB-0001");
    expect(readFileSync(path.join(dir, "inquiries.ndjson"), "utf8").split("\n").filter(Boolean)).toHaveLength(1);
  });

  it("keeps its files readable by the server's user only", async () => {
    await new Outbox(dir).add(record("CRS-DDDD-0001"));
    expect(statSync(path.join(dir, "inquiries.ndjson")).mode & 0o777).toBe(0o600);
  });
});

describe("the Netlify Blobs outbox", () => {
  /** Direct access to the test's store, as another process (or a person with the API) has it. */
  const rawStore = () => new BlobsStore(blobsConfig().blobs);

  it("stores a repeat under the reference its key was claimed for when the first request died in between", async () => {
    // The first request claimed the key, then its instance ended before the inquiry itself was written.
    const first = { ...record("CRS-KKKK-0001"), idempotencyKey: "key-died-in-between-01" };
    await rawStore().write("keys/key-died-in-between-01", first, { onlyIfNew: true });
    const repeat = { ...record("CRS-KKKK-0002"), idempotencyKey: "key-died-in-between-01" };
    expect(await openOutbox(blobsConfig()).add(repeat)).toEqual({ reference: "CRS-KKKK-0001", created: false });
    const { records } = await openOutbox(blobsConfig()).read();
    expect(records).toEqual([first]);
  });

  it("never takes a write the store refused for a stored inquiry", async () => {
    const config = readInquiryConfig(delivery, { ...blobsServer.env(store), NETLIFY_BLOBS_TOKEN: "not-the-token" });
    const failed = openOutbox(config).add(record("CRS-LLLL-0001"));
    await expect(failed).rejects.toBeInstanceOf(BlobsWriteError);
    await expect(failed).rejects.toThrow(/HTTP 403/);
    expect((await openOutbox(blobsConfig()).read()).records).toEqual([]);
  });

  it("leaves inquiries it has marked delivered out of the open ones, unread", async () => {
    const outbox = openOutbox(blobsConfig());
    await outbox.add(record("CRS-MMMM-0001"));
    await outbox.add(record("CRS-MMMM-0002"));
    await outbox.recordAttempt({ reference: "CRS-MMMM-0001", transport: "email", ok: true, at: "t1" });
    // The first look at it marks it delivered...
    expect((await outbox.entries(8, "open")).entries.map((entry) => entry.state)).toEqual(["delivered", "pending"]);
    // ...and from then on a pass does not read it at all, even if its blob were unreadable.
    await rawStore().write("inquiries/CRS-MMMM-0001", "not an inquiry");
    const open = await outbox.entries(8, "open");
    expect([open.entries.map((entry) => entry.record.reference), open.damagedLines]).toEqual([["CRS-MMMM-0002"], 0]);
    // Every inquiry is read for a full listing: there it counts as damaged.
    expect((await outbox.entries(8, "all")).damagedLines).toBe(1);
  });

  it("leaves a quarantined inquiry out of the open ones, unread but counted, until it is released", async () => {
    const outbox = openOutbox(blobsConfig());
    await outbox.add({ ...record("CRS-NNNN-0001"), quarantine: { reason: "honeypot filled" } });
    await outbox.add({
      ...record("CRS-NNNN-0002"),
      idempotencyKey: "key-held-in-quarantine",
      quarantine: { reason: "sent too fast" },
    });
    // Unread: not even a blob that is not an inquiry would be noticed.
    await rawStore().write("inquiries/CRS-NNNN-0001", "not an inquiry");
    const held = await outbox.entries(8, "open");
    expect([held.entries, held.heldUnread, held.damagedLines]).toEqual([[], 2, 0]);
    await outbox.release("CRS-NNNN-0002");
    const released = await outbox.entries(8, "open");
    expect([released.entries.map((entry) => [entry.record.reference, entry.state]), released.heldUnread]).toEqual([
      [["CRS-NNNN-0002", "pending"]],
      1,
    ]);
  });

  it("does not deliver while another process holds an unexpired lease, and takes over an expired one", async () => {
    const future = new Date(Date.now() + 60_000).toISOString();
    await rawStore().write("lease/delivery", { holder: "another process", expiresAt: future });
    expect(await openOutbox(blobsConfig()).whileDelivering(() => Promise.resolve("mine"))).toBeNull();

    const past = new Date(Date.now() - 1_000).toISOString();
    await rawStore().write("lease/delivery", { holder: "a process that died", expiresAt: past });
    expect(await openOutbox(blobsConfig()).whileDelivering(() => Promise.resolve("mine"))).toEqual({ value: "mine" });
    // Released when done: the next run need not wait for it to expire.
    expect(await openOutbox(blobsConfig()).whileDelivering(() => Promise.resolve("next"))).toEqual({ value: "next" });
  });

  it("stops starting deliveries once another run has taken its lease over", async () => {
    const outbox = new BlobsOutbox(new BlobsStore(blobsConfig().blobs), {
      attemptTimeoutMs: 100,
      lease: { ttlMs: 3_000, renewMs: 200, marginMs: 500 },
    });
    const lost: string[] = [];
    const seen = await outbox.whileDelivering(
      async (lease) => {
        const before = lease.mayStart();
        // Another run, judging the lease expired (a clock far ahead, say), writes its own.
        await rawStore().write("lease/delivery", {
          holder: "another run",
          expiresAt: new Date(Date.now() + 60_000).toISOString(),
        });
        await new Promise((resolve) => setTimeout(resolve, 600));
        return [before, lease.mayStart()];
      },
      0,
      (error) => lost.push(error.message),
    );
    expect(seen).toEqual({ value: [true, false] });
    expect(lost).toEqual(["the delivery lease was taken over by another run"]);
    // The lease that passed to the other run is not released by the run that lost it.
    const text = await rawStore().get("lease/delivery");
    expect(JSON.parse(text ?? "{}")).toMatchObject({ holder: "another run" });
  });

  it("reads a Lambda event's store access only where strong consistency is possible", () => {
    const event = blobsServer.lambdaEvent();
    expect(blobsAccessFromLambdaEvent(event)).toEqual({
      siteID: blobsServer.siteID,
      token: blobsServer.token,
      edgeURL: blobsServer.url,
      uncachedEdgeURL: blobsServer.url,
    });
    const cachedOnly = Buffer.from(JSON.stringify({ url: blobsServer.url, token: "t" })).toString("base64");
    expect(blobsAccessFromLambdaEvent({ ...event, blobs: cachedOnly })).toBeNull();
    expect(blobsAccessFromLambdaEvent({ ...event, headers: {} })).toBeNull();
    expect(blobsAccessFromLambdaEvent(undefined)).toBeNull();
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
