import { createReadStream, promises as fs } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import type { DeliveryAttempt, OutboxRecord, QuarantineRelease } from "./outbox";
import type { SqliteOutbox } from "./sqlite-outbox";

/** The files of the outbox that came before the database: one JSON line per item, appended and synced. */
export const FILE_OUTBOX_FILES = {
  inquiries: "inquiries.ndjson",
  deliveries: "deliveries.ndjson",
  releases: "releases.ndjson",
} as const;
/** The folder proper-lockfile kept the old outbox's delivery lock in. */
const OLD_LOCK = "delivery.lock";
/** Items written to the database per transaction. */
const BATCH = 1_000;

export interface ImportReport {
  /** Inquiries found in the files, and how many of them the database did not hold yet. */
  readonly inquiries: number;
  readonly added: number;
  readonly attempts: number;
  readonly releases: number;
  /** Lines that were not whole items (a crash in the middle of a write leaves one): reported, skipped. */
  readonly damagedLines: number;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;
const isRecord = (value: unknown): value is OutboxRecord =>
  isObject(value) &&
  typeof value.reference === "string" &&
  typeof value.receivedAt === "string" &&
  Array.isArray(value.transports) &&
  isObject(value.replyTo) &&
  typeof value.replyTo.address === "string";
const isAttempt = (value: unknown): value is DeliveryAttempt =>
  isObject(value) &&
  typeof value.reference === "string" &&
  typeof value.transport === "string" &&
  typeof value.ok === "boolean" &&
  typeof value.at === "string";
const isRelease = (value: unknown): value is QuarantineRelease =>
  isObject(value) && typeof value.reference === "string" && typeof value.at === "string";

/**
 * The whole items of one file, `BATCH` at a time, read as a stream so that a large file is never in
 * memory at once. Resolves to how many lines were damaged; a missing file has none.
 */
const eachBatch = async <T>(
  file: string,
  isWhole: (value: unknown) => value is T,
  take: (items: T[]) => Promise<void>,
): Promise<number> => {
  try {
    await fs.access(file);
  } catch {
    return 0;
  }
  let damaged = 0;
  let items: T[] = [];
  const lines = createInterface({ input: createReadStream(file, "utf8"), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      damaged += 1;
      continue;
    }
    if (!isWhole(value)) {
      damaged += 1;
      continue;
    }
    items.push(value);
    if (items.length >= BATCH) {
      await take(items);
      items = [];
    }
  }
  if (items.length > 0) await take(items);
  return damaged;
};

/**
 * Imports the file outbox in `dir` (from before the database) into `outbox`, once: the inquiries, then
 * their attempts and releases. Anything the database already holds is left as it is, so an import cut
 * short (the server killed in the middle) is simply run again at the next start. Once every inquiry
 * read from the files is found in the database, the files are removed, so that no copy outlives a
 * retention or an erasure. Null when there is nothing to import.
 */
export const importFileOutbox = async (dir: string, outbox: SqliteOutbox): Promise<ImportReport | null> => {
  const files = Object.values(FILE_OUTBOX_FILES).map((name) => path.join(dir, name));
  const present = await Promise.all(
    files.map((file) =>
      fs.access(file).then(
        () => true,
        () => false,
      ),
    ),
  );
  if (!present.some(Boolean)) return null;
  const [inquiriesFile = "", deliveriesFile = "", releasesFile = ""] = files;

  let inquiries = 0;
  let added = 0;
  let attempts = 0;
  let releases = 0;
  let missing = 0;
  const inquiryDamage = await eachBatch(inquiriesFile, isRecord, async (records) => {
    inquiries += records.length;
    added += await outbox.absorb({ records });
    // Verified batch by batch, so that no list of every reference is kept.
    const held = outbox.holds(records.map((record) => record.reference));
    missing += records.filter((record) => !held.has(record.reference)).length;
  });
  const attemptDamage = await eachBatch(deliveriesFile, isAttempt, async (batch) => {
    attempts += batch.length;
    await outbox.absorb({ attempts: batch });
  });
  const releaseDamage = await eachBatch(releasesFile, isRelease, async (batch) => {
    releases += batch.length;
    await outbox.absorb({ releases: batch });
  });
  if (missing > 0) throw new Error(`${missing} inquiries of the files were not found in the database after the import`);

  for (const file of files) await fs.rm(file, { force: true });
  await fs.rm(path.join(dir, OLD_LOCK), { recursive: true, force: true });
  const handle = await fs.open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  return { inquiries, added, attempts, releases, damagedLines: inquiryDamage + attemptDamage + releaseDamage };
};
