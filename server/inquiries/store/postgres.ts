import { Kysely, PostgresDialect, type PostgresPool } from "kysely";
import { StoreDatabase } from "./database";
import type { Tables } from "./schema";

/** A connection string's host and database, for messages: never its user or password. */
const placeOf = (connectionString: string): string => {
  try {
    const url = new URL(connectionString);
    const host = url.host !== "" ? url.host : (url.searchParams.get("host") ?? "localhost");
    return `Postgres database ${url.pathname.slice(1)} on ${host}`;
  } catch {
    return "Postgres database";
  }
};

/**
 * The store in Postgres. Without a connection string it is Netlify Database's, which @netlify/database
 * finds in the deploy's environment (and which Netlify migrates on deploy from netlify/database/migrations/,
 * so `migrate` is false there); with one, any Postgres, which the store's own runner migrates. The driver
 * is loaded at the first query, so that a server on SQLite never loads it.
 */
export const openPostgresStore = ({
  connectionString,
  migrate = connectionString !== undefined,
}: { readonly connectionString?: string; readonly migrate?: boolean } = {}): StoreDatabase => {
  const pool = async (): Promise<PostgresPool> => {
    const { getDatabase } = await import("@netlify/database");
    // pg's Pool, or on Netlify's serverless driver Neon's, which speaks the same interface.
    const { pool: made } = getDatabase(connectionString === undefined ? {} : { connectionString });
    // An idle connection the server ended (a restart, a failover) is dropped by the pool, and the next query
    // opens another; an 'error' event no one listens to would end the process instead.
    made.on("error", () => undefined);
    return made as PostgresPool;
  };
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  const location = connectionString === undefined ? "Netlify Database" : placeOf(connectionString);
  return new StoreDatabase("postgres", location, db, { migrate });
};
