/**
 * @jest-environment node
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { tmpdir } from "node:os";
import path from "node:path";
import { BlobsOutbox } from "../server/inquiries/blobs-outbox";
import { BlobsStore, BlobsWriteError, blobsAccessFromLambdaEvent } from "../server/inquiries/blobs-store";
import { readInquiryConfig } from "../server/inquiries/config";
import { readInquiryContent } from "../server/inquiries/content-on-disk";
import { importFileOutbox } from "../server/inquiries/file-outbox-import";
import { importEarlierOutbox, openOutbox } from "../server/inquiries/open-outbox";
import { isRetaining, UnknownReferenceError, type InquiryOutbox, type OutboxRecord } from "../server/inquiries/outbox";
import { DATABASE_FILE, SqliteOutbox } from "../server/inquiries/sqlite-outbox";
import { emptyInquiry } from "../src/inquiry/values";
import { newReference, referencePattern } from "../server/inquiries/reference";
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
  ["SQLite", () => openOutbox(readInquiryConfig(delivery, { INQUIRY_DATA_DIR: dir }))],
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
    await delivered("CRS-OLD0-0001", "2024-11-01T09:00:00.000Z", "gone@example.gov");
    await delivered("CRS-KEPT-0001", "2024-10-01T09:00:00.000Z", "order@example.gov");
    expect(await outbox.keep("CRS-KEPT-0001")).toBe(true);
    expect(await outbox.keep("CRS-NONE-0000")).toBe(false);
    // 25 months old, but the same sender wrote again last month: the last contact is recent.
    await delivered("CRS-BACK-0201", "2024-10-15T09:00:00.000Z", "returning@example.gov");
    await delivered("CRS-BACK-0202", "2026-10-15T09:00:00.000Z", "Returning@example.gov");
    await delivered("CRS-NEW0-0001", "2025-01-10T09:00:00.000Z", "recent@example.gov");
    await outbox.add(from("CRS-SPAM-0001", "2026-10-10T09:00:00.000Z", "bot@example.gov", spam));
    await outbox.add(from("CRS-SPAM-0002", "2026-11-12T09:00:00.000Z", "bot@example.gov", spam));
    await outbox.add(from("CRS-SPAM-0003", "2026-10-10T09:00:00.000Z", "person@example.gov", spam));
    await outbox.release("CRS-SPAM-0003", new Date("2026-10-11T09:00:00.000Z"));

    const references = async () => (await outbox.read()).records.map((stored) => stored.reference).sort();
    expect(await outbox.removeExpired(new Date("2026-11-22T10:00:00.000Z"), retention)).toEqual({
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
        from("CRS-OLD0-0002", "2026-11-22T10:00:00.000Z", "gone@example.gov", {
          idempotencyKey: "key-of-CRS-OLD0-0001",
        }),
      ),
    ).toEqual({ reference: "CRS-OLD0-0002", created: true });

    // Three weeks later the held spam has had its days; in 2027 the returning sender's last contact
    // (October 2026) is still recent, and the one from January 2025 has run out.
    expect(await outbox.removeExpired(new Date("2027-02-12T10:00:00.000Z"), retention)).toEqual({
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
    expect(await outbox.removeExpired(new Date("2028-10-16T10:00:00.000Z"), retention)).toEqual({
      inquiries: 3,
      quarantined: 0,
      complete: true,
    });
    expect(await references()).toEqual(["CRS-KEPT-0001", "CRS-OLD0-0002"]);
  });

  it("removes nothing once told to stop, and says it did not finish", async () => {
    const outbox = retaining();
    await outbox.add(from("CRS-STOP-0001", "2024-01-01T09:00:00.000Z", "gone@example.gov"));
    expect(await outbox.removeExpired(new Date("2026-11-22T10:00:00.000Z"), retention, () => true)).toEqual({
      inquiries: 0,
      quarantined: 0,
      complete: false,
    });
    expect((await outbox.read()).records).toHaveLength(1);
  });

  it("exports a person's inquiries with everything about them, and erases one by reference", async () => {
    const outbox = retaining();
    await outbox.add(
      from("CRS-PERS-0001", "2026-11-20T09:00:00.000Z", "ask@example.gov", { quarantine: { reason: "sent too fast" } }),
    );
    await outbox.add(from("CRS-PERS-0002", "2026-11-21T09:00:00.000Z", "Ask@Example.gov"));
    await outbox.add(from("CRS-PERS-0003", "2026-11-21T10:00:00.000Z", "other@example.gov"));
    await outbox.release("CRS-PERS-0001", new Date("2026-11-20T10:00:00.000Z"));
    await outbox.recordAttempt({
      reference: "CRS-PERS-0001",
      transport: "email",
      ok: true,
      at: "2026-11-20T10:00:01.000Z",
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
      ["CRS-PERS-0001", 1, "2026-11-20T10:00:00.000Z", false],
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
    const days = ["2026-11-18", "2026-11-19", "2026-11-19", "2026-11-20", "2026-11-22"];
    for (const [index, day] of days.entries()) {
      await outbox.add(from(`CRS-PAGE-000${index + 1}`, `${day}T0${index}:00:00.000Z`, "pat@example.gov"));
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
    const holding = outbox.whileDelivering(() => new Promise<string>((resolve) => (release = () => resolve("first"))));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await open().whileDelivering(() => Promise.resolve("second"))).toBeNull();
    const waiting = open().whileDelivering(() => Promise.resolve("third"), 5_000);
    release();
    expect(await holding).toEqual({ value: "first" });
    expect(await waiting).toEqual({ value: "third" });
    // The third run may wait up to 5 s for the lease, as long as jest's default for a whole test: under a loaded
    // CI machine the local Blobs server's answers took the rest. The test is of turn-taking, not of speed.
  }, 15_000);
});

describe("the SQLite outbox", () => {
  it("is the single server's default, a database file in INQUIRY_DATA_DIR", () => {
    const outbox = openOutbox(readInquiryConfig(delivery, { INQUIRY_DATA_DIR: dir }));
    expect(outbox.location).toBe(path.join(dir, DATABASE_FILE));
    // The folder outbox's earlier name still means the same folder.
    expect(readInquiryConfig(delivery, { INQUIRY_OUTBOX: "file" }).outbox).toBe("sqlite");
    expect(() => readInquiryConfig(delivery, { INQUIRY_OUTBOX: "files" })).toThrow(/sqlite or blobs/);
  });

  it("keeps its database readable by the server's user only, in WAL with full syncs", async () => {
    await new SqliteOutbox(dir).add(record("CRS-DDDD-0001"));
    expect(statSync(path.join(dir, DATABASE_FILE)).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(dir, `${DATABASE_FILE}-wal`)).mode & 0o777).toBe(0o600);
    const db = new DatabaseSync(path.join(dir, DATABASE_FILE));
    try {
      expect(db.prepare("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    } finally {
      db.close();
    }
  });

  it("answers a delivery pass's question through indexes, without reading delivered or quarantined ones", async () => {
    const outbox = new SqliteOutbox(dir);
    await outbox.add(record("CRS-PPPP-0001"));
    await outbox.recordAttempt({ reference: "CRS-PPPP-0001", transport: "email", ok: true, at: "t1" });
    await outbox.add(record("CRS-PPPP-0002"));
    await outbox.add({ ...record("CRS-PPPP-0003"), quarantine: { reason: "honeypot filled" } });
    // Anything read of the delivered or the held one would fail to parse.
    const db = new DatabaseSync(path.join(dir, DATABASE_FILE));
    try {
      db.prepare(
        "UPDATE inquiries SET record = 'not JSON' WHERE reference IN ('CRS-PPPP-0001', 'CRS-PPPP-0003')",
      ).run();
      const plans = [
        "SELECT reference, record, released_at FROM inquiries WHERE phase = 'open' ORDER BY rowid",
        "SELECT reference FROM inquiries WHERE idempotency_key = 'k' LIMIT 1",

        "SELECT reference FROM inquiries WHERE email = 'pat@example.gov'",
      ].map((query) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${query}`).all() as unknown as { detail: string }[])
          .map((step) => step.detail)
          .join("; "),
      );
      for (const plan of plans) expect(plan).toMatch(/USING (COVERING )?INDEX/);
    } finally {
      db.close();
    }
    const open = await outbox.entries(8, "open");
    expect([open.entries.map((entry) => entry.record.reference), open.heldUnread]).toEqual([["CRS-PPPP-0002"], 1]);
    // The held ones are counted as they come and go, not by reading them.
    await outbox.add({ ...record("CRS-PPPP-0004"), quarantine: { reason: "sent too fast" } });
    expect((await outbox.entries(8, "open")).heldUnread).toBe(2);
    await outbox.release("CRS-PPPP-0004");
    await outbox.erase(["CRS-PPPP-0003"]);
    expect((await outbox.entries(8, "open")).heldUnread).toBe(0);
  });

  it("stores many inquiries that arrive at once, each durable when its promise resolves", async () => {
    const outbox = new SqliteOutbox(dir);
    const references = Array.from({ length: 300 }, (_, index) => `CRS-MANY-${String(index).padStart(4, "0")}`);
    const results = await Promise.all(references.map((reference) => outbox.add(record(reference))));
    expect(results.every((result) => result.created)).toBe(true);
    forgetProcessState();
    expect((await new SqliteOutbox(dir).read()).records.map((stored) => stored.reference)).toEqual(references);
  });

  it("leaves nothing of an erased person in the database's files, its WAL included", async () => {
    const outbox = new SqliteOutbox(dir);
    const person = (reference: string): OutboxRecord => ({
      ...record(reference),
      replyTo: { address: "erase.me@example.gov" },
      fields: [{ name: "fullName", label: "Full name", value: "Quillon Erasable" }],
      idempotencyKey: `key-${reference}`,
    });
    for (let index = 0; index < 40; index += 1) await outbox.add(record(`CRS-KEEP-${String(index).padStart(4, "0")}`));
    await outbox.add(person("CRS-ERAS-0001"));
    await outbox.add({ ...person("CRS-ERAS-0002"), replyTo: { address: "Erase.Me@example.gov" } });
    await outbox.recordAttempt({ reference: "CRS-ERAS-0001", transport: "email", ok: true, at: "t1" });
    const files = () => readdirSync(dir).map((name) => readFileSync(path.join(dir, name)));
    const traces = () => files().filter((bytes) => bytes.includes("erase.me@") || bytes.includes("Quillon")).length;
    // Written where the test can see it: in the WAL, or the database after a checkpoint.
    expect(traces()).toBeGreaterThan(0);

    const found = await outbox.inquiriesFrom("ERASE.ME@example.gov");
    expect(found.map((inquiry) => [inquiry.record.reference, inquiry.attempts.length])).toEqual([
      ["CRS-ERAS-0001", 1],
      ["CRS-ERAS-0002", 0],
    ]);
    expect(await outbox.erase(found.map((inquiry) => inquiry.record.reference))).toEqual([
      "CRS-ERAS-0001",
      "CRS-ERAS-0002",
    ]);
    expect(await outbox.inquiriesFrom("erase.me@example.gov")).toEqual([]);
    expect(traces()).toBe(0);
    expect(statSync(path.join(dir, `${DATABASE_FILE}-wal`)).size).toBe(0);
    // The rest is untouched, and the idempotency key is free again.
    expect((await outbox.read()).records).toHaveLength(40);
    expect(await outbox.add(person("CRS-ERAS-0003"))).toEqual({ reference: "CRS-ERAS-0003", created: true });
  });

  it("refuses to store when its folder cannot be made, and stores once it can", async () => {
    const blocked = path.join(dir, "not-a-folder");
    writeFileSync(blocked, "");
    await expect(new SqliteOutbox(blocked).add(record("CRS-XXXX-0001"))).rejects.toThrow();
    await expect(new SqliteOutbox(blocked).probe()).rejects.toThrow();
    rmSync(blocked);
    await new SqliteOutbox(blocked).add(record("CRS-XXXX-0001"));
    await new SqliteOutbox(blocked).probe();
  });
});

describe("the import of the file outbox from before the database", () => {
  /** The three files as the earlier outbox left them: a line per item, the last inquiry torn by a crash. */
  const writeFileOutbox = () => {
    const lines = (items: readonly unknown[]) => items.map((item) => `${JSON.stringify(item)}\n`).join("");
    writeFileSync(
      path.join(dir, "inquiries.ndjson"),
      lines([
        record("CRS-IMPT-0001"),
        { ...record("CRS-IMPT-0002"), idempotencyKey: "key-imported-000001" },
        { ...record("CRS-IMPT-0003"), quarantine: { reason: "honeypot filled" } },
        { ...record("CRS-IMPT-0004"), quarantine: { reason: "sent too fast" } },
      ]) + '{"reference":"CRS-IMPT-0005","receivedAt":"2026-11-22T1',
    );
    writeFileSync(
      path.join(dir, "deliveries.ndjson"),
      lines([
        { reference: "CRS-IMPT-0001", transport: "email", ok: true, at: "2026-11-22T10:00:01.000Z" },
        {
          reference: "CRS-IMPT-0002",
          transport: "email",
          ok: false,
          at: "2026-11-22T10:00:01.000Z",
          detail: "HTTP 503",
          retryAt: "2026-11-22T10:01:00.000Z",
        },
      ]),
    );
    writeFileSync(
      path.join(dir, "releases.ndjson"),
      lines([{ reference: "CRS-IMPT-0004", at: "2026-11-22T11:00:00.000Z" }]),
    );
  };

  it("imports every whole item once, reports the torn line, and removes the files once verified", async () => {
    writeFileOutbox();
    const outbox = new SqliteOutbox(dir);
    expect(await importFileOutbox(dir, outbox)).toEqual({
      inquiries: 4,
      added: 4,
      attempts: 2,
      releases: 1,
      damagedLines: 1,
    });
    const { entries } = await outbox.entries(8);
    expect(entries.map((entry) => [entry.record.reference, entry.state, entry.attempts, entry.dueAt])).toEqual([
      ["CRS-IMPT-0001", "delivered", 1, null],
      ["CRS-IMPT-0002", "pending", 1, "2026-11-22T10:01:00.000Z"],
      ["CRS-IMPT-0003", "quarantined", 0, null],
      ["CRS-IMPT-0004", "pending", 0, "2026-11-22T10:00:00.000Z"],
    ]);
    // What a delivery pass reads, and the idempotency key, come through the database's own columns.
    const open = await outbox.entries(8, "open");
    expect([open.entries.map((entry) => entry.record.reference), open.heldUnread]).toEqual([
      ["CRS-IMPT-0002", "CRS-IMPT-0004"],
      1,
    ]);
    expect(await outbox.add({ ...record("CRS-IMPT-0009"), idempotencyKey: "key-imported-000001" })).toEqual({
      reference: "CRS-IMPT-0002",
      created: false,
    });
    expect(readdirSync(dir).filter((name) => name.endsWith(".ndjson"))).toEqual([]);
    // Nothing left to import.
    expect(await importFileOutbox(dir, outbox)).toBeNull();
  });

  it("adds nothing twice when the files are imported again (a start cut short before they were removed)", async () => {
    writeFileOutbox();
    const saved = ["inquiries", "deliveries", "releases"].map((name) => {
      const file = path.join(dir, `${name}.ndjson`);
      return [file, readFileSync(file)] as const;
    });
    const outbox = new SqliteOutbox(dir);
    await importFileOutbox(dir, outbox);
    for (const [file, bytes] of saved) writeFileSync(file, bytes);
    expect(await importFileOutbox(dir, outbox)).toMatchObject({ inquiries: 4, added: 0, attempts: 2 });
    const { records, attempts, releases } = await outbox.read();
    expect([records.length, attempts.length, releases.length]).toEqual([4, 2, 1]);
  });

  it("is run when the server starts, and the log says how many, never whose", async () => {
    writeFileOutbox();
    const logs: string[] = [];
    await importEarlierOutbox(openOutbox(readInquiryConfig(delivery, { INQUIRY_DATA_DIR: dir })), (line) =>
      logs.push(line),
    );
    expect(logs).toEqual([
      expect.stringMatching(/4 inquiries \(4 new\), 2 delivery attempts, 1 releases; 1 damaged line/),
    ]);
    expect(logs.join("\n")).not.toMatch(/CRS-IMPT|example\.gov/);
  });
});

describe("the Netlify Blobs outbox", () => {
  /** Direct access to the test's store, as another process (or a person with the API) has it. */
  const rawStore = () => new BlobsStore(blobsConfig().blobs);
  const keysNow = async () => (await rawStore().list("")).map((blob) => blob.key);
  const hash = (text: string) => createHash("sha256").update(text).digest("hex");
  /** The shard's folder of what is filed under `name` (an inquiry's reference, an address's hash). */
  const shardFolder = (prefix: string, name: string) => `${prefix}/${hash(name).slice(0, 2)}/${name}/`;
  /** Where a key of a store from before the shards (`<prefix>/<name>/<leaf>`) belongs in its shard. */
  const shardKeyOf = (key: string) => {
    const [prefix = "", name = "", leaf = ""] = key.split("/");
    return shardFolder(prefix, name) + leaf;
  };
  /** Turns the test's store into what the version before the shards left: a folder per inquiry and per person. */
  const unshard = async () => {
    const shardedKey = /^(attempts|releases|senders)\/[0-9a-f]{2}\/(.+)$/;
    for (const key of await keysNow()) {
      const [, prefix, rest] = shardedKey.exec(key) ?? [];
      if (!prefix || !rest) continue;
      await rawStore().write(`${prefix}/${rest}`, JSON.parse((await rawStore().get(key)) ?? "null"));
      await rawStore().delete(key);
    }
    await rawStore().delete("meta/sharded-layout");
  };
  const victim = "victim@example.gov";
  /** One delivered inquiry from `victim`, in a store as the version before the shards left it; its reference and key names. */
  const unshardedInquiry = async (reference: string) => {
    const outbox = new BlobsOutbox(rawStore(), { attemptTimeoutMs: 20_000 });
    await outbox.add({ ...record(reference), replyTo: { address: victim } });
    await outbox.recordAttempt({ reference, transport: "email", ok: true, at: "2026-11-22T10:01:00Z" });
    await unshard();
    return (key: string) => key.includes(reference) || key.includes(hash(victim));
  };

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

  it("lists only the open marks in a delivery pass, which delivery empties: never the history", async () => {
    const outbox = new BlobsOutbox(rawStore(), { attemptTimeoutMs: 20_000 });
    // The first pass on a store gives it its open marks, the first retention run its sharded layout (see
    // the tests of stores written before them); this one is still empty.
    await outbox.entries(8, "open");
    await outbox.removeExpired(new Date(), { deliveredMonths: 24, quarantinedDays: 30 });
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
    const now = new Date("2026-11-22T10:00:00.000Z");
    // The first run on a store gives it its retention keys (see the next test); this one is still empty.
    await outbox.removeExpired(now, retention);
    for (let index = 0; index < 30; index += 1) {
      await outbox.add({
        ...record(`CRS-HIST-${String(index).padStart(4, "0")}`),
        receivedAt: `2026-0${1 + (index % 9)}-1${index % 10}T09:00:00.000Z`,
      });
    }
    await outbox.add({
      ...record("CRS-GONE-0001"),
      receivedAt: "2024-10-01T09:00:00.000Z",
      replyTo: { address: "gone@example.gov" },
    });
    const listed = jest.spyOn(BlobsStore.prototype, "list");
    const folders = jest.spyOn(BlobsStore.prototype, "directories");
    try {
      expect(await outbox.removeExpired(now, retention)).toEqual({ inquiries: 1, quarantined: 0, complete: true });
      expect(folders.mock.calls.map(([prefix]) => prefix).sort()).toEqual(["expiry/", "held/"]);
      // Inside: the one day past its time, and what the inquiry found there needs.
      const prefixes = listed.mock.calls.map(([prefix]) => prefix);
      expect(prefixes.filter((prefix) => prefix.startsWith("expiry/"))).toEqual(["expiry/2024-10-01/"]);
      expect(prefixes.filter((prefix) => /^(inquiries|received|open|attempts\/CRS-HIST)/.test(prefix))).toEqual([]);
    } finally {
      listed.mockRestore();
      folders.mockRestore();
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

  it("moves a store written before the shards into them, and reads it whole before, during and after", async () => {
    const outbox = new BlobsOutbox(rawStore(), { attemptTimeoutMs: 20_000 });
    const retention = { deliveredMonths: 24, quarantinedDays: 30 };
    const now = new Date("2026-11-22T12:00:00.000Z");
    await outbox.entries(8, "open");
    await outbox.removeExpired(now, retention);
    await outbox.recordRetention(now);
    const attempt = (reference: string, ok: boolean, at: string, retryAt?: string) =>
      outbox.recordAttempt({ reference, transport: "email", ok, at, ...(retryAt ? { retryAt } : {}) });
    // Delivered; held and released, its first attempt failed; pending after a failure; past its time; erased.
    await outbox.add(record("CRS-SHRD-0001"));
    await attempt("CRS-SHRD-0001", true, "2026-11-22T10:01:00Z");
    await outbox.add({ ...record("CRS-SHRD-0002"), quarantine: { reason: "sent too fast" } });
    await outbox.release("CRS-SHRD-0002", new Date("2026-11-22T10:02:00Z"));
    await attempt("CRS-SHRD-0002", false, "2026-11-22T10:03:00Z", "2026-11-22T10:08:00Z");
    await outbox.add(record("CRS-SHRD-0003"));
    await attempt("CRS-SHRD-0003", false, "2026-11-22T10:04:00Z");
    for (const [reference, address] of [
      ["CRS-SHRD-0004", "gone@example.gov"],
      ["CRS-SHRD-0005", "erased@example.gov"],
    ] as const) {
      await outbox.add({ ...record(reference), receivedAt: "2024-10-01T09:00:00.000Z", replyTo: { address } });
      await attempt(reference, true, "2024-10-01T09:01:00Z");
    }
    const view = async (reader: BlobsOutbox) => ({
      all: (await reader.entries(8, "all")).entries.map((entry) => [
        entry.record.reference,
        entry.state,
        entry.attempts,
      ]),
      open: (await reader.entries(8, "open")).entries.map((entry) => entry.record.reference),
      pat: (await reader.inquiriesFrom("pat@example.gov")).map((found) => [found.record.reference, found.releasedAt]),
      gone: (await reader.inquiriesFrom("gone@example.gov")).map((found) => found.record.reference),
      // Through the inquiry's own folders (the caught key below is in both of CRS-SHRD-0002's).
      attempts: (await reader.entry("CRS-SHRD-0002", 8))?.attempts,
    });
    // A first pass finds the delivered ones delivered and drops their open marks: each view is then the same.
    await outbox.entries(8, "open");
    const sharded = await view(outbox);
    expect(sharded.all).toHaveLength(5);

    await unshard();
    const unsharded = (key: string) => /^(attempts|releases|senders)\/(?![0-9a-f]{2}\/)/.test(key);
    expect((await keysNow()).filter(unsharded)).toHaveLength(11);
    // A key caught between its two places (written to its shard, not yet removed from the old folder) counts once.
    const [caught = { key: "" }] = await rawStore().list("attempts/CRS-SHRD-0002/");
    await rawStore().write(shardKeyOf(caught.key), JSON.parse((await rawStore().get(caught.key)) ?? "null"));

    const before = new BlobsOutbox(rawStore(), { attemptTimeoutMs: 20_000 });
    expect(await view(before)).toEqual(sharded);
    // An erasure before the move leaves nothing in either layout.
    expect(await before.erase(["CRS-SHRD-0005"])).toEqual(["CRS-SHRD-0005"]);
    const erased = (key: string) => key.includes("CRS-SHRD-0005") || key.includes(hash("erased@example.gov"));
    expect((await keysNow()).filter(erased)).toEqual([]);
    const unerased = { ...sharded, all: sharded.all.filter(([reference]) => reference !== "CRS-SHRD-0005") };

    // A run cut short (here after two of the four attempt folders) moves part, and says it is not done.
    const unshardedAttempts = async () =>
      (await keysNow()).filter((key) => unsharded(key) && key.startsWith("attempts/"));
    expect(await unshardedAttempts()).toHaveLength(4);
    let checks = 0;
    const during = new BlobsOutbox(rawStore(), { attemptTimeoutMs: 20_000 });
    expect(await during.removeExpired(now, retention, () => (checks += 1) > 3)).toEqual({
      inquiries: 0,
      quarantined: 0,
      complete: false,
    });
    expect(await unshardedAttempts()).toHaveLength(2);
    expect(await view(new BlobsOutbox(rawStore(), { attemptTimeoutMs: 20_000 }))).toEqual(unerased);

    // The next run finishes the move, then retention runs as on any day.
    const after = new BlobsOutbox(rawStore(), { attemptTimeoutMs: 20_000 });
    expect(await after.removeExpired(now, retention)).toEqual({ inquiries: 1, quarantined: 0, complete: true });
    expect((await keysNow()).filter(unsharded)).toEqual([]);
    expect(await rawStore().get("meta/sharded-layout")).not.toBeNull();
    expect(await view(new BlobsOutbox(rawStore(), { attemptTimeoutMs: 20_000 }))).toEqual({
      ...unerased,
      all: unerased.all.filter(([reference]) => reference !== "CRS-SHRD-0004"),
      gone: [],
    });
    // From then on a reader lists an inquiry's shard alone.
    const listed = jest.spyOn(BlobsStore.prototype, "list");
    try {
      await new BlobsOutbox(rawStore(), { attemptTimeoutMs: 20_000 }).entry("CRS-SHRD-0003", 8);
      expect(listed.mock.calls.map(([prefix]) => prefix).sort()).toEqual([
        shardFolder("attempts", "CRS-SHRD-0003"),
        shardFolder("releases", "CRS-SHRD-0003"),
      ]);
    } finally {
      listed.mockRestore();
    }
  });

  it("leaves no key of an inquiry erased while its keys are being moved to the shards", async () => {
    const retention = { deliveredMonths: 24, quarantinedDays: 30 };
    const reference = "CRS-RACE-0001";
    const names = await unshardedInquiry(reference);

    // The erasure runs as the move reads the old sender key: the move's copy comes after the inquiry is gone.
    const movingStore = rawStore();
    const get = movingStore.get.bind(movingStore);
    const during = jest.spyOn(movingStore, "get").mockImplementation(async (key) => {
      const text = await get(key);
      if (key.startsWith(`senders/${hash(victim)}/`)) {
        expect(await new BlobsOutbox(rawStore(), { attemptTimeoutMs: 20_000 }).erase([reference])).toEqual([reference]);
      }
      return text;
    });
    try {
      await new BlobsOutbox(movingStore, { attemptTimeoutMs: 20_000 }).removeExpired(new Date(), retention);
    } finally {
      during.mockRestore();
    }
    expect((await keysNow()).filter(names)).toEqual([]);
  });

  it("removes a copy a move wrote while the erasure ran, once the inquiry is gone", async () => {
    const reference = "CRS-RACE-0002";
    const names = await unshardedInquiry(reference);
    const oldKeys = (await keysNow()).filter((key) => /^(attempts|senders)\/[^/]+\/[^/]+$/.test(key));
    expect(oldKeys).toHaveLength(2);
    // The move copies both keys after the erasure listed them, and saw the inquiry still there.
    const erasingStore = rawStore();
    const remove = erasingStore.delete.bind(erasingStore);
    const erasing = jest.spyOn(erasingStore, "delete").mockImplementation(async (key) => {
      if (key === `inquiries/${reference}`) {
        for (const old of oldKeys) await rawStore().write(shardKeyOf(old), {});
      }
      return remove(key);
    });
    try {
      await new BlobsOutbox(erasingStore, { attemptTimeoutMs: 20_000 }).erase([reference]);
    } finally {
      erasing.mockRestore();
    }
    expect((await keysNow()).filter(names)).toEqual([]);
  });

  it("reads an attempt that was moved to its shard between the listing and the read", async () => {
    const reference = "CRS-RACE-0003";
    await unshardedInquiry(reference);
    const readingStore = rawStore();
    const list = readingStore.list.bind(readingStore);
    const shard = shardFolder("attempts", reference);
    const listing = jest.spyOn(readingStore, "list").mockImplementation(async (prefix) => {
      const listed = await list(prefix);
      // Right after the shard's (empty) listing, the move copies the old key there and removes it.
      if (prefix === shard) {
        for (const { key } of await list(`attempts/${reference}/`)) {
          await rawStore().write(shardKeyOf(key), JSON.parse((await rawStore().get(key)) ?? "null"));
          await rawStore().delete(key);
        }
      }
      return listed;
    });
    try {
      const entry = await new BlobsOutbox(readingStore, { attemptTimeoutMs: 20_000 }).entry(reference, 8);
      expect([entry?.state, entry?.attempts]).toEqual(["delivered", 1]);
    } finally {
      listing.mockRestore();
    }
  });

  it("asks again whether the store is sharded after a look that failed, instead of failing every read after it", async () => {
    const store = rawStore();
    const outbox = new BlobsOutbox(store, { attemptTimeoutMs: 20_000 });
    await outbox.add(record("CRS-LOOK-0001"));
    const get = store.get.bind(store);
    const looks: string[] = [];
    const looked = jest.spyOn(store, "get").mockImplementation((key) => {
      if (key !== "meta/sharded-layout") return get(key);
      looks.push(key);
      return looks.length === 1 ? Promise.reject(new Error("the store did not answer")) : get(key);
    });
    try {
      await expect(outbox.stored("CRS-LOOK-0001")).rejects.toThrow("the store did not answer");
      expect((await outbox.stored("CRS-LOOK-0001"))?.record.reference).toBe("CRS-LOOK-0001");
      expect(looks).toHaveLength(2);
    } finally {
      looked.mockRestore();
    }
  });

  it("gives a store written before the retention keys its keys once, and then removes what is past its time", async () => {
    const old = { ...record("CRS-RIDX-0001"), receivedAt: "2024-01-01T09:00:00.000Z" };
    const recent = {
      ...record("CRS-RIDX-0002"),
      receivedAt: "2026-11-01T09:00:00.000Z",
      replyTo: { address: "new@example.gov" },
    };
    for (const earlier of [old, recent]) await rawStore().write(`inquiries/${earlier.reference}`, earlier);
    const outbox = new BlobsOutbox(rawStore(), { attemptTimeoutMs: 20_000 });
    const retention = { deliveredMonths: 24, quarantinedDays: 30 };
    // Cut short, it does nothing yet, and says so.
    expect(await outbox.removeExpired(new Date("2026-11-22T10:00:00.000Z"), retention, () => true)).toEqual({
      inquiries: 0,
      quarantined: 0,
      complete: false,
    });
    expect(await outbox.removeExpired(new Date("2026-11-22T10:00:00.000Z"), retention)).toEqual({
      inquiries: 1,
      quarantined: 0,
      complete: true,
    });
    expect((await outbox.read()).records.map((kept) => kept.reference)).toEqual(["CRS-RIDX-0002"]);
    expect((await outbox.inquiriesFrom("new@example.gov")).map((found) => found.record.reference)).toEqual([
      "CRS-RIDX-0002",
    ]);
    const listed = jest.spyOn(BlobsStore.prototype, "list");
    try {
      await outbox.removeExpired(new Date("2026-11-23T10:00:00.000Z"), retention);
      expect(listed.mock.calls.map(([prefix]) => prefix)).not.toContain("inquiries/");
    } finally {
      listed.mockRestore();
    }
  });

  it("gives a store written before the open marks its marks once, from one listing of everything", async () => {
    // As the earlier outbox left it: inquiries, one marked delivered, one held, one held and released.
    for (const reference of ["CRS-OLDS-0001", "CRS-OLDS-0002"]) {
      await rawStore().write(`inquiries/${reference}`, record(reference));
    }
    await rawStore().write("delivered/CRS-OLDS-0001", { at: "t1" });
    for (const reference of ["CRS-OLDS-0003", "CRS-OLDS-0004"]) {
      await rawStore().write(`inquiries/${reference}`, {
        ...record(reference),
        quarantine: { reason: "sent too fast" },
      });
      await rawStore().write(`quarantined/${reference}`, { reason: "sent too fast" });
    }
    await rawStore().write("releases/CRS-OLDS-0004/20261122-x", { reference: "CRS-OLDS-0004", at: "t2" });
    const open = await openOutbox(blobsConfig()).entries(8, "open");
    expect([open.entries.map((entry) => [entry.record.reference, entry.state]), open.heldUnread]).toEqual([
      [
        ["CRS-OLDS-0002", "pending"],
        ["CRS-OLDS-0004", "pending"],
      ],
      1,
    ]);
    expect(await rawStore().get("meta/open-index")).not.toBeNull();
    expect((await rawStore().list("open/")).map((blob) => blob.key).sort()).toEqual([
      "open/CRS-OLDS-0002",
      "open/CRS-OLDS-0004",
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
