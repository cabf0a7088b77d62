import { closeSync, existsSync, fsyncSync, mkdirSync, openSync } from "node:fs";
import path from "node:path";
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import {
  CompiledQuery,
  Kysely,
  SqliteDialect,
  SqliteDriver,
  sql,
  type DatabaseConnection,
  type Driver,
  type SqliteDatabase,
  type SqliteDialectConfig,
} from "kysely";
import { processWide } from "../process-wide";
import { StoreDatabase } from "./database";
import type { PassLockOptions } from "./pass-lock";
import { InquiryOutbox } from "./sql-outbox";
import type { Tables } from "./schema";

/** The database in INQUIRY_DATA_DIR; SQLite keeps its -wal and -shm files beside it. */
export const DATABASE_FILE = "inquiries.sqlite";

/**
 * How long a statement waits for another process's write (the server's worker and `npm run inquiries`
 * share the file) before it fails: a write holds the database for a few milliseconds.
 */
const BUSY_TIMEOUT_MS = 5_000;
/** How many prepared statements a connection keeps: the store's queries are a few dozen texts. */
const STATEMENT_CACHE = 256;

/**
 * node:sqlite's connection in the shape Kysely's SqliteDialect drives: a statement that returns columns is a
 * reader. Each text is prepared once and kept (the least recently used go first), as SQLite's compiling of
 * a statement costs more than running most of the store's.
 */
const kyselyDatabase = (db: DatabaseSync): SqliteDatabase => {
  const prepared = new Map<string, { statement: StatementSync; reader: boolean }>();
  const statementOf = (text: string) => {
    const cached = prepared.get(text);
    if (cached) prepared.delete(text);
    const entry = cached ?? { statement: db.prepare(text), reader: false };
    if (!cached) entry.reader = entry.statement.columns().length > 0;
    prepared.set(text, entry);
    const oldest = prepared.keys().next().value;
    if (prepared.size > STATEMENT_CACHE && oldest !== undefined) prepared.delete(oldest);
    return entry;
  };
  const values = (parameters: readonly unknown[]) => parameters as SQLInputValue[];
  return {
    close: () => db.close(),
    prepare: (text) => {
      const { statement, reader } = statementOf(text);
      return {
        reader,
        all: (parameters) => statement.all(...values(parameters)),
        run: (parameters) => statement.run(...values(parameters)),
        // A statement of its own: an iteration left open must not be reset by the same text run meanwhile.
        iterate: (parameters) => db.prepare(text).iterate(...values(parameters)),
      };
    },
  };
};

/**
 * Kysely's SQLite dialect with every transaction immediate: each of the store's transactions writes, and
 * one that began deferred and then wrote could fail at once where another process held the lock, instead
 * of waiting out the busy timeout.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }

  override createDriver(): Driver {
    return new (class extends SqliteDriver {
      override async beginTransaction(connection: DatabaseConnection): Promise<void> {
        await connection.executeQuery(CompiledQuery.raw("BEGIN IMMEDIATE"));
      }
    })(this.settings);
  }
}

const syncFolder = (dir: string) => {
  const handle = openSync(dir, "r");
  try {
    fsyncSync(handle);
  } finally {
    closeSync(handle);
  }
};

/**
 * Opens (creating if need be) the database file: readable by this user only; WAL, so readers never wait
 * for the writer; synchronous=FULL, so a commit is on disk before the call returns (an inquiry is durable
 * before its 201); secure_delete, so a removed inquiry's bytes are overwritten rather than left in free pages.
 */
const openFile = (file: string): DatabaseSync => {
  const dir = path.dirname(file);
  const folderIsNew = !existsSync(dir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!existsSync(file)) {
    // SQLite gives its -wal and -shm files the database's mode.
    closeSync(openSync(file, "a", 0o600));
    syncFolder(dir);
    if (folderIsNew) syncFolder(path.dirname(dir));
  }
  const db = new DatabaseSync(file, { timeout: BUSY_TIMEOUT_MS });
  try {
    db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA secure_delete = ON");
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
};

/** Each file's connection in this process, and how many open stores use it. */
const connections = () =>
  processWide("inquiry-sql-store", () => new Map<string, { db: Kysely<Tables>; users: number }>());

/**
 * The single server's store: DATABASE_FILE in `dir`, opened at its first query (a folder that cannot be
 * made fails each call until it can). One connection per file in a process, shared by all who open it:
 * Kysely runs one transaction at a time on it, where two connections of one thread would wait on each
 * other's lock with the thread blocked. It is closed when the last store that uses it is.
 */
export const openSqliteStore = (dir: string): StoreDatabase => {
  const file = path.join(dir, DATABASE_FILE);
  const shared = connections();
  const connection = shared.get(file) ?? {
    db: new Kysely<Tables>({
      dialect: new ImmediateSqliteDialect({ database: () => Promise.resolve(kyselyDatabase(openFile(file))) }),
    }),
    users: 0,
  };
  connection.users += 1;
  shared.set(file, connection);
  let closed = false;
  return new StoreDatabase("sqlite", file, connection.db, {
    migrate: true,
    // Copies the WAL into the database and empties it, so that removed rows survive in neither file.
    afterRemoval: async (db) => {
      await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      connection.users -= 1;
      if (connection.users > 0) return;
      shared.delete(file);
      await connection.db.destroy();
    },
  });
};

/** The single server's store in `dir` as an outbox: what the operator's tools and benches open directly. */
export const openSqliteOutbox = (dir: string, options?: PassLockOptions): InquiryOutbox =>
  new InquiryOutbox(openSqliteStore(dir), options);
