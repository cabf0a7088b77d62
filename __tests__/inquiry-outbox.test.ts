/**
 * @jest-environment node
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readInquiryConfig } from "../server/inquiries/config";
import { readInquiryContent } from "../server/inquiries/content-on-disk";
import { openOutbox } from "../server/inquiries/store/open-outbox";
import { UnknownReferenceError, type OutboxRecord } from "../server/inquiries/store/outbox";
import type { InquiryOutbox } from "../server/inquiries/store/sql-outbox";
import { DATABASE_FILE, openSqliteOutbox } from "../server/inquiries/store/sqlite";
import { newReference, referencePattern } from "../server/inquiries/intake/reference";
import { sampleRecord } from "./support/outbox-fixtures";
import { forgetProcessState } from "./support/outbox-restart";
import { SQL_POSTGRES, SQL_SQLITE, useSqlStores } from "./support/sql-stores";
import { shifted, type Offset } from "./support/test-clock";
import { eraseInquiries, inquiriesFrom, keepInquiry, storedInquiry } from "../server/inquiries/privacy/requests";
import { removeExpired } from "../server/inquiries/privacy/retention";

const { delivery } = readInquiryContent(path.resolve("content")).form;

const record = (reference: string): OutboxRecord => sampleRecord(reference, ["email"]);
/** The tests' clock starts when the sample records arrive. */
const START = record("CRS-TIME-0000").receivedAt;
/** The instant `offset` from START (before it, where negative). */
const at = (offset: Offset) => shifted(START, offset);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "outbox-test-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const sqlStores = useSqlStores();

/** The SQL store on each engine. */
const kinds: [string, () => InquiryOutbox][] = [
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
    const entries = await outbox.entries(8);
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
    let [entry] = await outbox.entries(2);
    expect([entry?.state, entry?.dueAt, entry?.deliveries]).toEqual([
      "pending",
      at({ minutes: 1 }),
      { email: "failed" },
    ]);
    await fail(at({ minutes: 1, seconds: 1 }), at({ minutes: 3 }));
    [entry] = await outbox.entries(2);
    expect([entry?.state, entry?.dueAt, entry?.deliveries]).toEqual(["dead", null, { email: "dead" }]);
    // A higher limit (set by the operator) brings it back.
    [entry] = await outbox.entries(3);
    expect(entry?.state).toBe("pending");
  });

  it("holds a quarantined inquiry until it is released", async () => {
    const outbox = open();
    await outbox.add({ ...record("CRS-FFFF-0001"), quarantine: { reason: "honeypot filled" } });
    expect((await outbox.entries(8))[0]?.state).toBe("quarantined");
    await outbox.release("CRS-FFFF-0001");
    const [entry] = await outbox.entries(8);
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
    expect((await outbox.entries(8)).map((entry) => entry.state)).toEqual(["pending", "pending"]);
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

  it("counts the pending and the dead, and when the first is due, with a limit raised or lowered since", async () => {
    const outbox = open();
    await outbox.add(record("CRS-JJJJ-0001"));
    await outbox.add({ ...record("CRS-JJJJ-0002"), receivedAt: at({ seconds: 5 }) });
    await outbox.add({ ...record("CRS-JJJJ-0003"), quarantine: { reason: "honeypot filled" } });
    await outbox.add(record("CRS-JJJJ-0004"));
    await outbox.recordAttempt({ reference: "CRS-JJJJ-0001", transport: "email", ok: true, at: at({ seconds: 1 }) });
    for (const [tried, retry] of [
      [{ seconds: 1 }, { minutes: 1 }],
      [{ minutes: 1 }, { minutes: 3 }],
    ] as const)
      await outbox.recordAttempt({
        reference: "CRS-JJJJ-0004",
        transport: "email",
        ok: false,
        at: at(tried),
        retryAt: at(retry),
      });
    const none = { pending: 0, dead: 0, nextDueAt: null };
    expect(await outbox.counts(2)).toEqual({
      inquiry: { pending: 1, dead: 1, nextDueAt: Date.parse(at({ seconds: 5 })) },
      digest: none,
    });
    // A higher limit brings the failed one back, its retry the first due; the held one is counted apart.
    expect((await outbox.counts(3)).inquiry).toEqual({
      pending: 2,
      dead: 0,
      nextDueAt: Date.parse(at({ seconds: 5 })),
    });
    await outbox.recordAttempt({ reference: "CRS-JJJJ-0002", transport: "email", ok: true, at: at({ seconds: 6 }) });
    expect((await outbox.counts(3)).inquiry).toEqual({
      pending: 1,
      dead: 0,
      nextDueAt: Date.parse(at({ minutes: 3 })),
    });
    expect((await outbox.heldSummary()).count).toBe(1);
    // Stored while no transport was configured: neither pending nor dead until one is. And a job another run holds
    // is due once that run's claim ends.
    await outbox.add({ ...sampleRecord("CRS-JJJJ-0005", []), receivedAt: at({ seconds: 2 }) });
    const claim = { holder: "another run", limit: 1, maxAttempts: 3, storedToo: false };
    expect(await outbox.claim({ ...claim, now: new Date(at({ minutes: 3 })), leaseMs: 60_000 })).toHaveLength(1);
    expect((await outbox.counts(3)).inquiry).toEqual({
      pending: 1,
      dead: 0,
      nextDueAt: Date.parse(at({ minutes: 4 })),
    });
  });

  const retention = { deliveredMonths: 24, quarantinedDays: 30 };
  const from = (reference: string, receivedAt: string, address: string, extra: Partial<OutboxRecord> = {}) => ({
    ...record(reference),
    receivedAt,
    replyTo: { address },
    ...extra,
  });

  it("removes what is past its retention, with its attempts: never a kept one, nor one whose sender wrote since", async () => {
    const outbox = open();
    const spam = { quarantine: { reason: "honeypot filled" } };
    const delivered = async (reference: string, receivedAt: string, address: string) => {
      await outbox.add(from(reference, receivedAt, address, { idempotencyKey: `key-of-${reference}` }));
      await outbox.recordAttempt({ reference, transport: "email", ok: true, at: receivedAt });
    };
    await delivered("CRS-OLD0-0001", at({ months: -24, days: -21, hours: -1 }), "gone@example.gov");
    await delivered("CRS-KEPT-0001", at({ months: -25, days: -21, hours: -1 }), "order@example.gov");
    expect(await keepInquiry(outbox, "CRS-KEPT-0001")).toBe(true);
    expect(await keepInquiry(outbox, "CRS-NONE-0000")).toBe(false);
    // 25 months old, but the same sender wrote again last month: the last contact is recent.
    await delivered("CRS-BACK-0201", at({ months: -25, days: -7, hours: -1 }), "returning@example.gov");
    await delivered("CRS-BACK-0202", at({ months: -1, days: -7, hours: -1 }), "Returning@example.gov");
    await delivered("CRS-NEW0-0001", at({ months: -22, days: -12, hours: -1 }), "recent@example.gov");
    await outbox.add(from("CRS-SPAM-0001", at({ months: -1, days: -12, hours: -1 }), "bot@example.gov", spam));
    await outbox.add(from("CRS-SPAM-0002", at({ days: -10, hours: -1 }), "bot@example.gov", spam));
    await outbox.add(from("CRS-SPAM-0003", at({ months: -1, days: -12, hours: -1 }), "person@example.gov", spam));
    await outbox.release("CRS-SPAM-0003", new Date(at({ months: -1, days: -11, hours: -1 })));

    const references = async () => (await outbox.read()).records.map((stored) => stored.reference).sort();
    expect(await removeExpired(outbox, new Date(START), retention)).toEqual({
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
    expect(await removeExpired(outbox, new Date(at({ months: 2, days: 21 })), retention)).toEqual({
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
    expect(await removeExpired(outbox, new Date(at({ months: 23, days: -6 })), retention)).toEqual({
      inquiries: 3,
      quarantined: 0,
      complete: true,
    });
    expect(await references()).toEqual(["CRS-KEPT-0001", "CRS-OLD0-0002"]);
  });

  it("removes nothing once told to stop, and says it did not finish", async () => {
    const outbox = open();
    await outbox.add(from("CRS-STOP-0001", at({ months: -34, days: -21, hours: -1 }), "gone@example.gov"));
    expect(await removeExpired(outbox, new Date(START), retention, () => true)).toEqual({
      inquiries: 0,
      quarantined: 0,
      complete: false,
    });
    expect((await outbox.read()).records).toHaveLength(1);
  });

  it("exports a person's inquiries with everything about them, and erases one by reference", async () => {
    const outbox = open();
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
    await keepInquiry(outbox, "CRS-PERS-0002");
    const exported = await inquiriesFrom(outbox, " ASK@example.gov ");
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
    expect(await eraseInquiries(outbox, ["CRS-PERS-0001", "CRS-NONE-0000"])).toEqual(["CRS-PERS-0001"]);
    expect(await storedInquiry(outbox, "CRS-PERS-0001")).toBeNull();
    expect((await inquiriesFrom(outbox, "ask@example.gov")).map((found) => found.record.reference)).toEqual([
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

  it("lets one maintenance run at a time hold its lock", async () => {
    const outbox = open();
    let release: () => void = () => undefined;
    let holds: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (holds = resolve));
    const holding = outbox.whileMaintaining(
      () =>
        new Promise<string>((resolve) => {
          release = () => resolve("first");
          holds();
        }),
    );
    await held;
    expect(await open().whileMaintaining(() => Promise.resolve("second"))).toBeNull();
    const waiting = open().whileMaintaining(() => Promise.resolve("third"), 5_000);
    release();
    expect(await holding).toEqual({ value: "first" });
    expect(await waiting).toEqual({ value: "third" });
  }, 15_000);
});

describe("the SQL store as configured", () => {
  it("is the single server's default, a database file in INQUIRY_DATA_DIR", () => {
    const outbox = openOutbox(readInquiryConfig(delivery, { INQUIRY_DATA_DIR: dir }));
    expect(outbox.location).toBe(path.join(dir, DATABASE_FILE));
    expect(readInquiryConfig(delivery, { INQUIRY_OUTBOX: "SQLite" }).outbox).toBe("sqlite");
    expect(() => readInquiryConfig(delivery, { INQUIRY_OUTBOX: "file" })).toThrow(/sqlite or postgres/);
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

  it("is Netlify Database where Netlify gives its connection string, unless INQUIRY_OUTBOX says otherwise", () => {
    const url = "postgres://netlify:secret@db.netlify.example:5432/site";
    expect(readInquiryConfig(delivery, { NETLIFY_DB_URL: url })).toMatchObject({
      outbox: "postgres",
      databaseUrl: null,
    });
    expect(readInquiryConfig(delivery, { NETLIFY_DB_URL: url, INQUIRY_OUTBOX: "sqlite" }).outbox).toBe("sqlite");
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

describe("newReference", () => {
  it("makes short references in an alphabet that cannot be misheard", () => {
    const references = Array.from({ length: 2000 }, () => newReference("CRS"));
    for (const reference of references) expect(reference).toMatch(referencePattern);
    expect(references.join("")).not.toMatch(/[ILOU]/);
    expect(new Set(references).size).toBe(references.length);
  });
});
