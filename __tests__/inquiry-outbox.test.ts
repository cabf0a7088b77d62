/**
 * @jest-environment node
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { BlobsOutbox, LAYOUT_VERSION as BLOBS_LAYOUT_VERSION } from "../server/inquiries/blobs-outbox";
import { BlobsStore, BlobsWriteError, blobsAccessFromLambdaEvent } from "../server/inquiries/blobs-store";
import { readInquiryConfig } from "../server/inquiries/config";
import { readInquiryContent } from "../server/inquiries/content-on-disk";
import { openOutbox } from "../server/inquiries/open-outbox";
import {
  isRetaining,
  UnknownLayoutError,
  UnknownReferenceError,
  type InquiryOutbox,
  type OutboxRecord,
} from "../server/inquiries/outbox";
import { DATABASE_FILE, openSqliteOutbox } from "../server/inquiries/store/sqlite";
import { newReference, referencePattern } from "../server/inquiries/reference";
import { startBlobsServer, type LocalBlobsServer } from "../testing/blobs-server";
import { sampleRecord } from "./support/outbox-fixtures";
import { forgetProcessState } from "./support/outbox-restart";
import { SQL_POSTGRES, SQL_SQLITE, useSqlStores } from "./support/sql-stores";
import { shifted, type Offset } from "./support/test-clock";

const { delivery } = readInquiryContent(path.resolve("content")).form;

const record = (reference: string): OutboxRecord => sampleRecord(reference, ["email"]);
/** The tests' clock starts when the sample records arrive. */
const START = record("CRS-TIME-0000").receivedAt;
/** The instant `offset` from START (before it, where negative). */
const at = (offset: Offset) => shifted(START, offset);
/** START's day, as a digest is named (YYYY-MM-DD). */
const DAY = START.slice(0, 10);

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
const sqlStores = useSqlStores();

/** Each kind of outbox, opened the way the code opens it from the configuration; the SQL store on each engine. */
const kinds: [string, () => InquiryOutbox][] = [
  ["Netlify Blobs", () => openOutbox(blobsConfig())],
  [SQL_SQLITE, () => sqlStores.outbox(SQL_SQLITE, dir)],
  [SQL_POSTGRES, () => sqlStores.outbox(SQL_POSTGRES, dir)],
];

describe.each(kinds)("the %s outbox", (kind, open) => {
  sqlStores.databasePerTest(kind);
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
    await fail(at({ seconds: 1 }), at({ minutes: 1 }));
    let [entry] = (await outbox.entries(2)).entries;
    expect([entry?.state, entry?.dueAt, entry?.deliveries]).toEqual([
      "pending",
      at({ minutes: 1 }),
      { email: "failed" },
    ]);
    await fail(at({ minutes: 1, seconds: 1 }), at({ minutes: 3 }));
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

  it("releases a held inquiry once: a second release, or one of an inquiry not held, changes nothing", async () => {
    const outbox = open();
    await outbox.add({ ...record("CRS-GGGG-0001"), quarantine: { reason: "sent too fast" } });
    await outbox.add(record("CRS-GGGG-0002"));
    expect(await outbox.release("CRS-GGGG-0001", new Date(at({ days: 1, hours: -2 })))).toBe(true);
    expect(await outbox.release("CRS-GGGG-0001", new Date(at({ days: 1, hours: -1 })))).toBe(false);
    expect(await outbox.release("CRS-GGGG-0002")).toBe(false);
    expect(await outbox.release("CRS-NONE-0000")).toBe(false);
    const { releases } = await outbox.read();
    expect(releases).toEqual([{ reference: "CRS-GGGG-0001", at: at({ days: 1, hours: -2 }) }]);
    expect((await outbox.entries(8)).entries.map((entry) => entry.state)).toEqual(["pending", "pending"]);
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

  /** The outbox with what it does with personal data (both kinds have it). */
  const retaining = () => {
    const outbox = open();
    if (!isRetaining(outbox)) throw new Error(`${outbox.location} keeps no retention`);
    return outbox;
  };
  const retention = { deliveredMonths: 24, quarantinedDays: 30 };
  const from = (reference: string, receivedAt: string, address: string, extra: Partial<OutboxRecord> = {}) => ({
    ...record(reference),
    receivedAt,
    replyTo: { address },
    ...extra,
  });

  it("removes what is past its retention, with its attempts: never a kept one, nor one whose sender wrote since", async () => {
    const outbox = retaining();
    const spam = { quarantine: { reason: "honeypot filled" } };
    const delivered = async (reference: string, receivedAt: string, address: string) => {
      await outbox.add(from(reference, receivedAt, address, { idempotencyKey: `key-of-${reference}` }));
      await outbox.recordAttempt({ reference, transport: "email", ok: true, at: receivedAt });
    };
    await delivered("CRS-OLD0-0001", at({ months: -24, days: -21, hours: -1 }), "gone@example.gov");
    await delivered("CRS-KEPT-0001", at({ months: -25, days: -21, hours: -1 }), "order@example.gov");
    expect(await outbox.keep("CRS-KEPT-0001")).toBe(true);
    expect(await outbox.keep("CRS-NONE-0000")).toBe(false);
    // 25 months old, but the same sender wrote again last month: the last contact is recent.
    await delivered("CRS-BACK-0201", at({ months: -25, days: -7, hours: -1 }), "returning@example.gov");
    await delivered("CRS-BACK-0202", at({ months: -1, days: -7, hours: -1 }), "Returning@example.gov");
    await delivered("CRS-NEW0-0001", at({ months: -22, days: -12, hours: -1 }), "recent@example.gov");
    await outbox.add(from("CRS-SPAM-0001", at({ months: -1, days: -12, hours: -1 }), "bot@example.gov", spam));
    await outbox.add(from("CRS-SPAM-0002", at({ days: -10, hours: -1 }), "bot@example.gov", spam));
    await outbox.add(from("CRS-SPAM-0003", at({ months: -1, days: -12, hours: -1 }), "person@example.gov", spam));
    await outbox.release("CRS-SPAM-0003", new Date(at({ months: -1, days: -11, hours: -1 })));

    const references = async () => (await outbox.read()).records.map((stored) => stored.reference).sort();
    expect(await outbox.removeExpired(new Date(START), retention)).toEqual({
      inquiries: 1,
      quarantined: 1,
      complete: true,
    });
    expect(await references()).toEqual([
      "CRS-BACK-0201",
      "CRS-BACK-0202",
      "CRS-KEPT-0001",
      "CRS-NEW0-0001",
      "CRS-SPAM-0002",
      "CRS-SPAM-0003",
    ]);
    expect((await outbox.read()).attempts.map((attempt) => attempt.reference)).not.toContain("CRS-OLD0-0001");
    // Its idempotency key went with it: the same key now stores a new inquiry.
    expect(
      await outbox.add(
        from("CRS-OLD0-0002", START, "gone@example.gov", {
          idempotencyKey: "key-of-CRS-OLD0-0001",
        }),
      ),
    ).toEqual({ reference: "CRS-OLD0-0002", created: true });

    // Three weeks later the held spam has had its days; in 2027 the returning sender's last contact
    // (October 2026) is still recent, and the one from January 2025 has run out.
    expect(await outbox.removeExpired(new Date(at({ months: 2, days: 21 })), retention)).toEqual({
      inquiries: 1,
      quarantined: 1,
      complete: true,
    });
    expect(await references()).toEqual([
      "CRS-BACK-0201",
      "CRS-BACK-0202",
      "CRS-KEPT-0001",
      "CRS-OLD0-0002",
      "CRS-SPAM-0003",
    ]);
    // Once the returning sender's last contact has run out too, both of theirs go, and the released spam
    // (an inquiry like any other since); the kept one stays.
    expect(await outbox.removeExpired(new Date(at({ months: 23, days: -6 })), retention)).toEqual({
      inquiries: 3,
      quarantined: 0,
      complete: true,
    });
    expect(await references()).toEqual(["CRS-KEPT-0001", "CRS-OLD0-0002"]);
  });

  it("removes nothing once told to stop, and says it did not finish", async () => {
    const outbox = retaining();
    await outbox.add(from("CRS-STOP-0001", at({ months: -34, days: -21, hours: -1 }), "gone@example.gov"));
    expect(await outbox.removeExpired(new Date(START), retention, () => true)).toEqual({
      inquiries: 0,
      quarantined: 0,
      complete: false,
    });
    expect((await outbox.read()).records).toHaveLength(1);
  });

  it("exports a person's inquiries with everything about them, and erases one by reference", async () => {
    const outbox = retaining();
    await outbox.add(
      from("CRS-PERS-0001", at({ days: -2, hours: -1 }), "ask@example.gov", {
        quarantine: { reason: "sent too fast" },
      }),
    );
    await outbox.add(from("CRS-PERS-0002", at({ days: -1, hours: -1 }), "Ask@Example.gov"));
    await outbox.add(from("CRS-PERS-0003", at({ days: -1 }), "other@example.gov"));
    await outbox.release("CRS-PERS-0001", new Date(at({ days: -2 })));
    await outbox.recordAttempt({
      reference: "CRS-PERS-0001",
      transport: "email",
      ok: true,
      at: at({ days: -2, seconds: 1 }),
    });
    await outbox.keep("CRS-PERS-0002");
    const exported = await outbox.inquiriesFrom(" ASK@example.gov ");
    expect(
      exported.map(({ record: found, attempts, releasedAt, kept }) => [
        found.reference,
        attempts.length,
        releasedAt,
        kept,
      ]),
    ).toEqual([
      ["CRS-PERS-0001", 1, at({ days: -2 }), false],
      ["CRS-PERS-0002", 0, null, true],
    ]);
    expect(await outbox.erase(["CRS-PERS-0001", "CRS-NONE-0000"])).toEqual(["CRS-PERS-0001"]);
    expect(await outbox.stored("CRS-PERS-0001")).toBeNull();
    expect((await outbox.inquiriesFrom("ask@example.gov")).map((found) => found.record.reference)).toEqual([
      "CRS-PERS-0002",
    ]);
    expect((await outbox.read()).attempts).toEqual([]);
  });

  it("pages through the inquiries oldest first, a state at a time if asked", async () => {
    const outbox = open();
    // Days from START's (before it); the one at index n arrives at n:00.
    const days = [-4, -3, -3, -2, 0];
    for (const [index, day] of days.entries()) {
      const receivedAt = at({ days: day, hours: index - 10 });
      await outbox.add(from(`CRS-PAGE-000${index + 1}`, receivedAt, "pat@example.gov"));
    }
    await outbox.recordAttempt({ reference: "CRS-PAGE-0002", transport: "email", ok: true, at: "t1" });
    const references = (page: { entries: { record: OutboxRecord }[] }) =>
      page.entries.map((entry) => entry.record.reference);
    const first = await outbox.page({ after: null, limit: 2, maxAttempts: 8 });
    expect([references(first), first.next]).toEqual([["CRS-PAGE-0001", "CRS-PAGE-0002"], "CRS-PAGE-0002"]);
    const second = await outbox.page({ after: "CRS-PAGE-0002", limit: 2, maxAttempts: 8 });
    expect([references(second), second.next]).toEqual([["CRS-PAGE-0003", "CRS-PAGE-0004"], "CRS-PAGE-0004"]);
    const last = await outbox.page({ after: "CRS-PAGE-0004", limit: 2, maxAttempts: 8 });
    expect([references(last), last.next]).toEqual([["CRS-PAGE-0005"], null]);
    const pending = await outbox.page({ after: null, limit: 10, maxAttempts: 8, state: "pending" });
    expect([references(pending), pending.next]).toEqual([
      ["CRS-PAGE-0001", "CRS-PAGE-0003", "CRS-PAGE-0004", "CRS-PAGE-0005"],
      null,
    ]);
    await expect(outbox.page({ after: "CRS-NONE-0000", limit: 2, maxAttempts: 8 })).rejects.toBeInstanceOf(
      UnknownReferenceError,
    );
  });

  it("lets one delivery run at a time hold its lock", async () => {
    const outbox = open();
    let release: () => void = () => undefined;
    let holds: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (holds = resolve));
    const holding = outbox.whileDelivering(
      () =>
        new Promise<string>((resolve) => {
          release = () => resolve("first");
          holds();
        }),
    );
    await held;
    expect(await open().whileDelivering(() => Promise.resolve("second"))).toBeNull();
    const waiting = open().whileDelivering(() => Promise.resolve("third"), 5_000);
    release();
    expect(await holding).toEqual({ value: "first" });
    expect(await waiting).toEqual({ value: "third" });
    // The third run may wait up to 5 s for the lease, as long as jest's default for a whole test: under a loaded
    // CI machine the local Blobs server's answers took the rest. The test is of turn-taking, not of speed.
  }, 15_000);
});

describe("the SQL store as configured", () => {
  it("is the single server's default, a database file in INQUIRY_DATA_DIR", () => {
    const outbox = openOutbox(readInquiryConfig(delivery, { INQUIRY_DATA_DIR: dir }));
    expect(outbox.location).toBe(path.join(dir, DATABASE_FILE));
    expect(readInquiryConfig(delivery, { INQUIRY_OUTBOX: "SQLite" }).outbox).toBe("sqlite");
    expect(() => readInquiryConfig(delivery, { INQUIRY_OUTBOX: "file" })).toThrow(/sqlite, postgres or blobs/);
  });

  it("is a Postgres by URL where INQUIRY_DATABASE_URL is set, and refuses one named beside another store", () => {
    const url = "postgres://site:secret@db.example.net:5432/inquiries";
    const config = readInquiryConfig(delivery, { INQUIRY_DATABASE_URL: url });
    expect([config.outbox, config.databaseUrl, config.durableOutbox]).toEqual(["postgres", url, true]);
    // Opened without connecting: its location names the host and database, never the password.
    expect(openOutbox(config).location).toBe("Postgres database inquiries on db.example.net:5432");
    expect(() => readInquiryConfig(delivery, { INQUIRY_DATABASE_URL: url, INQUIRY_OUTBOX: "sqlite" })).toThrow(
      "INQUIRY_DATABASE_URL is set but INQUIRY_OUTBOX is sqlite",
    );
    expect(() => readInquiryConfig(delivery, { INQUIRY_DATABASE_URL: "mysql://db/inquiries" })).toThrow(
      /INQUIRY_DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/,
    );
  });

  it("stores many inquiries that arrive at once, each durable when its promise resolves", async () => {
    const outbox = openSqliteOutbox(dir);
    const references = Array.from({ length: 300 }, (_, index) => `CRS-MANY-${String(index).padStart(4, "0")}`);
    const results = await Promise.all(references.map((reference) => outbox.add(record(reference))));
    expect(results.every((result) => result.created)).toBe(true);
    forgetProcessState();
    expect((await openSqliteOutbox(dir).read()).records.map((stored) => stored.reference)).toEqual(references);
  });

  it("refuses to store when its folder cannot be made, and stores once it can", async () => {
    const blocked = path.join(dir, "not-a-folder");
    writeFileSync(blocked, "");
    await expect(openSqliteOutbox(blocked).add(record("CRS-XXXX-0001"))).rejects.toThrow();
    await expect(openSqliteOutbox(blocked).probe()).rejects.toThrow();
    rmSync(blocked);
    await openSqliteOutbox(blocked).add(record("CRS-XXXX-0001"));
    await openSqliteOutbox(blocked).probe();
  });
});

describe("the Netlify Blobs outbox", () => {
  /** Direct access to the test's store, as another process (or a person with the API) has it. */
  const rawStore = () => new BlobsStore(blobsConfig().blobs);
  const hash = (text: string) => createHash("sha256").update(text).digest("hex");
  /** The shard's folder of what is filed under `name` (an inquiry's reference, an address's hash). */
  const shardFolder = (prefix: string, name: string) => `${prefix}/${hash(name).slice(0, 2)}/${name}/`;

  const layoutOnDisk = async () => JSON.parse((await rawStore().get("meta/layout")) ?? "null") as unknown;

  it("records its layout version with its first write, and not on a look at an empty store", async () => {
    expect(await openOutbox(blobsConfig()).read()).toMatchObject({ records: [] });
    expect(await new BlobsOutbox(rawStore(), { attemptTimeoutMs: 20_000 }).holdsAnything()).toBe(false);
    await openOutbox(blobsConfig()).add(record("CRS-VERS-0001"));
    expect(BLOBS_LAYOUT_VERSION).toBe(1);
    expect(await layoutOnDisk()).toEqual({ version: BLOBS_LAYOUT_VERSION });
  });

  it("reads a store written before the version was recorded as the current layout, and records it at a write", async () => {
    const outbox = openOutbox(blobsConfig());
    await outbox.add(record("CRS-VERS-0002"));
    await rawStore().delete("meta/layout");
    forgetProcessState();
    const earlier = openOutbox(blobsConfig());
    expect((await earlier.entries(8, "open")).entries.map((entry) => entry.record.reference)).toEqual([
      "CRS-VERS-0002",
    ]);
    expect(await layoutOnDisk()).toBeNull();
    await earlier.recordAttempt({ reference: "CRS-VERS-0002", transport: "email", ok: true, at: "t1" });
    expect(await layoutOnDisk()).toEqual({ version: BLOBS_LAYOUT_VERSION });
    expect((await earlier.entry("CRS-VERS-0002", 8))?.state).toBe("delivered");
  });

  it("refuses a store of a layout version it does not know, naming both versions, before writing anything", async () => {
    await rawStore().write("meta/layout", { version: 2 });
    const refused = openOutbox(blobsConfig()).add(record("CRS-VERS-0003"));
    await expect(refused).rejects.toBeInstanceOf(UnknownLayoutError);
    await expect(refused).rejects.toThrow(
      `Netlify Blobs store "${store}" of site ${blobsServer.siteID} records layout version 2, and this release of the site reads version 1`,
    );
    await expect(openOutbox(blobsConfig()).entries(8, "open")).rejects.toThrow(/layout version 2/);
    expect((await rawStore().list("")).map((blob) => blob.key)).toEqual(["meta/layout"]);
    // A stamp this code never writes is refused alike.
    await rawStore().write("meta/layout", "version one");
    forgetProcessState();
    await expect(openOutbox(blobsConfig()).read()).rejects.toThrow(/layout version unreadable/);
  });

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
    // The store's layout is known to this process: the add's first request is then its write.
    await openOutbox(blobsConfig()).probe();
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

  it("lists only the open marks in a delivery pass, which delivery empties: never the history", async () => {
    const outbox = new BlobsOutbox(rawStore(), { attemptTimeoutMs: 20_000 });
    for (const reference of ["CRS-OPEN-0001", "CRS-OPEN-0002", "CRS-OPEN-0003"]) await outbox.add(record(reference));
    await outbox.add({ ...record("CRS-OPEN-0004"), quarantine: { reason: "honeypot filled" } });
    await outbox.recordAttempt({ reference: "CRS-OPEN-0001", transport: "email", ok: true, at: "t1" });
    await outbox.recordAttempt({ reference: "CRS-OPEN-0002", transport: "email", ok: true, at: "t1" });
    const listed = jest.spyOn(BlobsStore.prototype, "list");
    try {
      const first = await outbox.entries(8, "open");
      expect(first.entries.map((entry) => [entry.record.reference, entry.state])).toEqual([
        ["CRS-OPEN-0001", "delivered"],
        ["CRS-OPEN-0002", "delivered"],
        ["CRS-OPEN-0003", "pending"],
      ]);
      const second = await outbox.entries(8, "open");
      expect([second.entries.map((entry) => entry.record.reference), second.heldUnread]).toEqual([
        ["CRS-OPEN-0003"],
        1,
      ]);
      const prefixes = new Set(listed.mock.calls.map(([prefix]) => prefix.split("/")[0]));
      // The open marks, the held marks, and the attempts and releases of open inquiries only.
      expect([...prefixes].sort()).toEqual(["attempts", "open", "quarantined", "releases"]);
      expect(listed.mock.calls.filter(([prefix]) => prefix.includes("CRS-OPEN-0001"))).toHaveLength(2);
    } finally {
      listed.mockRestore();
    }
    expect((await rawStore().list("open/")).map((blob) => blob.key)).toEqual(["open/CRS-OPEN-0003"]);
  });

  it("lists in a retention run only the days of its queues and the days past their time: never the history", async () => {
    const outbox = new BlobsOutbox(rawStore(), { attemptTimeoutMs: 20_000 });
    const retention = { deliveredMonths: 24, quarantinedDays: 30 };
    const now = new Date(START);
    for (let index = 0; index < 30; index += 1) {
      await outbox.add({
        ...record(`CRS-HIST-${String(index).padStart(4, "0")}`),
        // From January to September of START's year, each from the 10th to the 19th, at 9:00.
        receivedAt: at({ months: (index % 9) - 10, days: (index % 10) - 12, hours: -1 }),
      });
    }
    const gone = at({ months: -25, days: -21, hours: -1 });
    await outbox.add({ ...record("CRS-GONE-0001"), receivedAt: gone, replyTo: { address: "gone@example.gov" } });
    const listed = jest.spyOn(BlobsStore.prototype, "list");
    const folders = jest.spyOn(BlobsStore.prototype, "directories");
    try {
      expect(await outbox.removeExpired(now, retention)).toEqual({ inquiries: 1, quarantined: 0, complete: true });
      expect(folders.mock.calls.map(([prefix]) => prefix).sort()).toEqual(["expiry/", "held/"]);
      // Inside: the one day past its time, and what the inquiry found there needs.
      const prefixes = listed.mock.calls.map(([prefix]) => prefix);
      expect(prefixes.filter((prefix) => prefix.startsWith("expiry/"))).toEqual([`expiry/${gone.slice(0, 10)}/`]);
      expect(prefixes.filter((prefix) => /^(inquiries|received|open|attempts\/CRS-HIST)/.test(prefix))).toEqual([]);
    } finally {
      listed.mockRestore();
      folders.mockRestore();
    }
  });

  it("lists an inquiry's own shards to read it, never a folder per inquiry", async () => {
    const outbox = new BlobsOutbox(rawStore(), { attemptTimeoutMs: 20_000 });
    await outbox.add(record("CRS-SHRD-0001"));
    await outbox.recordAttempt({ reference: "CRS-SHRD-0001", transport: "email", ok: true, at: "t1" });
    const listed = jest.spyOn(BlobsStore.prototype, "list");
    try {
      expect((await outbox.entry("CRS-SHRD-0001", 8))?.state).toBe("delivered");
      expect(listed.mock.calls.map(([prefix]) => prefix).sort()).toEqual([
        shardFolder("attempts", "CRS-SHRD-0001"),
        shardFolder("releases", "CRS-SHRD-0001"),
      ]);
    } finally {
      listed.mockRestore();
    }
  });

  it("leaves no key that names an erased inquiry or its sender", async () => {
    const outbox = new BlobsOutbox(rawStore(), { attemptTimeoutMs: 20_000 });
    await outbox.add({
      ...record("CRS-ERAS-0001"),
      idempotencyKey: "key-erased-0001",
      quarantine: { reason: "sent too fast" },
    });
    await outbox.release("CRS-ERAS-0001");
    await outbox.recordAttempt({ reference: "CRS-ERAS-0001", transport: "email", ok: true, at: "t1" });
    await outbox.keep("CRS-ERAS-0001");
    await outbox.add(record("CRS-STAY-0001"));
    const before = (await rawStore().list("")).map((blob) => blob.key);
    const sender = before.find((key) => key.startsWith("senders/"))?.split("/")[2] ?? "";
    expect(sender).toMatch(/^[0-9a-f]{64}$/);
    expect(await outbox.erase(["CRS-ERAS-0001"])).toEqual(["CRS-ERAS-0001"]);
    const after = (await rawStore().list("")).map((blob) => blob.key);
    expect(after.filter((key) => key.includes("CRS-ERAS-0001") || key.includes("key-erased-0001"))).toEqual([]);
    // The other inquiry from the same address keeps its own key under the sender.
    expect(after.filter((key) => key.includes(sender))).toEqual([expect.stringContaining("CRS-STAY-0001")]);
  });

  it("leaves no key that names an erased held inquiry a digest listed", async () => {
    const outbox = new BlobsOutbox(rawStore(), { attemptTimeoutMs: 20_000 });
    await outbox.add({ ...record("CRS-ERAS-0002"), quarantine: { reason: "honeypot filled" } });
    const digest = await outbox.takeDigest(DAY, new Date(at({ hours: 2 })), ["email"]);
    expect(digest?.references).toEqual(["CRS-ERAS-0002"]);
    expect((await rawStore().list("digested/")).map((blob) => blob.key)).toEqual(["digested/CRS-ERAS-0002"]);
    expect(await outbox.erase(["CRS-ERAS-0002"])).toEqual(["CRS-ERAS-0002"]);
    const after = (await rawStore().list("")).map((blob) => blob.key);
    expect(after.filter((key) => key.includes("CRS-ERAS-0002"))).toEqual([]);
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
