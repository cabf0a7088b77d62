import { sql } from "kysely";
import { OPEN, refreshJob, type Query } from "./jobs";
import { MIGRATIONS, STATE, type JobKind } from "./schema";

/**
 * The single server's SQLite layouts before this store, in `PRAGMA user_version`: 1 (or 0, unrecorded) and 2
 * (the digest of held inquiries), dumped in __tests__/fixtures/legacy-sqlite/. This store's versions go on
 * from there, so a release that reads only those refuses the new layout rather than misreading it.
 */
export const LEGACY_VERSIONS = 2;

/** The tables of that layout that hold nothing the new one needs once copied. */
const LEGACY_TABLES = ["legacy_inquiries", "legacy_attempts", "phase_counts", "leases", "health"];
const LEGACY_DIGEST_TABLES = ["digests", "digest_attempts", "digest_day"];

interface LegacyLayout {
  /** Version 2: digests, their attempts, the last digest day, and the digest that listed each inquiry. */
  readonly digests: boolean;
}

const tablesOf = async (trx: Query): Promise<Set<string>> =>
  new Set(
    (await sql<{ name: string }>`SELECT name FROM sqlite_schema WHERE type = 'table'`.execute(trx)).rows.map(
      (row) => row.name,
    ),
  );

/**
 * The layout version 1 or 2 left in this file, or null for a new file or one of this store's; refuses
 * (through `refuse`) a version later than this code writes.
 */
export const legacySqliteLayout = async (
  trx: Query,
  refuse: (found: number) => Error,
): Promise<LegacyLayout | null> => {
  const { rows } = await sql<{ user_version: number }>`PRAGMA user_version`.execute(trx);
  const version = rows[0]?.user_version ?? 0;
  if (version > LEGACY_VERSIONS + MIGRATIONS.length) throw refuse(version);
  const tables = await tablesOf(trx);
  if (version > LEGACY_VERSIONS || !tables.has("phase_counts")) return null;
  return { digests: tables.has("digests") };
};

/** Renames the tables of version 1 or 2 whose names the new layout takes, before its migrations run. */
export const setAsideLegacyTables = async (trx: Query): Promise<void> => {
  await sql`ALTER TABLE inquiries RENAME TO legacy_inquiries`.execute(trx);
  await sql`ALTER TABLE attempts RENAME TO legacy_attempts`.execute(trx);
};

/** Version 1 or 2's attempts, in the order they were made, each under its message's job (named by `subject`). */
const attemptsFrom = (table: string, kind: JobKind, subject: string) =>
  sql`INSERT INTO attempts (job, transport, ok, at, detail, retry_at)
    SELECT jobs.id, old.transport, old.ok, old.at, old.detail, old.retry_at
    FROM ${sql.table(table)} AS old JOIN jobs ON jobs.kind = ${sql.lit(kind)} AND jobs.subject = ${sql.ref(`old.${subject}`)}
    ORDER BY old.rowid`;

/**
 * Copies everything version 1 or 2 stored into the first migration's tables, inside the migration's
 * transaction: each inquiry at its old position (so paging goes on where it was), with its release, its mark
 * to keep, its digest, and every attempt in order; each digest with its attempts; the last digest day. Then
 * drops the old tables, whose bytes secure_delete overwrites. Its statements name the first migration's
 * columns, so it runs before any later migration, and refileLegacyJobs after the last.
 */
export const fromLegacySqlite = async (trx: Query, { digests }: LegacyLayout): Promise<void> => {
  const listedIn = digests ? sql.raw("digest") : sql.raw("NULL");
  const statements = [
    sql`INSERT INTO inquiries (position, reference, received_at, email, idempotency_key, record, released_at, kept, listed_in)
      SELECT rowid, reference, received_at, email, idempotency_key, record, released_at, kept, ${listedIn}
      FROM legacy_inquiries ORDER BY rowid`,
    sql`INSERT INTO jobs (kind, subject, state, created_at, due_at)
      SELECT 'inquiry', reference, phase, received_at, due_at FROM legacy_inquiries ORDER BY rowid`,
    attemptsFrom("legacy_attempts", "inquiry", "reference"),
    ...(digests
      ? [
          sql`INSERT INTO jobs (kind, subject, state, created_at, payload)
            SELECT 'digest', id, phase, created_at, digest FROM digests ORDER BY id`,
          attemptsFrom("digest_attempts", "digest", "digest"),
          sql`INSERT INTO store_state (name, value) SELECT ${STATE.digestDay}, day FROM digest_day`,
        ]
      : []),
  ];
  for (const statement of statements) await statement.execute(trx);
  for (const table of [...LEGACY_TABLES, ...(digests ? LEGACY_DIGEST_TABLES : [])]) {
    await sql`DROP TABLE ${sql.table(table)}`.execute(trx);
  }
};

/**
 * Files every open job of a copied store again from its attempts (which also files as held an inquiry version 1
 * judged automated while no transport was configured), with the queries of the schema every migration made.
 */
export const refileLegacyJobs = async (trx: Query): Promise<void> => {
  for (const { id } of await trx.selectFrom("jobs").select("id").where("state", "=", OPEN).execute()) {
    await refreshJob(trx, id);
  }
};
