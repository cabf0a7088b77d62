import type { InquiryConfig } from "../config";
import { processWide } from "../process-wide";
import { openPostgresStore } from "./postgres";
import { InquiryOutbox } from "./sql-outbox";
import { openSqliteStore } from "./sqlite";

/** The SQL store this configuration names: SQLite in its data folder, or a Postgres (by URL, or Netlify's). */
export const openOutbox = (config: InquiryConfig): InquiryOutbox => {
  const key = config.outbox === "postgres" ? `postgres ${config.databaseUrl ?? "netlify"}` : config.dataDir;
  // One per database in a process: each request asks for it, and a Postgres pool per request would leak connections.
  const opened = processWide("inquiry-outbox", () => new Map<string, InquiryOutbox>());
  const existing = opened.get(key);
  if (existing) return existing;
  const database =
    config.outbox === "postgres"
      ? openPostgresStore(config.databaseUrl === null ? {} : { connectionString: config.databaseUrl })
      : openSqliteStore(config.dataDir);
  const outbox = new InquiryOutbox(database);
  opened.set(key, outbox);
  return outbox;
};
