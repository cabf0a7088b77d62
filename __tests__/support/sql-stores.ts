import type { StoreDatabase } from "../../server/inquiries/store/database";
import { openPostgresStore } from "../../server/inquiries/store/postgres";
import type { PassLockOptions } from "../../server/inquiries/store/pass-lock";
import { InquiryOutbox } from "../../server/inquiries/store/sql-outbox";
import { openSqliteStore } from "../../server/inquiries/store/sqlite";
import { startPostgres, type TestPostgres } from "../../testing/postgres";

/** The SQL store's engines, by the names the suites give their kinds. */
export const SQL_SQLITE = "SQL on SQLite";
export const SQL_POSTGRES = "SQL on Postgres";

export interface SqlStores {
  /**
   * Registers, inside a suite's describe, an empty Postgres database for each of its tests when `kind` is
   * the Postgres one (a suite of another kind makes none).
   */
  databasePerTest(kind: string): void;
  /** The test's database of `kind` (SQLite's in `dir`), opened afresh as another process would open it. */
  database(kind: string, dir: string): StoreDatabase;
  /** The same, as an outbox. */
  outbox(kind: string, dir: string, options?: PassLockOptions): InquiryOutbox;
  /** The test's Postgres database's connection string. */
  readonly postgresUrl: string;
}

/**
 * The SQL store on both engines for a test file: a Postgres server for the file (started on first need,
 * stopped at the end), and every database a test opened closed after it.
 */
export const useSqlStores = (): SqlStores => {
  let server: Promise<TestPostgres> | null = null;
  let url: string | null = null;
  const opened: StoreDatabase[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((database) => database.close()));
    url = null;
  });
  afterAll(async () => {
    await (await server)?.stop();
  }, 60_000);
  const track = (database: StoreDatabase) => {
    opened.push(database);
    return database;
  };
  const stores: SqlStores = {
    databasePerTest(kind) {
      if (kind !== SQL_POSTGRES) return;
      beforeEach(async () => {
        server ??= startPostgres();
        url = await (await server).database();
      }, 120_000);
    },
    database(kind, dir) {
      if (kind === SQL_SQLITE) return track(openSqliteStore(dir));
      if (url === null) throw new Error(`no Postgres database for this test: call databasePerTest("${kind}")`);
      return track(openPostgresStore({ connectionString: url }));
    },
    outbox: (kind, dir, options) => new InquiryOutbox(stores.database(kind, dir), options),
    get postgresUrl() {
      if (url === null) throw new Error("no Postgres database for this test");
      return url;
    },
  };
  return stores;
};
