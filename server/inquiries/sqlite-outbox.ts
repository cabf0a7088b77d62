import { randomUUID } from "node:crypto";
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync } from "node:fs";
import path from "node:path";
import { backup, DatabaseSync } from "node:sqlite";
import { setTimeout as sleep } from "node:timers/promises";
import type { RetentionPolicy, TransportName } from "./config";
import {
  DuplicateReferenceError,
  entriesOf,
  entryOf,
  type AddResult,
  type DeliveryAttempt,
  type DeliveryLease,
  type DigestAttempt,
  type DigestEntry,
  type DigestingOutbox,
  digestEntryOf,
  type EntryScope,
  type EntryState,
  type HeldDigest,
  type HeldSummary,
  type InquiryOutbox,
  type OutboxContents,
  type OutboxEntries,
  type OutboxEntry,
  type OutboxPage,
  type OutboxRecord,
  type PageRequest,
  type QuarantineRelease,
  type RemovedCounts,
  type RetainingOutbox,
  type StoredInquiry,
  retentionCutoffs,
  senderAddressKey,
  UnknownLayoutError,
  UnknownReferenceError,
} from "./outbox";
import { processWide } from "./process-wide";

/** The database in INQUIRY_DATA_DIR; SQLite keeps its -wal and -shm files beside it. */
export const DATABASE_FILE = "inquiries.sqlite";

/**
 * How long a statement waits for another connection's write (the server's worker and `npm run
 * inquiries` share the file) before it fails: a write holds the database for a few milliseconds.
 */
const BUSY_TIMEOUT_MS = 5_000;
const LEASE_NAME = "delivery";
/** The most pages node:sqlite's backup takes in one step (a 32-bit count): the whole database, in practice. */
const ALL_PAGES = 2 ** 31 - 1;
/** Inquiries removed per transaction by retention, so that a large removal never holds the writer long. */
const REMOVAL_BATCH = 500;
/** What a health probe writes: an inquiry with its labels and indexes takes a few kilobytes. */
const PROBE_BYTES = 16_384;

/*
 * One row per inquiry. `phase` says what a delivery pass must read: 'open' (not delivered through every
 * transport yet: pending, dead or stored with no transport), 'held' (quarantined, not released) or 'done'
 * (delivered). It is kept by this module whenever an attempt or a release is written, so that a pass reads
 * the open inquiries through their index and never the history. Whether an open one is due or dead
 * depends on the attempt limit in force, which the operator may change, so that is decided when read.
 * `email` is the visitor's address, lower-cased, for an export or an erasure on request; `kept` marks an
 * inquiry the operator wants kept past its retention.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS inquiries (
  reference TEXT PRIMARY KEY,
  received_at TEXT NOT NULL,
  email TEXT NOT NULL,
  idempotency_key TEXT UNIQUE,
  record TEXT NOT NULL,
  phase TEXT NOT NULL CHECK (phase IN ('open', 'held', 'done')),
  due_at TEXT,
  released_at TEXT,
  kept INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX IF NOT EXISTS inquiries_open_by_due ON inquiries (due_at) WHERE phase = 'open';
CREATE INDEX IF NOT EXISTS inquiries_by_phase ON inquiries (phase, received_at);
CREATE INDEX IF NOT EXISTS inquiries_by_email ON inquiries (email);
CREATE TABLE IF NOT EXISTS attempts (
  reference TEXT NOT NULL,
  transport TEXT NOT NULL,
  ok INTEGER NOT NULL,
  at TEXT NOT NULL,
  detail TEXT,
  retry_at TEXT,
  UNIQUE (reference, transport, at)
) STRICT;
-- How many inquiries are in each phase, kept by triggers in the same transactions: the worker reports how
-- many are held in quarantine after every pass, which must not cost a scan of them.
CREATE TABLE IF NOT EXISTS phase_counts (
  phase TEXT PRIMARY KEY,
  count INTEGER NOT NULL
) STRICT;
CREATE TRIGGER IF NOT EXISTS phase_count_insert AFTER INSERT ON inquiries BEGIN
  INSERT INTO phase_counts (phase, count) VALUES (NEW.phase, 1)
    ON CONFLICT (phase) DO UPDATE SET count = count + 1;
END;
CREATE TRIGGER IF NOT EXISTS phase_count_delete AFTER DELETE ON inquiries BEGIN
  UPDATE phase_counts SET count = count - 1 WHERE phase = OLD.phase;
END;
CREATE TRIGGER IF NOT EXISTS phase_count_update AFTER UPDATE OF phase ON inquiries WHEN OLD.phase <> NEW.phase BEGIN
  UPDATE phase_counts SET count = count - 1 WHERE phase = OLD.phase;
  INSERT INTO phase_counts (phase, count) VALUES (NEW.phase, 1)
    ON CONFLICT (phase) DO UPDATE SET count = count + 1;
END;
CREATE TABLE IF NOT EXISTS leases (
  name TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS health (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  at TEXT NOT NULL,
  room BLOB NOT NULL
) STRICT;
`;

/*
 * Version 2: the daily digest of held inquiries. `digest` on an inquiry names the digest that listed it (null:
 * none yet, so the next digest lists it while it is held); `digests` holds each day's digest (the references
 * it lists and its transports, as JSON) and `digest_attempts` its deliveries, as `attempts` an inquiry's;
 * `digest_day` the last day a digest was decided on. Inquiries judged automated while no transport was
 * configured were filed as open (the judgement came second): they are filed as held again.
 */
const DIGEST_SCHEMA = `
CREATE INDEX IF NOT EXISTS inquiries_held_undigested ON inquiries (received_at) WHERE phase = 'held' AND digest IS NULL;
CREATE TABLE IF NOT EXISTS digests (
  id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  digest TEXT NOT NULL,
  phase TEXT NOT NULL CHECK (phase IN ('open', 'done'))
) STRICT;
CREATE INDEX IF NOT EXISTS digests_open ON digests (id) WHERE phase = 'open';
CREATE TABLE IF NOT EXISTS digest_attempts (
  digest TEXT NOT NULL,
  transport TEXT NOT NULL,
  ok INTEGER NOT NULL,
  at TEXT NOT NULL,
  detail TEXT,
  retry_at TEXT,
  UNIQUE (digest, transport, at)
) STRICT;
CREATE TABLE IF NOT EXISTS digest_day (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  day TEXT NOT NULL
) STRICT;
UPDATE inquiries SET phase = 'held', due_at = NULL
  WHERE phase = 'open' AND released_at IS NULL AND json_extract(record, '$.quarantine') IS NOT NULL;
`;

const hasColumn = (db: DatabaseSync, table: string, column: string): boolean =>
  (db.prepare(`PRAGMA table_info(${table})`).all() as unknown as { name: string }[]).some(
    (found) => found.name === column,
  );

/**
 * The steps that bring the database from each layout version to the next, the index being the version a step
 * starts from, so the current version is their count. Version 0 is a new database, or one written before the
 * version was recorded, whose tables are version 1's: each step creates only what is missing, so a database
 * whose version was lost is brought up without harm. A change of layout appends its step here.
 */
const MIGRATIONS: readonly ((db: DatabaseSync) => void)[] = [
  (db) => db.exec(SCHEMA),
  (db) => {
    if (!hasColumn(db, "inquiries", "digest")) db.exec("ALTER TABLE inquiries ADD COLUMN digest TEXT");
    db.exec(DIGEST_SCHEMA);
  },
];
/** The layout this code reads and writes, recorded in the database's `PRAGMA user_version`. */
export const LAYOUT_VERSION = MIGRATIONS.length;

interface InquiryRow {
  readonly record: string;
  readonly released_at: string | null;
}
interface FullRow extends InquiryRow {
  readonly reference: string;
  readonly kept: number;
}
/** An attempt's row, an inquiry's (attempts) or a digest's (digest_attempts). */
interface OutcomeRow {
  readonly transport: string;
  readonly ok: number;
  readonly at: string;
  readonly detail: string | null;
  readonly retry_at: string | null;
}
interface AttemptRow extends OutcomeRow {
  readonly reference: string;
}
interface DigestRow {
  readonly id: string;
  readonly created_at: string;
  readonly digest: string;
}
interface DigestAttemptRow extends OutcomeRow {
  readonly digest: string;
}
interface LeaseRow {
  readonly holder: string;
  readonly expires_at: number;
}

/** What an attempt's row says of it, an inquiry's or a digest's alike: the transport and how it went. */
const outcomeOf = (row: OutcomeRow) => ({
  transport: row.transport as TransportName,
  ok: row.ok === 1,
  at: row.at,
  ...(row.detail === null ? {} : { detail: row.detail }),
  ...(row.retry_at === null ? {} : { retryAt: row.retry_at }),
});
/** The other way: an attempt's outcome as its row's named parameters (the insert statements'). */
const outcomeParams = (attempt: Omit<DeliveryAttempt, "reference">) => ({
  transport: attempt.transport,
  ok: attempt.ok ? 1 : 0,
  at: attempt.at,
  detail: attempt.detail ?? null,
  retryAt: attempt.retryAt ?? null,
});
const attemptOf = (row: AttemptRow): DeliveryAttempt => ({ reference: row.reference, ...outcomeOf(row) });
const digestOf = (row: DigestRow): HeldDigest => {
  const { references, transports } = JSON.parse(row.digest) as Pick<HeldDigest, "references" | "transports">;
  return { id: row.id, createdAt: row.created_at, references, transports };
};
const digestAttemptOf = (row: DigestAttemptRow): DigestAttempt => ({ digest: row.digest, ...outcomeOf(row) });
const recordOf = (row: InquiryRow): OutboxRecord => JSON.parse(row.record) as OutboxRecord;
const releaseOf = (reference: string, at: string | null): QuarantineRelease[] =>
  at === null ? [] : [{ reference, at }];

/** The statements of the daily digest of held inquiries (see DIGEST_SCHEMA), prepared once. */
const prepareDigests = (db: DatabaseSync) => ({
  oldestHeld: db.prepare("SELECT min(received_at) AS oldest FROM inquiries WHERE phase = 'held'"),
  digestDay: db.prepare("SELECT day FROM digest_day WHERE id = 1"),
  setDigestDay: db.prepare(
    "INSERT INTO digest_day (id, day) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET day = excluded.day",
  ),
  undigested: db.prepare(
    "SELECT reference FROM inquiries WHERE phase = 'held' AND digest IS NULL ORDER BY received_at, rowid",
  ),
  insertDigest: db.prepare("INSERT INTO digests (id, created_at, digest, phase) VALUES (?, ?, ?, 'open')"),
  listedIn: db.prepare("UPDATE inquiries SET digest = ? WHERE reference = ?"),
  openDigests: db.prepare("SELECT id, created_at, digest FROM digests WHERE phase = 'open' ORDER BY id"),
  digestById: db.prepare("SELECT id, created_at, digest FROM digests WHERE id = ?"),
  digestAttemptsOf: db.prepare("SELECT * FROM digest_attempts WHERE digest = ? ORDER BY rowid"),
  insertDigestAttempt: db.prepare(
    `INSERT OR IGNORE INTO digest_attempts (digest, transport, ok, at, detail, retry_at)
     VALUES (:digest, :transport, :ok, :at, :detail, :retryAt)`,
  ),
  digestDone: db.prepare("UPDATE digests SET phase = 'done' WHERE id = ?"),
  oldDigests: db.prepare("SELECT id FROM digests WHERE created_at < ?"),
  removeDigestAttempts: db.prepare("DELETE FROM digest_attempts WHERE digest = ?"),
  removeDigest: db.prepare("DELETE FROM digests WHERE id = ?"),
});

/** The statements of the delivery lease, which decides which process delivers (see the class below). */
const prepareLeases = (db: DatabaseSync) => ({
  lease: db.prepare("SELECT holder, expires_at FROM leases WHERE name = ?"),
  takeLease: db.prepare(
    "INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at",
  ),
  renewLease: db.prepare("UPDATE leases SET expires_at = ? WHERE name = ? AND holder = ?"),
  dropLease: db.prepare("DELETE FROM leases WHERE name = ? AND holder = ?"),
});

/** The statements of retention and of a person's data (kept, exported, erased). */
const prepareRetention = (db: DatabaseSync) => ({
  keep: db.prepare("UPDATE inquiries SET kept = 1 WHERE reference = ?"),
  fullRow: db.prepare("SELECT reference, record, released_at, kept FROM inquiries WHERE reference = ?"),
  fromAddress: db.prepare(
    "SELECT reference, record, released_at, kept FROM inquiries WHERE email = ? ORDER BY received_at, rowid",
  ),
  // Past the months since the sender's last inquiry: the range through (phase, received_at), each sender
  // checked through the email index.
  expired: db.prepare(
    `SELECT reference FROM inquiries AS old
     WHERE phase IN ('open', 'done') AND received_at < :cutoff AND kept = 0
       AND NOT EXISTS (SELECT 1 FROM inquiries AS later WHERE later.email = old.email AND later.received_at >= :cutoff)
     LIMIT ${REMOVAL_BATCH}`,
  ),
  expiredHeld: db.prepare(
    `SELECT reference FROM inquiries WHERE phase = 'held' AND received_at < :cutoff AND kept = 0 LIMIT ${REMOVAL_BATCH}`,
  ),
  removeAttempts: db.prepare("DELETE FROM attempts WHERE reference = ?"),
  removeInquiry: db.prepare("DELETE FROM inquiries WHERE reference = ?"),
});

/** The statements one connection uses, prepared once. */
const prepare = (db: DatabaseSync) => ({
  ...prepareDigests(db),
  ...prepareLeases(db),
  ...prepareRetention(db),
  byReference: db.prepare("SELECT record, released_at FROM inquiries WHERE reference = ?"),
  byKey: db.prepare("SELECT reference FROM inquiries WHERE idempotency_key = ? LIMIT 1"),
  exists: db.prepare("SELECT 1 FROM inquiries WHERE reference = ? LIMIT 1"),
  insert: db.prepare(
    `INSERT INTO inquiries (reference, received_at, email, idempotency_key, record, phase, due_at)
     VALUES (:reference, :receivedAt, :email, :key, :record, :phase, :dueAt)`,
  ),
  insertAttempt: db.prepare(
    `INSERT OR IGNORE INTO attempts (reference, transport, ok, at, detail, retry_at)
     VALUES (:reference, :transport, :ok, :at, :detail, :retryAt)`,
  ),
  attemptsOf: db.prepare("SELECT * FROM attempts WHERE reference = ? ORDER BY rowid"),
  // Only a held one, once: of two releases at once, the second changes nothing.
  release: db.prepare(
    "UPDATE inquiries SET released_at = ? WHERE reference = ? AND phase = 'held' AND released_at IS NULL",
  ),
  standing: db.prepare("UPDATE inquiries SET phase = ?, due_at = ? WHERE reference = ?"),
  all: db.prepare("SELECT reference, record, released_at FROM inquiries ORDER BY rowid"),
  allAttempts: db.prepare("SELECT * FROM attempts ORDER BY rowid"),
  // A page in arrival order; a phase given narrows it (a state is one phase's part, decided when read).
  positionOf: db.prepare("SELECT rowid AS position FROM inquiries WHERE reference = ?"),
  pageAfter: db.prepare(
    `SELECT rowid AS position, reference, record, released_at FROM inquiries
     WHERE rowid > :position AND (:phase IS NULL OR phase = :phase) ORDER BY rowid LIMIT :count`,
  ),
  open: db.prepare("SELECT reference, record, released_at FROM inquiries WHERE phase = 'open' ORDER BY rowid"),
  openAttempts: db.prepare(
    `SELECT attempts.* FROM attempts JOIN inquiries USING (reference)
     WHERE inquiries.phase = 'open' ORDER BY attempts.rowid`,
  ),
  held: db.prepare("SELECT coalesce((SELECT count FROM phase_counts WHERE phase = 'held'), 0) AS count"),
  // Several pages, more than an inquiry takes: a store with room for the probe has room for an inquiry.
  probe: db.prepare(
    `INSERT INTO health (id, at, room) VALUES (1, ?, zeroblob(${PROBE_BYTES}))
     ON CONFLICT (id) DO UPDATE SET at = excluded.at, room = excluded.room`,
  ),
});
type Statements = ReturnType<typeof prepare>;

interface Connection {
  readonly db: DatabaseSync;
  readonly statements: Statements;
}

interface PendingAdd {
  readonly record: OutboxRecord;
  readonly resolve: (result: AddResult) => void;
  readonly reject: (error: unknown) => void;
}

/** One database file's connection and the inquiries waiting for its next commit, for the whole process. */
interface DatabaseState {
  connection: Connection | null;
  pending: PendingAdd[];
  flushScheduled: boolean;
}

const databases = () => processWide<Map<string, DatabaseState>>("inquiry-outbox", () => new Map());

const syncFolder = (dir: string) => {
  const handle = openSync(dir, "r");
  try {
    fsyncSync(handle);
  } finally {
    closeSync(handle);
  }
};

/** Runs `work` in an immediate transaction (it takes the write lock at once, or waits the busy timeout). */
const inTransaction = <T>(db: DatabaseSync, work: () => T): T => {
  db.exec("BEGIN IMMEDIATE");
  try {
    const value = work();
    db.exec("COMMIT");
    return value;
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  }
};

const userVersion = (db: DatabaseSync): number =>
  (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;

/**
 * Brings the database to LAYOUT_VERSION in one transaction, or refuses, before writing anything, a version
 * this code has no steps from (a later release's, or not this site's).
 */
const settleLayout = (db: DatabaseSync, file: string): void => {
  const stepsFrom = (found: number): readonly ((db: DatabaseSync) => void)[] => {
    if (found < 0 || found > LAYOUT_VERSION) throw new UnknownLayoutError(file, String(found), LAYOUT_VERSION);
    return MIGRATIONS.slice(found);
  };
  if (stepsFrom(userVersion(db)).length === 0) return;
  inTransaction(db, () => {
    // Read again under the write lock: another process may have brought it up meanwhile.
    for (const step of stepsFrom(userVersion(db))) step(db);
    db.exec(`PRAGMA user_version = ${LAYOUT_VERSION}`);
  });
};

/**
 * Opens (creating if need be) the database: WAL, so readers never wait for the writer; synchronous=FULL,
 * so a commit is on disk before the call returns (an inquiry is durable before its 201); secure_delete,
 * so a removed inquiry's bytes are overwritten rather than left in free pages.
 */
const openDatabase = (file: string): Connection => {
  const dir = path.dirname(file);
  const folderIsNew = !existsSync(dir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!existsSync(file)) {
    // Readable by the server's user only; SQLite gives its -wal and -shm files the database's mode.
    closeSync(openSync(file, "a", 0o600));
    syncFolder(dir);
    if (folderIsNew) syncFolder(path.dirname(dir));
  }
  const db = new DatabaseSync(file, { timeout: BUSY_TIMEOUT_MS });
  try {
    settleLayout(db, file);
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = FULL");
    db.exec("PRAGMA secure_delete = ON");
    return { db, statements: prepare(db) };
  } catch (error) {
    db.close();
    throw error;
  }
};

/** The phase (see `phase` above) of an inquiry in each state. */
const PHASE_OF_STATE: Readonly<Record<EntryState, "open" | "held" | "done">> = {
  pending: "open",
  dead: "open",
  stored: "open",
  quarantined: "held",
  delivered: "done",
};

/** Where an inquiry stands as far as the database must know it (see `phase` above). */
const standingOf = (record: OutboxRecord, attempts: readonly DeliveryAttempt[], releasedAt: string | null) => {
  const entry = entryOf(record, attempts, releasedAt !== null, Number.POSITIVE_INFINITY);
  const phase = PHASE_OF_STATE[entry.state];
  return { phase, dueAt: entry.dueAt };
};

export interface SqliteOutboxOptions {
  /** How long the delivery lease lasts unless renewed; 30 s by default. */
  readonly leaseTtlMs?: number;
  /** How often a held lease is renewed; 5 s by default. */
  readonly leaseRenewMs?: number;
}

/**
 * The single server's outbox: a SQLite database (node:sqlite) in INQUIRY_DATA_DIR. Every process that
 * opens it (the server, `npm run inquiries`) shares the file; SQLite's locking keeps their writes apart,
 * and a lease row in the database decides which of them delivers.
 */
export class SqliteOutbox implements InquiryOutbox, RetainingOutbox, DigestingOutbox {
  readonly file: string;

  constructor(
    readonly dir: string,
    private readonly options: SqliteOutboxOptions = {},
  ) {
    this.file = path.join(dir, DATABASE_FILE);
  }

  get location(): string {
    return this.file;
  }

  private state(): DatabaseState {
    const all = databases();
    let state = all.get(this.file);
    if (!state) {
      state = { connection: null, pending: [], flushScheduled: false };
      all.set(this.file, state);
    }
    return state;
  }

  /** The process's connection to the file, opened on first use (a folder that cannot be made fails each call). */
  protected connection(): Connection {
    const state = this.state();
    state.connection ??= openDatabase(this.file);
    return state.connection;
  }

  /**
   * Stores the inquiry once it is committed. The inquiries that arrive while a commit is under way go in
   * the next one together (a group commit): a burst waits for a few syncs to disk, not one each.
   */
  add(record: OutboxRecord): Promise<AddResult> {
    const state = this.state();
    return new Promise<AddResult>((resolve, reject) => {
      state.pending.push({ record, resolve, reject });
      if (!state.flushScheduled) {
        state.flushScheduled = true;
        setImmediate(() => this.flush(state));
      }
    });
  }

  private flush(state: DatabaseState): void {
    state.flushScheduled = false;
    const batch = state.pending.splice(0);
    let outcomes: (AddResult | DuplicateReferenceError)[];
    try {
      const { db, statements } = this.connection();
      outcomes = inTransaction(db, () => batch.map(({ record }) => SqliteOutbox.insert(statements, record)));
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    }
    batch.forEach((pending, index) => {
      const outcome = outcomes[index];
      if (outcome instanceof DuplicateReferenceError || outcome === undefined) pending.reject(outcome);
      else pending.resolve(outcome);
    });
  }

  /** One inquiry, inside the caller's transaction: a known idempotency key gives back its inquiry's reference. */
  private static insert(statements: Statements, record: OutboxRecord): AddResult | DuplicateReferenceError {
    const key = record.idempotencyKey ?? null;
    const earlier = key === null ? undefined : (statements.byKey.get(key) as { reference: string } | undefined);
    if (earlier) return { reference: earlier.reference, created: false };
    if (statements.exists.get(record.reference)) return new DuplicateReferenceError(record.reference);
    const { phase, dueAt } = standingOf(record, [], null);
    statements.insert.run({
      reference: record.reference,
      receivedAt: record.receivedAt,
      email: record.replyTo.address.toLowerCase(),
      key,
      record: JSON.stringify(record),
      phase,
      dueAt,
    });
    return { reference: record.reference, created: true };
  }

  /** Sets the inquiry's phase and due time from its record, attempts and release (inside a transaction). */
  protected static refresh(statements: Statements, reference: string): void {
    const row = statements.byReference.get(reference) as InquiryRow | undefined;
    if (!row) return;
    const attempts = (statements.attemptsOf.all(reference) as unknown as AttemptRow[]).map(attemptOf);
    const { phase, dueAt } = standingOf(recordOf(row), attempts, row.released_at);
    statements.standing.run(phase, dueAt, reference);
  }

  /** Adds attempts (a repeat of one already stored is ignored) and refreshes their inquiries' standing. */
  protected static insertAttempts(statements: Statements, attempts: readonly DeliveryAttempt[]): void {
    for (const attempt of attempts) {
      statements.insertAttempt.run({ reference: attempt.reference, ...outcomeParams(attempt) });
    }
    for (const reference of new Set(attempts.map((attempt) => attempt.reference))) {
      SqliteOutbox.refresh(statements, reference);
    }
  }

  // Async for the interface: a commit is one synchronous call.
  // eslint-disable-next-line @typescript-eslint/require-await
  async recordAttempt(attempt: DeliveryAttempt): Promise<void> {
    const { db, statements } = this.connection();
    inTransaction(db, () => SqliteOutbox.insertAttempts(statements, [attempt]));
  }

  // eslint-disable-next-line @typescript-eslint/require-await
  async release(reference: string, at: Date = new Date()): Promise<boolean> {
    const { db, statements } = this.connection();
    return inTransaction(db, () => {
      if (Number(statements.release.run(at.toISOString(), reference).changes) === 0) return false;
      SqliteOutbox.refresh(statements, reference);
      return true;
    });
  }

  /** The count kept by the triggers, and the oldest through the phase index: never a scan of the held ones. */
  // eslint-disable-next-line @typescript-eslint/require-await
  async heldSummary(): Promise<HeldSummary> {
    const { statements } = this.connection();
    const { count } = statements.held.get() as { count: number };
    const { oldest } = statements.oldestHeld.get() as { oldest: string | null };
    return { count, oldestReceivedAt: oldest };
  }

  // eslint-disable-next-line @typescript-eslint/require-await
  async lastDigestDay(): Promise<string | null> {
    const row = this.connection().statements.digestDay.get() as { day: string } | undefined;
    return row?.day ?? null;
  }

  /** The day, the digest and the inquiries it lists in one transaction: all of it happened, or none. */
  // eslint-disable-next-line @typescript-eslint/require-await
  async takeDigest(day: string, at: Date, transports: readonly TransportName[]): Promise<HeldDigest | null> {
    if (transports.length === 0) return null;
    const { db, statements } = this.connection();
    return inTransaction(db, () => {
      const last = statements.digestDay.get() as { day: string } | undefined;
      if (last !== undefined && last.day >= day) return null;
      statements.setDigestDay.run(day);
      const references = (statements.undigested.all() as unknown as { reference: string }[]).map(
        (row) => row.reference,
      );
      if (references.length === 0) return null;
      const digest: HeldDigest = { id: day, createdAt: at.toISOString(), references, transports: [...transports] };
      statements.insertDigest.run(digest.id, digest.createdAt, JSON.stringify({ references, transports }));
      for (const reference of references) statements.listedIn.run(digest.id, reference);
      return digest;
    });
  }

  // eslint-disable-next-line @typescript-eslint/require-await
  async openDigests(maxAttempts: number): Promise<DigestEntry[]> {
    const { statements } = this.connection();
    return (statements.openDigests.all() as unknown as DigestRow[]).map((row) =>
      digestEntryOf(
        digestOf(row),
        (statements.digestAttemptsOf.all(row.id) as unknown as DigestAttemptRow[]).map(digestAttemptOf),
        maxAttempts,
      ),
    );
  }

  /** The attempt, and the digest filed as done once every transport has it, in one transaction. */
  // eslint-disable-next-line @typescript-eslint/require-await
  async recordDigestAttempt(attempt: DigestAttempt): Promise<void> {
    const { db, statements } = this.connection();
    inTransaction(db, () => {
      statements.insertDigestAttempt.run({ digest: attempt.digest, ...outcomeParams(attempt) });
      const row = statements.digestById.get(attempt.digest) as DigestRow | undefined;
      if (!row) return;
      const tried = (statements.digestAttemptsOf.all(row.id) as unknown as DigestAttemptRow[]).map(digestAttemptOf);
      if (digestEntryOf(digestOf(row), tried, Number.POSITIVE_INFINITY).state === "delivered") {
        statements.digestDone.run(row.id);
      }
    });
  }

  // eslint-disable-next-line @typescript-eslint/require-await
  async probe(): Promise<void> {
    const { db, statements } = this.connection();
    inTransaction(db, () => statements.probe.run(new Date().toISOString()));
  }

  private static contentsOf(rows: readonly (InquiryRow & { reference: string })[], attempts: readonly AttemptRow[]) {
    return {
      records: rows.map(recordOf),
      attempts: attempts.map(attemptOf),
      releases: rows.flatMap((row) => releaseOf(row.reference, row.released_at)),
      damagedLines: 0,
    };
  }

  // eslint-disable-next-line @typescript-eslint/require-await
  async read(): Promise<OutboxContents> {
    const { statements } = this.connection();
    return SqliteOutbox.contentsOf(
      statements.all.all() as unknown as (InquiryRow & { reference: string })[],
      statements.allAttempts.all() as unknown as AttemptRow[],
    );
  }

  /**
   * With scope "open", only the inquiries not yet delivered through every transport, through their index:
   * delivered ones are not read, and quarantined ones are only counted.
   */
  async entries(maxAttempts: number, scope: EntryScope = "all"): Promise<OutboxEntries> {
    if (scope === "all") {
      const contents = await this.read();
      return { entries: entriesOf(contents, maxAttempts), damagedLines: 0 };
    }
    const { statements } = this.connection();
    const contents = SqliteOutbox.contentsOf(
      statements.open.all() as unknown as (InquiryRow & { reference: string })[],
      statements.openAttempts.all() as unknown as AttemptRow[],
    );
    const { count } = statements.held.get() as { count: number };
    return { entries: entriesOf(contents, maxAttempts), damagedLines: 0, heldUnread: count };
  }

  /** Through the primary key, a chunk of rows at a time: never the whole table. */
  // eslint-disable-next-line @typescript-eslint/require-await
  async page({ after, limit, maxAttempts, state }: PageRequest): Promise<OutboxPage> {
    const { statements } = this.connection();
    let position = 0;
    if (after !== null) {
      const row = statements.positionOf.get(after) as { position: number } | undefined;
      if (!row) throw new UnknownReferenceError(after);
      position = row.position;
    }
    const phase = state === undefined ? null : PHASE_OF_STATE[state];
    const entries: OutboxEntry[] = [];
    for (;;) {
      const rows = statements.pageAfter.all({ position, phase, count: limit }) as unknown as (FullRow & {
        position: number;
      })[];
      if (rows.length === 0) return { entries, next: null, damagedLines: 0 };
      for (const row of rows) {
        position = row.position;
        const attempts = (statements.attemptsOf.all(row.reference) as unknown as AttemptRow[]).map(attemptOf);
        const entry = entryOf(recordOf(row), attempts, row.released_at !== null, maxAttempts);
        if (state === undefined || entry.state === state) entries.push(entry);
        if (entries.length === limit) {
          const more = statements.pageAfter.all({ position, phase, count: 1 }).length > 0;
          return { entries, next: more ? row.reference : null, damagedLines: 0 };
        }
      }
    }
  }

  // eslint-disable-next-line @typescript-eslint/require-await
  async entry(reference: string, maxAttempts: number): Promise<OutboxEntry | null> {
    const { statements } = this.connection();
    const row = statements.byReference.get(reference) as InquiryRow | undefined;
    if (!row) return null;
    const attempts = (statements.attemptsOf.all(reference) as unknown as AttemptRow[]).map(attemptOf);
    return entryOf(recordOf(row), attempts, row.released_at !== null, maxAttempts);
  }

  /**
   * Stores many inquiries with their attempts in one transaction, for a bench that seeds a
   * large store. Anything already here is left as it is. Resolves to how many inquiries were new.
   */
  // eslint-disable-next-line @typescript-eslint/require-await
  async absorb({
    records = [],
    attempts = [],
  }: Partial<Pick<OutboxContents, "records" | "attempts">>): Promise<number> {
    const { db, statements } = this.connection();
    return inTransaction(db, () => {
      let added = 0;
      for (const record of records) {
        if (statements.exists.get(record.reference)) continue;
        const outcome = SqliteOutbox.insert(statements, record);
        if (!(outcome instanceof DuplicateReferenceError) && outcome.created) added += 1;
      }
      SqliteOutbox.insertAttempts(statements, attempts);
      return added;
    });
  }

  // eslint-disable-next-line @typescript-eslint/require-await
  async keep(reference: string): Promise<boolean> {
    const { db, statements } = this.connection();
    return inTransaction(db, () => Number(statements.keep.run(reference).changes) > 0);
  }

  private static storedOf(statements: Statements, row: FullRow): StoredInquiry {
    return {
      record: recordOf(row),
      attempts: (statements.attemptsOf.all(row.reference) as unknown as AttemptRow[]).map(attemptOf),
      releasedAt: row.released_at,
      kept: row.kept === 1,
    };
  }

  // eslint-disable-next-line @typescript-eslint/require-await
  async inquiriesFrom(address: string): Promise<StoredInquiry[]> {
    const { statements } = this.connection();
    const rows = statements.fromAddress.all(senderAddressKey(address)) as unknown as FullRow[];
    return rows.map((row) => SqliteOutbox.storedOf(statements, row));
  }

  // eslint-disable-next-line @typescript-eslint/require-await
  async stored(reference: string): Promise<StoredInquiry | null> {
    const { statements } = this.connection();
    const row = statements.fullRow.get(reference) as FullRow | undefined;
    return row ? SqliteOutbox.storedOf(statements, row) : null;
  }

  /**
   * Removes the inquiries and their attempts in one transaction, then checkpoints the WAL into the
   * database and truncates it: with secure_delete the removed rows are overwritten with zeros, so nothing
   * of them is left in either file.
   */
  private remove(references: readonly string[]): string[] {
    const { db, statements } = this.connection();
    const removed = inTransaction(db, () =>
      references.filter((reference) => {
        statements.removeAttempts.run(reference);
        return Number(statements.removeInquiry.run(reference).changes) > 0;
      }),
    );
    return removed;
  }

  /** Copies the WAL into the database and empties it, so that removed rows survive in neither file. */
  private checkpoint(): void {
    this.connection().db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  }

  // eslint-disable-next-line @typescript-eslint/require-await
  async erase(references: readonly string[]): Promise<string[]> {
    const removed = this.remove(references);
    this.checkpoint();
    return removed;
  }

  /** A batch at a time (each its own transaction), through the indexes: never the whole table at once. */
  // eslint-disable-next-line @typescript-eslint/require-await
  async removeExpired(
    now: Date,
    retention: RetentionPolicy,
    stopping: () => boolean = () => false,
  ): Promise<RemovedCounts> {
    const { statements } = this.connection();
    const cutoffs = retentionCutoffs(now, retention);
    let complete = true;
    const removeAll = (query: typeof statements.expired, cutoff: string) => {
      let count = 0;
      for (;;) {
        if (stopping()) {
          complete = false;
          return count;
        }
        const batch = (query.all({ cutoff }) as unknown as { reference: string }[]).map((row) => row.reference);
        if (batch.length === 0) return count;
        count += this.remove(batch).length;
      }
    };
    const counts = {
      inquiries: removeAll(statements.expired, cutoffs.delivered),
      quarantined: removeAll(statements.expiredHeld, cutoffs.quarantined),
    };
    // A digest lists only references; once the inquiries it listed are past their quarantine, it is of no use.
    if (!stopping()) {
      inTransaction(this.connection().db, () => {
        for (const { id } of statements.oldDigests.all(cutoffs.quarantined) as unknown as { id: string }[]) {
          statements.removeDigestAttempts.run(id);
          statements.removeDigest.run(id);
        }
      });
    }
    if (counts.inquiries + counts.quarantined > 0) this.checkpoint();
    return { ...counts, complete };
  }

  /**
   * A consistent copy of the database at `destination` while the server goes on writing (SQLite's online
   * backup), readable by this user only. Resolves to the pages copied.
   */
  async backup(destination: string): Promise<number> {
    if (path.resolve(destination) === path.resolve(this.file))
      throw new Error("a backup cannot replace the database itself");
    const { db } = this.connection();
    closeSync(openSync(destination, "w", 0o600));
    // Every page in one step, in one read transaction: copied a hundred pages at a time (the default), a
    // backup restarts whenever another connection (the server) writes, and under steady writes never ends.
    return backup(db, destination, { rate: ALL_PAGES });
  }

  /** Takes the delivery lease if no other holder's is still running; false when another holds it. */
  private takeLease(holder: string, ttlMs: number): boolean {
    const { db, statements } = this.connection();
    return inTransaction(db, () => {
      const current = statements.lease.get(LEASE_NAME) as LeaseRow | undefined;
      if (current && current.holder !== holder && current.expires_at > Date.now()) return false;
      statements.takeLease.run(LEASE_NAME, holder, Date.now() + ttlMs);
      return true;
    });
  }

  /**
   * The server's worker and any number of `npm run inquiries -- --retry` runs take turns through a lease
   * row in the database, taken in an immediate transaction (so two cannot both find it free). A holder
   * renews it while its work runs; one that died leaves a lease that expires. A lease that another run
   * took over (after this process stalled past its expiry) is told to `onLost`; the work goes on to its
   * end, but starts no more deliveries.
   */
  async whileDelivering<T>(
    work: (lease: DeliveryLease) => Promise<T>,
    waitMs = 0,
    onLost: (error: Error) => void = () => undefined,
  ): Promise<{ value: T } | null> {
    const ttlMs = this.options.leaseTtlMs ?? 30_000;
    const renewMs = this.options.leaseRenewMs ?? 5_000;
    const holder = randomUUID();
    const deadline = Date.now() + waitMs;
    while (!this.takeLease(holder, ttlMs)) {
      if (Date.now() + 100 > deadline) return null;
      await sleep(100);
    }
    const { statements } = this.connection();
    let lost = false;
    const loseIt = (error: Error) => {
      if (lost) return;
      lost = true;
      onLost(error);
    };
    const renewal = setInterval(() => {
      try {
        const { changes } = statements.renewLease.run(Date.now() + ttlMs, LEASE_NAME, holder);
        if (Number(changes) === 0) loseIt(new Error("the delivery lease was taken over by another run"));
      } catch (error) {
        // Busy for longer than the timeout: the next renewal tries again, well before the lease expires.
        if (renewMs * 2 >= ttlMs) loseIt(error as Error);
      }
    }, renewMs);
    renewal.unref();
    try {
      return { value: await work({ mayStart: () => !lost }) };
    } finally {
      clearInterval(renewal);
      // A lease that passed to another run is not ours to remove: the holder decides. One that cannot be
      // removed now (the disk, say) runs out on its own; that must not turn the work's outcome into a failure.
      try {
        statements.dropLease.run(LEASE_NAME, holder);
      } catch (error) {
        onLost(error as Error);
      }
    }
  }
}
