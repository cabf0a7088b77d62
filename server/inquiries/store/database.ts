import { sql, type Kysely, type SelectQueryBuilder } from "kysely";
import { UnknownLayoutError } from "./outbox";
import {
  fromLegacySqlite,
  LEGACY_VERSIONS,
  legacySqliteLayout,
  refileLegacyJobs,
  setAsideLegacyTables,
} from "./legacy-sqlite";
import { MIGRATIONS, statementsOf, type Engine, type Tables } from "./schema";

/** Serialises the runners of several processes that open one Postgres database at once. */
const MIGRATION_LOCK = 4_902_417;

/** How an engine's connection is opened and looked after; what differs between them beyond the SQL. */
interface EngineHooks {
  /** After rows were removed: leaves nothing of them in the engine's files (SQLite's WAL), where it can. */
  readonly afterRemoval?: (db: Kysely<Tables>) => Promise<void>;
  /** Brings the schema up to date with the store's own runner; false where the platform applies migrations. */
  readonly migrate: boolean;
  /** Closes the engine's connections, where that is more than closing Kysely's (a shared SQLite connection). */
  readonly close?: () => Promise<void>;
}

/**
 * An opened database of inquiries, on either engine. Its schema is brought up to date before its first
 * query (`ready`), not when it is opened, so that opening never fails: a database that cannot be reached
 * fails each call until it can.
 */
export class StoreDatabase {
  private settled: Promise<void> | null = null;

  constructor(
    readonly engine: Engine,
    /** Where it is, in words for an operator: a file, or a Postgres host and database (never a password). */
    readonly location: string,
    readonly db: Kysely<Tables>,
    private readonly hooks: EngineHooks,
  ) {}

  ready(): Promise<void> {
    this.settled ??= (this.hooks.migrate ? migrate(this) : Promise.resolve()).catch((error: unknown) => {
      this.settled = null;
      throw error;
    });
    return this.settled;
  }

  async afterRemoval(): Promise<void> {
    await this.hooks.afterRemoval?.(this.db);
  }

  close(): Promise<void> {
    return this.hooks.close ? this.hooks.close() : this.db.destroy();
  }

  /**
   * A query that reads rows a write transaction will change, locked on Postgres (skipping those another
   * transaction holds, if asked); SQLite's write transaction already holds the whole database.
   */
  locking<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>, skipLocked = false) {
    if (this.engine === "sqlite") return query;
    return skipLocked ? query.forUpdate().skipLocked() : query.forUpdate();
  }
}

/**
 * Applies every migration the database lacks, in one transaction, recording each in `store_migrations`;
 * refuses, before anything is written, a database that records a migration this code does not know (a
 * later release's). An SQLite file of layout version 1 or 2 (legacy-sqlite.ts) is carried over into the first
 * migration's tables in the same transaction, so that it is either wholly migrated or untouched.
 */
const migrate = async ({ engine, location, db }: StoreDatabase): Promise<void> => {
  const known = MIGRATIONS.map((migration) => migration.name);
  // SQLite's layout versions go on from versions 1 and 2 (LEGACY_VERSIONS); Postgres's start at 1.
  const offset = engine === "sqlite" ? LEGACY_VERSIONS : 0;
  const refuse = (found: number) => new UnknownLayoutError(location, String(found), offset + known.length);
  await db.transaction().execute(async (trx) => {
    if (engine === "postgres") await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx);
    const legacy = engine === "sqlite" ? await legacySqliteLayout(trx, refuse) : null;
    await sql`CREATE TABLE IF NOT EXISTS store_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`.execute(
      trx,
    );
    const applied = (await trx.selectFrom("store_migrations").select("name").execute()).map((row) => row.name);
    if (applied.some((name) => !known.includes(name))) throw refuse(offset + applied.length);
    if (applied.length === known.length) return;
    if (legacy) await setAsideLegacyTables(trx);
    for (const migration of MIGRATIONS.filter(({ name }) => !applied.includes(name))) {
      for (const statement of statementsOf(migration.sql(engine))) await sql.raw(statement).execute(trx);
      await trx
        .insertInto("store_migrations")
        .values({ name: migration.name, applied_at: new Date().toISOString() })
        .execute();
      // Into the first migration's tables, whose columns the copy names: every later migration, a backfill
      // included, then runs over the carried inquiries as over any store's.
      if (legacy && migration === MIGRATIONS[0]) await fromLegacySqlite(trx, legacy);
    }
    if (legacy) await refileLegacyJobs(trx);
    if (engine === "sqlite") await sql.raw(`PRAGMA user_version = ${offset + known.length}`).execute(trx);
  });
};
