import { randomBytes } from "node:crypto";
import { closeSync, openSync, statSync } from "node:fs";
import path from "node:path";
import { sql } from "kysely";
import type { TransportName } from "../config";
import {
  attemptsByReference,
  DuplicateReferenceError,
  senderAddressKey,
  UnknownReferenceError,
  type AddResult,
  type ClaimRequest,
  type DeliveryAttempt,
  type MaintenanceLease,
  type DigestAttempt,
  type DigestEntry,
  type HeldDigest,
  type HeldSummary,
  type OutboxContents,
  type OutboxEntry,
  type OutboxPage,
  type OutboxRecord,
  type PageRequest,
  type QueueCounts,
} from "./outbox";
import type { AttemptOutcome } from "../delivery/deliver";
import type { StoreDatabase } from "./database";
import { whileHoldingPassLock, type PassLockOptions } from "./pass-lock";
import {
  attemptRow,
  chunksOf,
  jobEntriesOf,
  jobStateOf,
  jobRows,
  inquiryJobs,
  newInquiryJob,
  NO_ATTEMPT_LIMIT,
  refreshJob,
  HELD,
  OPEN,
  type InquiryJob,
  type JobEntry,
  type Query,
} from "./jobs";
import { STATE, type JobKind } from "./schema";

/**
 * What a health probe writes: more than an inquiry takes, which touches a page of each of its table's and its job's
 * indexes (about ten), so that a store with room for the probe has room for an inquiry.
 */
const PROBE_BYTES = 65_536;

/** Inquiries with what became of them, as another store holds them (a copy) or a bench makes them up. */
export interface AbsorbedInquiries {
  readonly records: readonly OutboxRecord[];
  readonly attempts?: readonly DeliveryAttempt[];
  readonly releases?: readonly { readonly reference: string; readonly at: string }[];
  /** The references an operator marked as kept. */
  readonly kept?: readonly string[];
}

interface PendingAdd {
  readonly record: OutboxRecord;
  readonly resolve: (result: AddResult) => void;
  readonly reject: (error: unknown) => void;
}

/** What an inquiry taken in from another store arrives with. */
interface ArrivingHistory {
  readonly attempts: readonly DeliveryAttempt[];
  readonly releasedAt: string | null;
  readonly kept: boolean;
}

const NO_HISTORY: ArrivingHistory = { attempts: [], releasedAt: null, kept: false };

/** An inquiry's row, with the release and mark to keep it arrives with. */
const inquiryRow = (record: OutboxRecord, { releasedAt, kept }: ArrivingHistory) => ({
  reference: record.reference,
  received_at: record.receivedAt,
  email: senderAddressKey(record.replyTo.address),
  idempotency_key: record.idempotencyKey ?? null,
  record: JSON.stringify(record),
  released_at: releasedAt,
  kept: kept ? 1 : 0,
});

/** Attempts, each recorded once: one already recorded (the same job, transport and time) is passed over. How many were new. */
const addAttempts = async (q: Query, rows: readonly ReturnType<typeof attemptRow>[]): Promise<number> => {
  let added = 0;
  for (const chunk of chunksOf(rows)) {
    const inserted = await q
      .insertInto("attempts")
      .values(chunk)
      .onConflict((conflict) => conflict.doNothing())
      .executeTakeFirst();
    added += Number(inserted.numInsertedOrUpdatedRows ?? 0n);
  }
  return added;
};

/** Marks a held inquiry released at `at`, once: whether this call did. */
const markReleased = async (q: Query, reference: string, at: string): Promise<boolean> => {
  const released = await q
    .updateTable("inquiries")
    .set({ released_at: at })
    .where("reference", "=", reference)
    .where("released_at", "is", null)
    .executeTakeFirst();
  return released.numUpdatedRows > 0n;
};

/**
 * The inquiry store in SQL, the same on SQLite and Postgres: inquiries, and one queue of jobs (a delivery
 * per inquiry, a digest per day of held ones) with their attempts. The records it keeps and how their standing
 * is judged are in outbox.ts; what differs between the engines is in schema.ts and StoreDatabase.
 */
export class InquiryOutbox {
  private pending: PendingAdd[] = [];

  constructor(
    readonly database: StoreDatabase,
    private readonly options: PassLockOptions = {},
  ) {}

  /** Where it is, in words for an operator: a database file, or a database server. */
  get location(): string {
    return this.database.location;
  }

  /** Runs `work` on the database once it is ready (its migrations applied). */
  async query<T>(work: (q: Query) => Promise<T>): Promise<T> {
    await this.database.ready();
    return work(this.database.db);
  }

  /** Runs `work` in one write transaction: all of it happens, or none. */
  async write<T>(work: (q: Query) => Promise<T>): Promise<T> {
    await this.database.ready();
    return this.database.db.transaction().execute(work);
  }

  /** A message's job, locked until the transaction ends, so that its writers take turns. */
  private lockJob(q: Query, kind: JobKind, subject: string) {
    const job = q.selectFrom("jobs").select(["id", "state"]).where("kind", "=", kind).where("subject", "=", subject);
    return this.database.locking(job).executeTakeFirst();
  }

  /**
   * Stores an accepted inquiry and resolves once it is committed. One whose idempotency key was stored before (or
   * is being stored now) is not stored again: the first one's reference comes back. A reference already held is
   * refused with DuplicateReferenceError. Those that arrive while a commit is under way go in the next
   * one together, in the order they arrived: a burst waits for a few commits, not one each.
   */
  add(record: OutboxRecord): Promise<AddResult> {
    return new Promise<AddResult>((resolve, reject) => {
      this.pending.push({ record, resolve, reject });
      if (this.pending.length === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending.splice(0);
    try {
      const outcomes = await this.write(async (q) => {
        const results: (AddResult | DuplicateReferenceError)[] = [];
        for (const { record } of batch) results.push(await InquiryOutbox.insert(q, record));
        return results;
      });
      batch.forEach(({ resolve, reject }, index) => {
        const outcome = outcomes[index];
        if (outcome === undefined || outcome instanceof DuplicateReferenceError) reject(outcome);
        else resolve(outcome);
      });
    } catch (error) {
      for (const { reject } of batch) reject(error);
    }
  }

  /** One inquiry and its job, in the caller's transaction: a known idempotency key gives back its inquiry's reference. */
  private static async insert(q: Query, record: OutboxRecord): Promise<AddResult | DuplicateReferenceError> {
    const inserted = await q
      .insertInto("inquiries")
      .values(inquiryRow(record, NO_HISTORY))
      .onConflict((conflict) => conflict.doNothing())
      .returning("reference")
      .executeTakeFirst();
    if (inserted) {
      await q.insertInto("jobs").values(newInquiryJob(record)).execute();
      return { reference: record.reference, created: true };
    }
    const earlier = await q
      .selectFrom("inquiries")
      .select("reference")
      .where("idempotency_key", "=", record.idempotencyKey ?? null)
      .executeTakeFirst();
    return earlier ? { reference: earlier.reference, created: false } : new DuplicateReferenceError(record.reference);
  }

  /** The attempt, and its job filed again; one of a message no longer stored (erased meanwhile) is dropped. */
  private recordOutcome(kind: JobKind, subject: string, outcome: AttemptOutcome): Promise<void> {
    return this.write(async (q) => {
      const job = await this.lockJob(q, kind, subject);
      if (!job) return;
      await addAttempts(q, [attemptRow(job.id, outcome)]);
      await refreshJob(q, job.id);
    });
  }

  recordAttempt({ reference, ...outcome }: DeliveryAttempt): Promise<void> {
    return this.recordOutcome("inquiry", reference, outcome);
  }

  recordDigestAttempt({ digest, ...outcome }: DigestAttempt): Promise<void> {
    return this.recordOutcome("digest", digest, outcome);
  }

  /**
   * Lets a quarantined inquiry through to delivery. True when this call released it; false when it was released
   * already, is not held, or is not there: of two releases at once, the second finds it no longer held.
   */
  release(reference: string, at: Date = new Date()): Promise<boolean> {
    return this.write(async (q) => {
      const job = await this.lockJob(q, "inquiry", reference);
      if (job?.state !== "held" || !(await markReleased(q, reference, at.toISOString()))) return false;
      await refreshJob(q, job.id);
      return true;
    });
  }

  /** Every inquiry, attempt and release, oldest first. */
  read(): Promise<OutboxContents> {
    return this.query(async (q) => {
      const found = await inquiryJobs(q, NO_ATTEMPT_LIMIT, (rows) => rows);
      const releasesOf = ({ row }: InquiryJob) =>
        row.released_at === null ? [] : [{ reference: row.subject, at: row.released_at }];
      return {
        records: found.map(({ entry }) => entry.record),
        attempts: found.flatMap(({ row, attempts }) =>
          attempts.map((outcome) => ({ reference: row.subject, ...outcome })),
        ),
        releases: found.flatMap(releasesOf),
      };
    });
  }

  /** The held inquiries' count (schema.ts's HELD_COUNT), and the oldest of them through their jobs' partial index. */
  private static async held(q: Query): Promise<HeldSummary> {
    const { count } = await q.selectFrom("held_count").select("count").executeTakeFirstOrThrow();
    const oldest = await q
      .selectFrom("jobs")
      .select("created_at")
      .where("state", "=", HELD)
      .orderBy("created_at")
      .limit(1)
      .executeTakeFirst();
    return { count, oldestReceivedAt: oldest?.created_at ?? null };
  }

  /** Every inquiry with where it stands, oldest first. */
  async entries(maxAttempts: number): Promise<OutboxEntry[]> {
    return this.query(async (q) => (await inquiryJobs(q, maxAttempts, (rows) => rows)).map(({ entry }) => entry));
  }

  /**
   * How many jobs of each kind are pending and dead, and when the first falls due, counted through the open jobs'
   * index. A due time is kept without the attempt limit, so the first may be a job claim() finds is not yet due.
   */
  counts(maxAttempts: number): Promise<Record<JobKind, QueueCounts>> {
    return this.query(async (q) => {
      const rows = await q
        .selectFrom("jobs")
        .select([
          "kind",
          sql<number | string>`count(CASE WHEN tries < ${maxAttempts} THEN 1 END)`.as("pending"),
          sql<number | string>`count(CASE WHEN tries >= ${maxAttempts} THEN 1 END)`.as("dead"),
          // A job another run holds is due again once that run's claim ends, not before.
          sql<string | null>`min(CASE WHEN tries < ${maxAttempts} THEN
            CASE WHEN claimed_until > due_at THEN claimed_until ELSE due_at END END)`.as("first_due"),
        ])
        .where("state", "=", OPEN)
        .where("due_at", "is not", null)
        .groupBy("kind")
        .execute();
      const countsOf = (kind: JobKind): QueueCounts => {
        const row = rows.find((found) => found.kind === kind);
        return {
          pending: Number(row?.pending ?? 0),
          dead: Number(row?.dead ?? 0),
          nextDueAt: row?.first_due ? Date.parse(row.first_due) : null,
        };
      };
      return { inquiry: countsOf("inquiry"), digest: countsOf("digest") };
    });
  }

  /**
   * One page of the inquiries, oldest first: at most `limit` (in `state`, if given) after the inquiry `after` (from
   * the first if null); `next` is the reference to ask the next page after, null at the end. Through the arrival
   * order's key, a page of rows at a time: never the whole table.
   */
  page({ after, limit, maxAttempts, state }: PageRequest): Promise<OutboxPage> {
    return this.query(async (q) => {
      const start =
        after === null
          ? undefined
          : await q.selectFrom("inquiries").select("position").where("reference", "=", after).executeTakeFirst();
      if (after !== null && !start) throw new UnknownReferenceError(after);
      let position = start?.position ?? 0;
      const jobState = state === undefined ? null : jobStateOf(state);
      const rowsAfter = (from: number, count: number) =>
        inquiryJobs(q, maxAttempts, (rows) =>
          rows
            .where("inquiries.position", ">", from)
            .$if(jobState !== null, (narrowed) => narrowed.where("jobs.state", "=", jobState ?? "open"))
            .limit(count),
        );
      const entries: OutboxEntry[] = [];
      for (;;) {
        const found = await rowsAfter(position, limit);
        if (found.length === 0) return { entries, next: null };
        for (const { entry, row } of found) {
          position = row.position ?? position;
          if (state === undefined || entry.state === state) entries.push(entry);
          if (entries.length === limit) {
            const more = (await rowsAfter(position, 1)).length > 0;
            return { entries, next: more ? entry.record.reference : null };
          }
        }
      }
    });
  }

  /** One inquiry with where it stands; null when there is no such reference. */
  entry(reference: string, maxAttempts: number): Promise<OutboxEntry | null> {
    return this.query(async (q) => {
      const [found] = await inquiryJobs(q, maxAttempts, (rows) => rows.where("jobs.subject", "=", reference));
      return found?.entry ?? null;
    });
  }

  /**
   * Claims the jobs due at `now` (inquiries' deliveries and digests alike) for `holder` until its lease ends, so that
   * runs at once take different jobs and none is delivered twice: on Postgres with FOR UPDATE SKIP LOCKED, on SQLite
   * in the write transaction, which runs alone. A job another run holds a lease on is not due. A row's due time is
   * kept without the attempt limit: one whose earliest transport is dead under the limit is given its true due time
   * here instead, and left.
   */
  claim({ holder, now, leaseMs, limit, maxAttempts, storedToo, kinds, reference, everyOpen = false }: ClaimRequest) {
    const at = now.toISOString();
    return this.write(async (q): Promise<JobEntry[]> => {
      let candidates = q
        .selectFrom("jobs")
        .select("id")
        .where("state", "=", OPEN)
        .where((eb) => eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<", at)]));
      if (kinds) candidates = candidates.where("kind", "in", kinds);
      if (reference !== undefined)
        candidates = candidates.where("kind", "=", "inquiry").where("subject", "=", reference);
      if (!everyOpen) {
        candidates = candidates
          .where("tries", "<", maxAttempts)
          .where((eb) => eb.or([eb("due_at", "<=", at), ...(storedToo ? [eb("due_at", "is", null)] : [])]));
      }
      const ids = (await this.database.locking(candidates.orderBy("due_at").limit(limit), true).execute()).map(
        (row) => row.id,
      );
      const rows =
        ids.length === 0 ? [] : await jobRows(q).where("jobs.id", "in", ids).orderBy("jobs.due_at").execute();
      const found = await jobEntriesOf(q, rows, maxAttempts);
      const due = ({ entry }: JobEntry) =>
        (entry.state === "stored" && storedToo) ||
        (entry.state !== "stored" &&
          (everyOpen || (entry.state === "pending" && entry.dueAt !== null && entry.dueAt <= at)));
      for (const later of found.filter((job) => !due(job) && job.entry.dueAt !== null)) {
        await q.updateTable("jobs").set({ due_at: later.entry.dueAt }).where("id", "=", later.id).execute();
      }
      const claimed = found.filter(due);
      const until = new Date(now.getTime() + leaseMs).toISOString();
      for (const chunk of chunksOf(claimed.map((job) => job.id))) {
        await q
          .updateTable("jobs")
          .set({ claimed_by: holder, claimed_until: until })
          .where("id", "in", chunk)
          .execute();
      }
      return claimed;
    });
  }

  /** Lets go of `holder`'s claims on `ids` once it is done with them (their attempts recorded). */
  unclaim(holder: string, ids: readonly number[]): Promise<void> {
    return this.write(async (q) => {
      for (const chunk of chunksOf(ids)) {
        const claims = { claimed_by: null, claimed_until: null };
        await q.updateTable("jobs").set(claims).where("id", "in", chunk).where("claimed_by", "=", holder).execute();
      }
    });
  }

  private async stateValue(name: string): Promise<string | null> {
    const row = await this.query((q) =>
      q.selectFrom("store_state").select("value").where("name", "=", name).executeTakeFirst(),
    );
    return row?.value ?? null;
  }

  private async setState(name: string, value: string): Promise<void> {
    await this.write((q) =>
      q
        .insertInto("store_state")
        .values({ name, value, until: null })
        .onConflict((conflict) => conflict.column("name").doUpdateSet({ value }))
        .execute(),
    );
  }

  /** When the last whole retention run started (privacy/retention.ts): remembered in the store, for every process. */
  async lastRetentionAt(): Promise<Date | null> {
    const value = await this.stateValue(STATE.retention);
    return value === null ? null : new Date(value);
  }

  recordRetention(at: Date): Promise<void> {
    return this.setState(STATE.retention, at.toISOString());
  }

  /**
   * Writes as much as an inquiry takes and waits until it is durable: rejects when the store cannot take an inquiry
   * now (a full disk, a database that refuses writes). Random, so that no engine compresses it away.
   */
  probe(): Promise<void> {
    return this.setState(STATE.probe, randomBytes((PROBE_BYTES * 3) / 4).toString("base64"));
  }

  heldSummary(): Promise<HeldSummary> {
    return this.query((q) => InquiryOutbox.held(q));
  }

  /** The last day (YYYY-MM-DD) whose digest was decided on, made or not; null before the first. */
  lastDigestDay(): Promise<string | null> {
    return this.stateValue(STATE.digestDay);
  }

  /**
   * Decides the digest of `day`, once: every inquiry held now that no digest has listed is listed in a new digest for
   * `transports`, and the day is recorded; null when none is made (no held inquiry is new, the day was decided on
   * before, or no transport is given). The day, the digest's job and the inquiries it lists in one transaction. The day is taken by an upsert
   * that only moves it on: of two runs at once, one makes the digest and the other finds the day taken.
   */
  async takeDigest(day: string, at: Date, transports: readonly TransportName[]): Promise<HeldDigest | null> {
    if (transports.length === 0) return null;
    return this.write(async (q) => {
      const taken = await q
        .insertInto("store_state")
        .values({ name: STATE.digestDay, value: day, until: null })
        .onConflict((conflict) =>
          conflict.column("name").doUpdateSet({ value: day }).where("store_state.value", "<", day),
        )
        .returning("name")
        .executeTakeFirst();
      if (!taken) return null;
      const held = await inquiryJobs(q, NO_ATTEMPT_LIMIT, (rows) =>
        rows.where("jobs.state", "=", HELD).where("inquiries.listed_in", "is", null).orderBy("inquiries.received_at"),
      );
      const references = held.map(({ entry }) => entry.record.reference);
      if (references.length === 0) return null;
      const digest: HeldDigest = { id: day, createdAt: at.toISOString(), references, transports: [...transports] };
      const payload = JSON.stringify({ references, transports: digest.transports });
      const job = { kind: "digest" as const, subject: day, state: "open" as const, created_at: digest.createdAt };
      await q
        .insertInto("jobs")
        .values({ ...job, due_at: digest.createdAt, payload })
        .execute();
      for (const chunk of chunksOf(references)) {
        await q.updateTable("inquiries").set({ listed_in: day }).where("reference", "in", chunk).execute();
      }
      return digest;
    });
  }

  /** The digests not yet delivered through every transport (pending or dead), oldest first: where each stands. */
  openDigests(maxAttempts: number): Promise<DigestEntry[]> {
    return this.query(async (q) => {
      // Sorted here: ordered in SQL by day, the planner would walk every job's day to spare sorting a few.
      const rows = await jobRows(q).where("jobs.kind", "=", "digest").where("jobs.state", "=", OPEN).execute();
      const digests = (await jobEntriesOf(q, rows, maxAttempts)).flatMap((found) =>
        found.kind === "digest" ? [found.entry] : [],
      );
      return digests.sort((a, b) => a.digest.id.localeCompare(b.digest.id));
    });
  }

  /**
   * Takes in inquiries from elsewhere in one transaction, each with its attempts, release and mark to keep:
   * one already here gains only what it lacks, so taking in the same ones again changes nothing. Says how
   * many inquiries and attempts were new.
   */
  absorb({ records, attempts = [], releases = [], kept = [] }: AbsorbedInquiries) {
    return this.write(async (q) => {
      const counts = { inquiries: 0, attempts: 0 };
      const attemptsOf = attemptsByReference(attempts);
      const releasedAt = new Map(releases.map((release) => [release.reference, release.at]));
      const keptOnes = new Set(kept);
      const historyOf = (reference: string): ArrivingHistory => ({
        attempts: attemptsOf.get(reference) ?? [],
        releasedAt: releasedAt.get(reference) ?? null,
        kept: keptOnes.has(reference),
      });
      for (const chunk of chunksOf(records)) {
        // The new ones are written whole, a chunk at a time: their inquiries, jobs and attempts.
        const inserted = await q
          .insertInto("inquiries")
          .values(chunk.map((record) => inquiryRow(record, historyOf(record.reference))))
          .onConflict((conflict) => conflict.doNothing())
          .returning("reference")
          .execute();
        // Each inserted reference's first record in the chunk: a later one of the same reference is not new.
        const insertedReferences = new Set(inserted.map((row) => row.reference));
        const fresh = new Map<string, OutboxRecord>();
        for (const record of chunk)
          if (insertedReferences.has(record.reference) && !fresh.has(record.reference))
            fresh.set(record.reference, record);
        const jobs =
          fresh.size === 0
            ? []
            : await q
                .insertInto("jobs")
                .values(
                  [...fresh.values()].map((record) => {
                    const { attempts: tried, releasedAt: released } = historyOf(record.reference);
                    return newInquiryJob(record, tried, released !== null);
                  }),
                )
                .returning(["id", "subject"])
                .execute();
        counts.attempts += await addAttempts(
          q,
          jobs.flatMap((job) => historyOf(job.subject).attempts.map((tried) => attemptRow(job.id, tried))),
        );
        counts.inquiries += fresh.size;
        // One already here (or named twice) gains only what it lacks.
        for (const record of chunk.filter((candidate) => fresh.get(candidate.reference) !== candidate))
          counts.attempts += await this.addHistory(q, record.reference, historyOf(record.reference));
      }
      return counts;
    });
  }

  /** What a stored inquiry lacks of `history`, in the caller's transaction; how many attempts were new. */
  private async addHistory(q: Query, reference: string, history: ArrivingHistory): Promise<number> {
    const job = await this.lockJob(q, "inquiry", reference);
    if (!job) return 0;
    const added = await addAttempts(
      q,
      history.attempts.map((attempt) => attemptRow(job.id, attempt)),
    );
    if (history.releasedAt !== null) await markReleased(q, reference, history.releasedAt);
    if (history.kept) await q.updateTable("inquiries").set({ kept: 1 }).where("reference", "=", reference).execute();
    await refreshJob(q, job.id);
    return added;
  }

  /**
   * A consistent copy of the SQLite database at `destination` while the server goes on writing, readable by
   * this user only; resolves to its pages. Postgres has pg_dump for this.
   */
  async backup(destination: string): Promise<number> {
    if (this.database.engine !== "sqlite") throw new Error(`${this.location} is backed up with pg_dump, not here`);
    if (path.resolve(destination) === path.resolve(this.location))
      throw new Error("a backup cannot replace the database itself");
    await this.database.ready();
    // VACUUM INTO writes only into an empty file, and keeps the mode of the one made here.
    closeSync(openSync(destination, "w", 0o600));
    await sql`VACUUM INTO ${destination}`.execute(this.database.db);
    const { rows } = await sql<{ page_size: number }>`PRAGMA page_size`.execute(this.database.db);
    return Math.ceil(statSync(destination).size / (rows[0]?.page_size ?? 4096));
  }

  /** Closes its connections: a command's end, where an open Postgres pool would keep the process alive. */
  close(): Promise<void> {
    return this.database.close();
  }

  /**
   * Runs `work` while this process alone holds the store's maintenance lock (a retention run), so that no
   * two runs of it overlap; null when another holds it for longer than `waitMs`. Losing the lock while `work` runs
   * is told to `onLost`; `work` goes on to its end, but its lease says it holds the lock no more.
   */
  whileMaintaining<T>(
    work: (lease: MaintenanceLease) => Promise<T>,
    waitMs = 0,
    onLost: (error: Error) => void = () => undefined,
  ): Promise<{ value: T } | null> {
    return whileHoldingPassLock(this.database, this.options, work, waitMs, onLost);
  }
}
