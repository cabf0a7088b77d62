-- Written by `npm run migrations` from server/inquiries/store/schema.ts: change it there.
CREATE TABLE inquiries (
  position INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  reference TEXT COLLATE "C" NOT NULL UNIQUE,
  received_at TEXT COLLATE "C" NOT NULL,
  email TEXT COLLATE "C" NOT NULL,
  idempotency_key TEXT COLLATE "C" UNIQUE,
  record TEXT COLLATE "C" NOT NULL,
  released_at TEXT COLLATE "C",
  kept INTEGER NOT NULL DEFAULT 0,
  listed_in TEXT COLLATE "C"
);
CREATE INDEX inquiries_by_sender ON inquiries (email, received_at);
CREATE INDEX inquiries_by_arrival ON inquiries (received_at);
CREATE TABLE jobs (
  id INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind TEXT COLLATE "C" NOT NULL CHECK (kind IN ('inquiry', 'digest')),
  subject TEXT COLLATE "C" NOT NULL,
  state TEXT COLLATE "C" NOT NULL CHECK (state IN ('held', 'open', 'done')),
  created_at TEXT COLLATE "C" NOT NULL,
  due_at TEXT COLLATE "C",
  tries INTEGER NOT NULL DEFAULT 0,
  payload TEXT COLLATE "C",
  claimed_by TEXT COLLATE "C",
  claimed_until TEXT COLLATE "C",
  UNIQUE (subject, kind)
);
CREATE INDEX jobs_open_by_due ON jobs (due_at) WHERE state = 'open';
CREATE INDEX jobs_held_by_age ON jobs (created_at) WHERE state = 'held';
CREATE VIEW held_count AS SELECT 1 AS id, CAST(count(*) AS INTEGER) AS count FROM jobs WHERE state = 'held';
CREATE TABLE attempts (
  id INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  job INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  transport TEXT COLLATE "C" NOT NULL,
  ok INTEGER NOT NULL CHECK (ok IN (0, 1)),
  at TEXT COLLATE "C" NOT NULL,
  detail TEXT COLLATE "C",
  retry_at TEXT COLLATE "C",
  UNIQUE (job, transport, at)
);
CREATE TABLE store_state (
  name TEXT COLLATE "C" PRIMARY KEY,
  value TEXT COLLATE "C" NOT NULL,
  until TEXT COLLATE "C"
);
