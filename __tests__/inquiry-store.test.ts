/**
 * @jest-environment node
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import http from "node:http";
import type net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { UnknownLayoutError, type OutboxRecord } from "../server/inquiries/store/outbox";
import { MIGRATIONS, netlifyMigrationFiles } from "../server/inquiries/store/schema";
import { LEGACY_VERSIONS } from "../server/inquiries/store/legacy-sqlite";
import { openPostgresStore } from "../server/inquiries/store/postgres";
import { InquiryOutbox } from "../server/inquiries/store/sql-outbox";
import { DATABASE_FILE } from "../server/inquiries/store/sqlite";
import { migrateAsNetlifyDoes, onPostgres } from "../testing/postgres";
import { sampleRecord } from "./support/outbox-fixtures";
import { SQL_POSTGRES, SQL_SQLITE, useSqlStores } from "./support/sql-stores";
import { shifted, type Offset } from "./support/test-clock";
import { eraseInquiries, inquiriesFrom } from "../server/inquiries/privacy/requests";
import { removeExpired } from "../server/inquiries/privacy/retention";

/**
 * What the SQL store (server/inquiries/store/) does beyond the rules the other suites run it through: its migrations on both engines, its queue's claims, two delivery runs at once, and carrying an
 * SQLite file of layout version 1 or 2 (legacy-sqlite.ts) over in place.
 */

const record = (reference: string, transports: OutboxRecord["transports"] = ["webhook"]) =>
  sampleRecord(reference, transports);
const START = record("CRS-TIME-0000").receivedAt;
const at = (offset: Offset) => shifted(START, offset);
/** A time long past: the end of a lock that expired then. */
const LONG_AGO = new Date(0).toISOString();
const DAY = START.slice(0, 10);
const held = (reference: string): OutboxRecord => ({ ...record(reference), quarantine: { reason: "sent too fast" } });

/** Dumps of SQLite stores of layout versions 1 and 2: no code here writes those layouts, so they are kept as SQL. */
const LEGACY_FIXTURES = path.join(__dirname, "fixtures/legacy-sqlite");

const sqlStores = useSqlStores();
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "inquiry-store-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `sql` on the test's database as another program would: node:sqlite, or a pg client. */
/** One delivery run in a process of its own (support/claim-runner.ts): ready once its store is open, then told to go. */
const startClaimRunner = (engine: string, where: string, webhook: string) => {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", path.join(__dirname, "support/claim-runner.ts"), engine, where, webhook],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const ready = new Promise<void>((resolve) => child.stdout.on("data", () => output.includes("ready\n") && resolve()));
  const exited = once(child, "exit") as Promise<[number | null]>;
  /** What the run delivered, as it printed it at its end. */
  const delivered = () => JSON.parse(output.split("\n").filter(Boolean).pop() ?? "[]") as string[];
  return { child, ready, exited, delivered, go: () => child.stdin.end("go\n") };
};

const onDatabase = async (kind: string, text: string, values: unknown[] = []): Promise<unknown[]> => {
  if (kind === SQL_SQLITE) {
    const db = new DatabaseSync(path.join(dir, DATABASE_FILE));
    try {
      const statement = db.prepare(text);
      return statement.columns().length > 0
        ? statement.all(...(values as string[]))
        : [statement.run(...(values as string[]))];
    } finally {
      db.close();
    }
  }
  return onPostgres(sqlStores.postgresUrl, text, values);
};

it("writes Netlify's migration files from the schema, as they are in the project", () => {
  const files = netlifyMigrationFiles();
  expect(files.map((file) => file.path)).toEqual(
    MIGRATIONS.map(({ name }) => `netlify/database/migrations/${name}.sql`),
  );
  // Run `npm run migrations` after a change to server/inquiries/store/schema.ts.
  for (const { path: file, text } of files) expect(readFileSync(file, "utf8")).toBe(text);
});

describe.each([SQL_SQLITE, SQL_POSTGRES])("the store %s", (kind) => {
  sqlStores.databasePerTest(kind);
  const open = (options = {}) => sqlStores.outbox(kind, dir, options);

  it("keeps the held count equal to the held inquiries through arrival, release, erasure and retention", async () => {
    const outbox = open();
    const counted = async () => (await outbox.heldSummary()).count;
    const actual = async () =>
      Number(
        ((await onDatabase(kind, "SELECT count(*) AS held FROM jobs WHERE state = 'held'")) as { held: number }[])[0]
          ?.held,
      );
    for (const reference of ["CRS-CNT0-0001", "CRS-CNT0-0002", "CRS-CNT0-0003", "CRS-CNT0-0004"])
      await outbox.add(held(reference));
    await outbox.add(record("CRS-CNT0-0005"));
    expect([await counted(), await actual()]).toEqual([4, 4]);
    expect(await outbox.release("CRS-CNT0-0001", new Date(at({ seconds: 5 })))).toBe(true);
    // A second release of the same one changes nothing.
    expect(await outbox.release("CRS-CNT0-0001", new Date(at({ seconds: 6 })))).toBe(false);
    expect(await eraseInquiries(outbox, ["CRS-CNT0-0002", "CRS-CNT0-0005"])).toEqual([
      "CRS-CNT0-0002",
      "CRS-CNT0-0005",
    ]);
    expect([await counted(), await actual()]).toEqual([2, 2]);
    // Past their 30 days, the unreleased ones go.
    await removeExpired(outbox, new Date(at({ days: 31 })), { deliveredMonths: 24, quarantinedDays: 30 });
    expect([await counted(), await actual()]).toEqual([0, 0]);
  });

  it("migrates an empty database once, and refuses one a later release migrated before writing anything", async () => {
    await open().add(record("CRS-MIGR-0001"));
    await open().add(record("CRS-MIGR-0002"));
    expect(await onDatabase(kind, "SELECT name FROM store_migrations ORDER BY name")).toEqual(
      MIGRATIONS.map(({ name }) => ({ name })),
    );
    await onDatabase(kind, "INSERT INTO store_migrations (name, applied_at) VALUES ('9999_later', 'then')");
    const refused = open().add(record("CRS-MIGR-0003"));
    await expect(refused).rejects.toBeInstanceOf(UnknownLayoutError);
    // SQLite's versions go on from its two legacy layouts.
    const expected = (kind === SQL_SQLITE ? LEGACY_VERSIONS : 0) + MIGRATIONS.length;
    const found = expected + 1;
    await expect(refused).rejects.toThrow(
      `records layout version ${found}, and this release of the site reads version ${expected}`,
    );
    expect(await onDatabase(kind, "SELECT reference FROM inquiries ORDER BY position")).toEqual([
      { reference: "CRS-MIGR-0001" },
      { reference: "CRS-MIGR-0002" },
    ]);
  });

  it("claims each due job for one run until its lease ends: never a held one, a dead one, or a stored one unless asked", async () => {
    const outbox = open();
    await outbox.add(record("CRS-CLAM-0001"));
    await outbox.add(held("CRS-CLAM-0002"));
    await outbox.add(record("CRS-CLAM-0003", []));
    await outbox.add(record("CRS-CLAM-0004"));
    await outbox.add(record("CRS-CLAM-0005", ["email", "webhook"]));
    const fail = (reference: string, transport: "email" | "webhook", when: Offset, retry: Offset) =>
      outbox.recordAttempt({ reference, transport, ok: false, at: at(when), retryAt: at(retry) });
    await fail("CRS-CLAM-0004", "webhook", { seconds: 1 }, { seconds: 2 });
    await fail("CRS-CLAM-0004", "webhook", { seconds: 3 }, { seconds: 4 });
    // Its email has used up the attempts allowed below; its webhook is due in ten minutes, not at once.
    await fail("CRS-CLAM-0005", "email", { seconds: 1 }, { seconds: 2 });
    await fail("CRS-CLAM-0005", "email", { seconds: 3 }, { seconds: 4 });
    await fail("CRS-CLAM-0005", "webhook", { seconds: 3 }, { minutes: 10 });
    await outbox.takeDigest(DAY, new Date(START), ["webhook"]);

    const claim = (holder: string, when: Offset, storedToo = false) =>
      outbox.claim({ holder, now: new Date(at(when)), leaseMs: 60_000, limit: 10, maxAttempts: 2, storedToo });
    const names = (jobs: Awaited<ReturnType<typeof claim>>) =>
      jobs.map((job) => (job.kind === "inquiry" ? job.entry.record.reference : job.entry.digest.id)).sort();
    const first = await claim("run A", { minutes: 1 });
    expect(names(first)).toEqual([DAY, "CRS-CLAM-0001"]);
    expect(await claim("run B", { minutes: 1 })).toEqual([]);
    expect(names(await claim("run B", { minutes: 1 }, true))).toEqual(["CRS-CLAM-0003"]);
    // Let go of by its run, or its lease run out: another run may take it.
    await outbox.unclaim("run A", [first[0]?.id ?? 0]);
    expect(names(await claim("run C", { minutes: 1, seconds: 30 }))).toHaveLength(1);
    expect(names(await claim("run D", { minutes: 2, seconds: 31 }))).toEqual([DAY, "CRS-CLAM-0001"]);
    // Delivered, they are no longer due; the one whose webhook was not yet due is, in its time.
    await outbox.recordAttempt({ reference: "CRS-CLAM-0001", transport: "webhook", ok: true, at: at({ minutes: 3 }) });
    await outbox.recordDigestAttempt({ digest: DAY, transport: "webhook", ok: true, at: at({ minutes: 3 }) });
    expect(await claim("run E", { minutes: 9 })).toEqual([]);
    expect(names(await claim("run E", { minutes: 10, seconds: 1 }))).toEqual(["CRS-CLAM-0005"]);
  });

  it("tells a maintenance run its lock was taken over by another run, and leaves the lock to that run", async () => {
    const outbox = open({ leaseRenewMs: 200 });
    const lost: string[] = [];
    const outcome = await outbox.whileMaintaining(
      async (lease) => {
        // Another run, judging the lock expired (this process stalled), takes it over.
        await onDatabase(kind, "UPDATE store_state SET value = 'another run' WHERE name = 'delivery-run'");
        await new Promise((resolve) => setTimeout(resolve, 600));
        return lease.mayStart();
      },
      0,
      (error) => lost.push(error.message),
    );
    expect(outcome).toEqual({ value: false });
    expect(lost).toEqual(["the maintenance lock was taken over by another run"]);
    // The lock that passed to the other run is left to it until it expires.
    expect(await outbox.whileMaintaining(() => Promise.resolve("again"))).toBeNull();
    await onDatabase(kind, `UPDATE store_state SET until = '${LONG_AGO}' WHERE name = 'delivery-run'`);
    expect(await outbox.whileMaintaining(() => Promise.resolve("again"))).toEqual({ value: "again" });
  });

  it("loses nothing when a delivery run is killed mid-delivery: once its lease ends, the next run delivers every inquiry", async () => {
    const received: string[] = [];
    let answering = false;
    let firstCall: () => void = () => undefined;
    const calledOnce = new Promise<void>((resolve) => (firstCall = resolve));
    // Holds every call until the killed run is gone: the calls it made are never answered to it.
    const receiver = http.createServer((req, res) => {
      received.push(String(req.headers["x-inquiry-reference"]));
      req.resume();
      firstCall();
      if (answering) res.end();
    });
    receiver.listen(0, "127.0.0.1");
    await once(receiver, "listening");
    const webhook = `http://127.0.0.1:${(receiver.address() as net.AddressInfo).port}/hook`;
    try {
      const yesterday = new Date(Date.now() - 86_400_000).toISOString();
      const outbox = open();
      const references = Array.from({ length: 20 }, (_, index) => `CRS-KILL-${String(index).padStart(4, "0")}`);
      for (const reference of references) await outbox.add({ ...record(reference), receivedAt: yesterday });
      const where = kind === SQL_SQLITE ? dir : sqlStores.postgresUrl;
      const engine = kind === SQL_SQLITE ? "sqlite" : "postgres";
      const killed = startClaimRunner(engine, where, webhook);
      await killed.ready;
      killed.go();
      await calledOnce;
      killed.child.kill("SIGKILL");
      await killed.exited;
      const claimed = await onDatabase(kind, "SELECT subject FROM jobs WHERE claimed_until IS NOT NULL");
      expect(claimed.length).toBeGreaterThan(0);
      // Its leases end, as they would a minute later.
      await onDatabase(kind, `UPDATE jobs SET claimed_until = '${LONG_AGO}' WHERE claimed_until IS NOT NULL`);

      answering = true;
      const next = startClaimRunner(engine, where, webhook);
      await next.ready;
      next.go();
      expect((await next.exited)[0]).toBe(0);
      expect([...next.delivered()].sort()).toEqual(references);
      // Each inquiry reached the webhook at least once; those the killed run was sending, twice.
      expect([...new Set(received)].sort()).toEqual(references);
      const none = { pending: 0, dead: 0, nextDueAt: null };
      expect((await outbox.counts(8)).inquiry).toEqual(none);
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  }, 120_000);

  it("has two runs of the delivery worker's loop at once, each in a process of its own, deliver each inquiry and each digest exactly once", async () => {
    const received: string[] = [];
    // A receiver slow enough that both runs are delivering at once.
    const receiver = http.createServer((req, res) => {
      received.push(String(req.headers["x-inquiry-reference"] ?? req.headers["x-inquiry-digest"]));
      req.resume();
      setTimeout(() => res.end(), 25);
    });
    receiver.listen(0, "127.0.0.1");
    await once(receiver, "listening");
    const webhook = `http://127.0.0.1:${(receiver.address() as net.AddressInfo).port}/hook`;
    try {
      // Arrived yesterday, with a digest of each of the two days before: all due now, for the runs' real clock.
      const yesterday = new Date(Date.now() - 86_400_000).toISOString();
      const days = [-3, -2].map((days) => shifted(yesterday, { days }));
      const outbox = open();
      const references = Array.from({ length: 60 }, (_, index) => `CRS-ONCE-${String(index).padStart(4, "0")}`);
      for (const reference of references) await outbox.add({ ...record(reference), receivedAt: yesterday });
      for (const [index, day] of days.entries()) {
        await outbox.add({ ...held(`CRS-HELD-000${index}`), receivedAt: day });
        await outbox.takeDigest(day.slice(0, 10), new Date(day), ["webhook"]);
      }

      const where = kind === SQL_SQLITE ? dir : sqlStores.postgresUrl;
      const engine = kind === SQL_SQLITE ? "sqlite" : "postgres";
      const runs = [0, 1].map(() => startClaimRunner(engine, where, webhook));
      await Promise.all(runs.map((run) => run.ready));
      for (const run of runs) run.go();
      const [first = [], second = []] = await Promise.all(
        runs.map(async (run) => {
          const [code] = await run.exited;
          if (code !== 0) throw new Error(`a run ended with ${String(code)}`);
          return run.delivered();
        }),
      );

      const expected = [...references, ...days.map((day) => day.slice(0, 10))].sort();
      expect([...received].sort()).toEqual(expected);
      expect([...first, ...second].sort()).toEqual(expected);
      // Both ran at once: each delivered some, none the same.
      expect([first.length > 0, second.length > 0]).toEqual([true, true]);
      const none = { pending: 0, dead: 0, nextDueAt: null };
      expect(await outbox.counts(8)).toEqual({ inquiry: none, digest: none });
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  }, 120_000);
});

describe("the SQL store on Postgres, migrated by Netlify", () => {
  sqlStores.databasePerTest(SQL_POSTGRES);

  it("works on a database that Netlify migrated from the project's files, running no migration of its own", async () => {
    await migrateAsNetlifyDoes(sqlStores.postgresUrl);
    const database = openPostgresStore({ connectionString: sqlStores.postgresUrl, migrate: false });
    try {
      const outbox = new InquiryOutbox(database);
      await outbox.add(held("CRS-NTLF-0001"));
      expect(await outbox.heldSummary()).toEqual({ count: 1, oldestReceivedAt: START });
      expect(await onDatabase(SQL_POSTGRES, "SELECT to_regclass('store_migrations') AS found")).toEqual([
        { found: null },
      ]);
    } finally {
      await database.close();
    }
  });
});

describe("the SQL store on SQLite", () => {
  const open = () => sqlStores.outbox(SQL_SQLITE, dir);
  const file = () => path.join(dir, DATABASE_FILE);

  it("keeps its database readable by the server's user only, in WAL", async () => {
    await open().add(record("CRS-DDDD-0001"));
    expect(statSync(file()).mode & 0o777).toBe(0o600);
    expect(statSync(`${file()}-wal`).mode & 0o777).toBe(0o600);
    expect(await onDatabase(SQL_SQLITE, "PRAGMA journal_mode")).toEqual([{ journal_mode: "wal" }]);
  });

  it("leaves nothing of an erased person in the database's files, its WAL included", async () => {
    const outbox = open();
    const person = (reference: string): OutboxRecord => ({
      ...record(reference),
      replyTo: { address: "Erase.Me@example.gov" },
      fields: [{ name: "fullName", label: "Full name", value: "Quillon Erasable" }],
      idempotencyKey: `key-${reference}`,
    });
    for (let index = 0; index < 40; index += 1) await outbox.add(record(`CRS-KEEP-${String(index).padStart(4, "0")}`));
    await outbox.add(person("CRS-ERAS-0001"));
    await outbox.recordAttempt({ reference: "CRS-ERAS-0001", transport: "webhook", ok: true, at: "t1" });
    const traces = () =>
      readdirSync(dir)
        .map((name) => readFileSync(path.join(dir, name)))
        .filter((bytes) => bytes.includes("erase.me@") || bytes.includes("Quillon")).length;
    expect(traces()).toBeGreaterThan(0);
    expect(await eraseInquiries(outbox, ["CRS-ERAS-0001"])).toEqual(["CRS-ERAS-0001"]);
    expect(traces()).toBe(0);
    expect(statSync(`${file()}-wal`).size).toBe(0);
    expect(await outbox.add(person("CRS-ERAS-0002"))).toEqual({ reference: "CRS-ERAS-0002", created: true });
  });

  it("answers a delivery pass's, the digest's and an operator's questions through indexes: never a walk through the history", async () => {
    // From the start: the store prepares each text once, so a statement first used by an add is not prepared again.
    const prepared = jest.spyOn(DatabaseSync.prototype, "prepare");
    let selects: string[] = [];
    try {
      const outbox = open();
      for (let index = 0; index < 20; index += 1)
        await outbox.add(record(`CRS-PLAN-${String(index).padStart(4, "0")}`));
      await outbox.add(held("CRS-PLAN-0100"));
      await outbox.recordAttempt({
        reference: "CRS-PLAN-0001",
        transport: "webhook",
        ok: true,
        at: at({ seconds: 1 }),
      });
      await outbox.counts(8);
      await outbox.page({ after: "CRS-PLAN-0003", limit: 3, maxAttempts: 8 });
      await outbox.page({ after: null, limit: 3, maxAttempts: 8, state: "pending" });
      await outbox.entry("CRS-PLAN-0004", 8);
      await inquiriesFrom(outbox, "pat@example.gov");
      await outbox.heldSummary();
      await outbox.takeDigest(DAY, new Date(START), ["webhook"]);
      await outbox.openDigests(8);
      await outbox.claim({
        holder: "run",
        now: new Date(START),
        leaseMs: 1_000,
        limit: 5,
        maxAttempts: 8,
        storedToo: true,
      });
      await removeExpired(outbox, new Date(START), { deliveredMonths: 24, quarantinedDays: 30 });
      // The store's own reads; the migration runner's look at the schema once, at the first query.
      selects = prepared.mock.calls
        .map(([text]) => text)
        .filter((text) => /^select/i.test(text) && !/sqlite_schema|store_migrations/.test(text));
    } finally {
      prepared.mockRestore();
    }
    expect(selects.length).toBeGreaterThan(10);
    const db = new DatabaseSync(file());
    try {
      for (const text of new Set(selects)) {
        const unbound = (text.match(/\?/g) ?? []).map(() => null);
        const plan = db.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...unbound) as { detail: string }[];
        // A scan only of a partial index (the open jobs, or the held ones), or of the held count's one row.
        const scans = plan.map((step) => step.detail).filter((detail) => detail.startsWith("SCAN"));
        for (const scan of scans)
          expect([text, scan]).toEqual([
            text,
            expect.stringMatching(/INDEX jobs_(open_by_due|held_by_age)$|^SCAN held_count$/),
          ]);
      }
    } finally {
      db.close();
    }
  });

  /**
   * A database file of layout version 1 or 2, from its dump in fixtures/legacy-sqlite/.
   */
  const legacyFile = (version: 1 | 2) => {
    const db = new DatabaseSync(file());
    try {
      db.exec(readFileSync(path.join(LEGACY_FIXTURES, `version-${version}.sql`), "utf8"));
    } finally {
      db.close();
    }
  };

  /** Everything the outbox says of what it holds, with the attempts in each inquiry's order. */
  const everything = async (outbox: InquiryOutbox) => {
    const { records, attempts, releases } = await outbox.read();
    return {
      records,
      attempts: [...attempts].sort((a, b) => a.reference.localeCompare(b.reference) || a.at.localeCompare(b.at)),
      releases,
      entries: await outbox.entries(3),
      // What the open jobs are: those neither delivered nor held.
      open: (await outbox.entries(3)).filter((entry) => !["delivered", "quarantined"].includes(entry.state)),
      digests: await outbox.openDigests(3),
      lastDigestDay: await outbox.lastDigestDay(),
      held: await outbox.heldSummary(),
      kept: await inquiriesFrom(outbox, "kept@example.gov"),
      page: await outbox.page({ after: "CRS-LGCY-0002", limit: 2, maxAttempts: 3 }),
    };
  };

  it("carries a store of layout version 2 over in place, in one step, with nothing lost", async () => {
    // An inquiry in each state, a digest with a failed attempt, a release and a mark to keep, and what the
    // code that wrote it said of them all (version-2.json, recorded beside its dump).
    legacyFile(2);
    const before: unknown = JSON.parse(readFileSync(path.join(LEGACY_FIXTURES, "version-2.json"), "utf8"));
    const outbox = open();
    expect(await everything(outbox)).toEqual(before);
    // Its tables are the new ones only, and its version one a release that reads the old layout refuses.
    const tables = await onDatabase(SQL_SQLITE, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name");
    expect(tables).toEqual(
      ["attempts", "held_count", "inquiries", "jobs", "store_migrations", "store_state"].map((name) => ({ name })),
    );
    expect(await onDatabase(SQL_SQLITE, "PRAGMA user_version")).toEqual([
      { user_version: LEGACY_VERSIONS + MIGRATIONS.length },
    ]);
    // Its idempotency keys, its digest day and its digest's retry go on as before.
    expect(await outbox.add({ ...record("CRS-LGCY-0009"), idempotencyKey: "key-legacy-0001" })).toEqual({
      reference: "CRS-LGCY-0001",
      created: false,
    });
    expect(await outbox.takeDigest(DAY, new Date(at({ hours: 5 })), ["webhook"])).toBeNull();
    const claimed = await outbox.claim({
      holder: "run",
      now: new Date(at({ hours: 3 })),
      leaseMs: 1_000,
      limit: 10,
      maxAttempts: 3,
      storedToo: false,
    });
    // The inquiry waiting for its email's retry, the one released since, and the digest waiting for its retry.
    expect(
      claimed.map((job) => (job.kind === "digest" ? job.entry.digest.id : job.entry.record.reference)).sort(),
    ).toEqual([DAY, "CRS-LGCY-0002", "CRS-LGCY-0005"]);
  });

  it("carries a version 1 store over, filing again as held an inquiry judged automated while no transport was configured", async () => {
    // Version 1 had no digests, and filed the first inquiry as open (its judgement came second).
    legacyFile(1);
    const outbox = open();
    expect(await outbox.heldSummary()).toEqual({ count: 2, oldestReceivedAt: START });
    const pending = (await outbox.entries(8)).filter((entry) => entry.state === "pending");
    expect(pending.map((entry) => entry.record.reference)).toEqual(["CRS-1A2B-3C4D"]);
    const digest = await outbox.takeDigest(DAY, new Date(at({ hours: 2 })), ["email"]);
    expect(digest?.references).toEqual(["CRS-7K4M-2Q9D", "CRS-8P3R-5T6V"]);
  });

  it("refuses a file of a layout version it does not know, and leaves it untouched", async () => {
    await onDatabase(SQL_SQLITE, "PRAGMA user_version = 99");
    await expect(open().add(record("CRS-VERS-0003"))).rejects.toThrow(
      `${file()} records layout version 99, and this release of the site reads version ${LEGACY_VERSIONS + MIGRATIONS.length}`,
    );
    expect(await onDatabase(SQL_SQLITE, "SELECT name FROM sqlite_schema")).toEqual([]);
  });
});
