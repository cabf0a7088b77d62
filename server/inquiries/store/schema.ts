import type { Generated } from "kysely";

/** The two engines the store runs on: SQLite on one server, Postgres on Netlify or wherever a URL points. */
export type Engine = "sqlite" | "postgres";

/**
 * The few words in which the engines' table definitions differ; everything else in a migration is the same
 * text on both. Text is compared byte by byte on both (SQLite's default), so ISO times sort as times
 * whatever collation a Postgres database was made with; SQLite's tables are STRICT, so a value of the
 * wrong type is refused as Postgres refuses it.
 */
const WORDS: Readonly<Record<Engine, { readonly id: string; readonly text: string; readonly end: string }>> = {
  sqlite: { id: "INTEGER PRIMARY KEY", text: "TEXT", end: " STRICT" },
  postgres: { id: "INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY", text: 'TEXT COLLATE "C"', end: "" },
};

/**
 * `held_count`, the number of held jobs, read on every delivery pass and health check. On SQLite, whose
 * queries run on the server's event loop, a row that triggers keep, so that the read does not cost more as
 * quarantined inquiries pile up (SQLite's writers take turns anyway). On Postgres, whose queries run on the
 * database server, a view counting them through their partial index: a counter row there would make every
 * held arrival, release and removal wait for one another, and could deadlock them. Each trigger is on one
 * line, as statementsOf reads a semicolon that ends a line as the end of a statement.
 */
const HELD_COUNT: Readonly<Record<Engine, string>> = {
  sqlite: `CREATE TABLE held_count (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  count INTEGER NOT NULL
) STRICT;
INSERT INTO held_count (id, count) VALUES (1, 0);
CREATE TRIGGER held_counted_insert AFTER INSERT ON jobs WHEN NEW.state = 'held' BEGIN UPDATE held_count SET count = count + 1; END;
CREATE TRIGGER held_counted_delete AFTER DELETE ON jobs WHEN OLD.state = 'held' BEGIN UPDATE held_count SET count = count - 1; END;
CREATE TRIGGER held_counted_update AFTER UPDATE OF state ON jobs WHEN (OLD.state = 'held') <> (NEW.state = 'held') BEGIN UPDATE held_count SET count = count + (NEW.state = 'held') - (OLD.state = 'held'); END;
`,
  postgres: `CREATE VIEW held_count AS SELECT 1 AS id, CAST(count(*) AS INTEGER) AS count FROM jobs WHERE state = 'held';
`,
};

/*
 * One row per inquiry in `inquiries`, its record as the JSON it arrived as; `email` is the sender's address
 * lower-cased (export and erasure on request, retention by last contact); `listed_in` names the digest that
 * listed it while held.
 *
 * `jobs` is the one queue: a job per inquiry and per daily digest of held inquiries. `state` is 'held'
 * (an inquiry in quarantine, waiting for a release), 'open' (not yet delivered through every transport)
 * or 'done'. For an open job, `due_at` is when its next delivery is due (null: an inquiry stored while no
 * transport was configured) and `tries` the fewest failed attempts of a transport it still needs: it is
 * dead once that reaches the attempt limit, which the operator may change, so that is decided when read.
 * A run claims a job by writing itself and the end of its lease into `claimed_by` and `claimed_until`.
 * A digest's references and transports are its `payload`.
 *
 * `held_count` has one row, the number of held jobs (see HELD_COUNT).
 *
 * `attempts` holds every delivery attempt of a job, never rewritten. `store_state` holds the few single
 * values: the last digest day, the last retention run, the maintenance lock, the health probe.
 */
const inquiryStore = (engine: Engine): string => {
  const { id, text, end } = WORDS[engine];
  return `CREATE TABLE inquiries (
  position ${id},
  reference ${text} NOT NULL UNIQUE,
  received_at ${text} NOT NULL,
  email ${text} NOT NULL,
  idempotency_key ${text} UNIQUE,
  record ${text} NOT NULL,
  released_at ${text},
  kept INTEGER NOT NULL DEFAULT 0,
  listed_in ${text}
)${end};
CREATE INDEX inquiries_by_sender ON inquiries (email, received_at);
CREATE INDEX inquiries_by_arrival ON inquiries (received_at);
CREATE TABLE jobs (
  id ${id},
  kind ${text} NOT NULL CHECK (kind IN ('inquiry', 'digest')),
  subject ${text} NOT NULL,
  state ${text} NOT NULL CHECK (state IN ('held', 'open', 'done')),
  created_at ${text} NOT NULL,
  due_at ${text},
  tries INTEGER NOT NULL DEFAULT 0,
  payload ${text},
  claimed_by ${text},
  claimed_until ${text},
  UNIQUE (subject, kind)
)${end};
CREATE INDEX jobs_open_by_due ON jobs (due_at) WHERE state = 'open';
CREATE INDEX jobs_held_by_age ON jobs (created_at) WHERE state = 'held';
${HELD_COUNT[engine]}CREATE TABLE attempts (
  id ${id},
  job INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  transport ${text} NOT NULL,
  ok INTEGER NOT NULL CHECK (ok IN (0, 1)),
  at ${text} NOT NULL,
  detail ${text},
  retry_at ${text},
  UNIQUE (job, transport, at)
)${end};
CREATE TABLE store_state (
  name ${text} PRIMARY KEY,
  value ${text} NOT NULL,
  until ${text}
)${end};
`;
};

/**
 * Every version of the schema, oldest first: the one source of both engines' statements. Postgres's are
 * also written out as netlify/database/migrations/<name>.sql, which Netlify applies on deploy (a test keeps
 * them equal); elsewhere the store's own runner applies them. A change of schema appends a migration here, and
 * never edits a shipped one: its steps are in docs/architecture.md ("Changing the inquiry store's schema").
 */
export const MIGRATIONS: readonly { readonly name: string; readonly sql: (engine: Engine) => string }[] = [
  { name: "0001_inquiry_store", sql: inquiryStore },
];

/** Netlify's migrations folder, and what heads each file written there. */
const NETLIFY_MIGRATIONS = "netlify/database/migrations";
const WRITTEN_BY = "-- Written by `npm run migrations` from server/inquiries/store/schema.ts: change it there.\n";

/** The Postgres migrations as Netlify reads them, one `<number>_<slug>.sql` file each, by path from the project. */
export const netlifyMigrationFiles = (): { readonly path: string; readonly text: string }[] =>
  MIGRATIONS.map(({ name, sql }) => ({
    path: `${NETLIFY_MIGRATIONS}/${name}.sql`,
    text: WRITTEN_BY + sql("postgres"),
  }));

/** The names of `store_state`'s rows. */
export const STATE = {
  digestDay: "digest-day",
  retention: "retention-at",
  // The maintenance lock's row keeps the name stores already hold it under.
  maintenanceLock: "delivery-run",
  probe: "probe",
} as const;

/** A migration's statements one by one: each ends a line with a semicolon, and none holds one inside. */
export const statementsOf = (sql: string): string[] =>
  sql
    .split(/;\s*$/m)
    .map((statement) => statement.trim())
    .filter((statement) => statement.length > 0);

interface InquiryRow {
  position: Generated<number>;
  reference: string;
  received_at: string;
  email: string;
  idempotency_key: string | null;
  record: string;
  released_at: string | null;
  kept: Generated<number>;
  listed_in: string | null;
}

export type JobKind = "inquiry" | "digest";
export type JobState = "held" | "open" | "done";

interface JobRow {
  id: Generated<number>;
  kind: JobKind;
  subject: string;
  state: JobState;
  created_at: string;
  due_at: string | null;
  tries: Generated<number>;
  payload: string | null;
  claimed_by: string | null;
  claimed_until: string | null;
}

export interface AttemptRow {
  id: Generated<number>;
  job: number;
  transport: string;
  ok: number;
  at: string;
  detail: string | null;
  retry_at: string | null;
}

interface HeldCountRow {
  id: number;
  count: number;
}

interface StateRow {
  name: string;
  value: string;
  until: string | null;
}

/** The tables as Kysely types its queries. */
export interface Tables {
  inquiries: InquiryRow;
  jobs: JobRow;
  attempts: AttemptRow;
  store_state: StateRow;
  held_count: HeldCountRow;
  store_migrations: { name: string; applied_at: string };
}
