import { sql, type Kysely, type Selectable } from "kysely";
import type { TransportName } from "../config";
import {
  digestEntryOf,
  entryOf,
  type DeliveryAttempt,
  type DigestEntry,
  type HeldDigest,
  type OutboxEntry,
  type OutboxRecord,
} from "./outbox";
import type { AttemptOutcome } from "../delivery/deliver";
import type { AttemptRow, JobState, Tables } from "./schema";

export type Query = Kysely<Tables>;

interface Found {
  readonly id: number;
  readonly row: JobWithInquiry;
  /** Every attempt of its message, oldest first. */
  readonly attempts: readonly AttemptOutcome[];
}
/** A job with where its message stands: an inquiry or a digest. */
export type JobEntry =
  | (Found & { readonly kind: "inquiry"; readonly entry: OutboxEntry })
  | (Found & { readonly kind: "digest"; readonly entry: DigestEntry });

/**
 * The attempt limit for a reading that files or lists jobs rather than deciding what to deliver: no transport is
 * ever dead under it. Only the delivery passes and the operator's listing apply the limit in force, which the
 * operator may change, so a job's row never stores whether it is dead.
 */
export const NO_ATTEMPT_LIMIT = Number.POSITIVE_INFINITY;

/** Job states written into the SQL, not bound: a partial index serves only a query whose condition it can read. */
export const OPEN = sql.lit<JobState>("open");
export const HELD = sql.lit<JobState>("held");

/** How many values one `IN` list holds: well under either engine's limit on parameters. */
const CHUNK = 500;

export const chunksOf = <T>(items: readonly T[]): T[][] =>
  Array.from({ length: Math.ceil(items.length / CHUNK) }, (_, index) =>
    items.slice(index * CHUNK, (index + 1) * CHUNK),
  );

const outcomeOf = (row: Selectable<AttemptRow>): AttemptOutcome => ({
  transport: row.transport as TransportName,
  ok: row.ok === 1,
  at: row.at,
  ...(row.detail === null ? {} : { detail: row.detail }),
  ...(row.retry_at === null ? {} : { retryAt: row.retry_at }),
});

export const attemptRow = (job: number, outcome: AttemptOutcome) => ({
  job,
  transport: outcome.transport,
  ok: outcome.ok ? 1 : 0,
  at: outcome.at,
  detail: outcome.detail ?? null,
  retry_at: outcome.retryAt ?? null,
});

/** Every attempt of each of `jobs`, oldest first. */
const attemptsOf = async (q: Query, jobs: readonly number[]): Promise<Map<number, AttemptOutcome[]>> => {
  const byJob = new Map<number, AttemptOutcome[]>();
  for (const chunk of chunksOf(jobs)) {
    const rows = await q.selectFrom("attempts").selectAll().where("job", "in", chunk).orderBy("id").execute();
    for (const row of rows) byJob.set(row.job, [...(byJob.get(row.job) ?? []), outcomeOf(row)]);
  }
  return byJob;
};

/** Jobs with the inquiry each is of (none for a digest's). */
export const jobRows = (q: Query) =>
  q
    .selectFrom("jobs")
    .leftJoin("inquiries", (join) =>
      join.on("jobs.kind", "=", "inquiry").onRef("inquiries.reference", "=", "jobs.subject"),
    )
    .selectAll("jobs")
    .select(["inquiries.position", "inquiries.record", "inquiries.released_at", "inquiries.kept"]);
export type JobRows = ReturnType<typeof jobRows>;
type JobWithInquiry = Awaited<ReturnType<JobRows["executeTakeFirstOrThrow"]>>;

/** Where the message of each of `rows` stands, from its attempts (and an inquiry's record and release). */
export const jobEntriesOf = async (q: Query, rows: readonly JobWithInquiry[], maxAttempts: number) => {
  const attempts = await attemptsOf(
    q,
    rows.map((row) => row.id),
  );
  return rows.flatMap((row): JobEntry[] => {
    const tried = attempts.get(row.id) ?? [];
    if (row.kind === "digest") {
      const { references, transports } = JSON.parse(row.payload ?? "{}") as Pick<
        HeldDigest,
        "references" | "transports"
      >;
      const digest = { id: row.subject, createdAt: row.created_at, references, transports };
      const entry = digestEntryOf(
        digest,
        tried.map((outcome) => ({ digest: row.subject, ...outcome })),
        maxAttempts,
      );
      return [{ id: row.id, kind: "digest", entry, row, attempts: tried }];
    }
    if (row.record === null) return [];
    const record = JSON.parse(row.record) as OutboxRecord;
    const withReference = tried.map((outcome) => ({ reference: row.subject, ...outcome }));
    const entry = entryOf(record, withReference, row.released_at !== null, maxAttempts);
    return [{ id: row.id, kind: "inquiry", entry, row, attempts: tried }];
  });
};

export type InquiryJob = Extract<JobEntry, { kind: "inquiry" }>;

/** The inquiries `where` picks with where each stands, in arrival order unless it orders them. */
export const inquiryJobs = async (
  q: Query,
  maxAttempts: number,
  where: (rows: JobRows) => JobRows,
): Promise<InquiryJob[]> => {
  const rows = await where(jobRows(q).where("jobs.kind", "=", "inquiry"))
    .orderBy("inquiries.position")
    .execute();
  return (await jobEntriesOf(q, rows, maxAttempts)).flatMap((found) => (found.kind === "inquiry" ? [found] : []));
};

/** The job state a message in `state` is filed under (pending, dead and stored ones are all open). */
export const jobStateOf = (state: string): JobState =>
  state === "quarantined" ? "held" : state === "delivered" ? "done" : "open";

/**
 * What a job's row keeps of its message's standing, with no attempt limit: held, done or open; when it is
 * next due; and the fewest failures of a transport it still needs, which the limit in force is held to.
 */
const standingOf = (entry: Pick<OutboxEntry, "deliveries" | "attemptsByTransport" | "dueAt"> & { state: string }) => {
  const state = jobStateOf(entry.state);
  const needed = (Object.keys(entry.deliveries) as TransportName[])
    .filter((transport) => entry.deliveries[transport] !== "delivered")
    .map((transport) => entry.attemptsByTransport[transport] ?? 0);
  return { state, due_at: entry.dueAt, tries: needed.length > 0 ? Math.min(...needed) : 0 };
};

/** The row of a new inquiry's job, with the attempts and release it arrives with (from another store). */
export const newInquiryJob = (record: OutboxRecord, tried: readonly DeliveryAttempt[] = [], released = false) => ({
  kind: "inquiry" as const,
  subject: record.reference,
  created_at: record.receivedAt,
  ...standingOf(entryOf(record, tried, released, NO_ATTEMPT_LIMIT)),
});

/** Files a job again from its message and every attempt: after an attempt, a release, or a migration. */
export const refreshJob = async (q: Query, id: number): Promise<void> => {
  const [found] = await jobEntriesOf(q, await jobRows(q).where("jobs.id", "=", id).execute(), NO_ATTEMPT_LIMIT);
  if (found) await q.updateTable("jobs").set(standingOf(found.entry)).where("id", "=", id).execute();
};
