import { promises as fs } from "node:fs";
import path from "node:path";
import lockfile from "proper-lockfile";
import type { TransportName } from "./config";
import { processWide } from "./process-wide";
import type { InquiryValues } from "../values";

/** One accepted inquiry, as stored before any delivery is tried and as every transport sends it. */
export interface OutboxRecord {
  readonly reference: string;
  readonly receivedAt: string;
  /** The transports configured when it arrived; it is pending until each has delivered it. */
  readonly transports: readonly TransportName[];
  readonly subject: string;
  /** The visitor's address only: no mail header carries a name the visitor typed. */
  readonly replyTo: { readonly address: string };
  /** The answers with the labels the visitor saw, in form order, empty ones left out. */
  readonly fields: readonly { readonly name: string; readonly label: string; readonly value: string }[];
  readonly values: InquiryValues;
  /** The key the page sent with it: a repeat with the same key is this inquiry again, not a new one. */
  readonly idempotencyKey?: string;
  /** Why it looked automated: such an inquiry is kept, but delivered only once someone releases it. */
  readonly quarantine?: { readonly reason: string };
}

/** One delivery attempt; the outbox never rewrites a line, it appends what happened. */
export interface DeliveryAttempt {
  readonly reference: string;
  readonly transport: TransportName;
  readonly ok: boolean;
  readonly at: string;
  /** Why it failed, without anything the visitor wrote. */
  readonly detail?: string;
  /** After a failure: when the next attempt is due (the backoff, with its jitter, fixed when it failed). */
  readonly retryAt?: string;
}

/** A quarantined inquiry that someone has looked at and let through to delivery. */
export interface QuarantineRelease {
  readonly reference: string;
  readonly at: string;
}

export type TransportState = "delivered" | "failed" | "not tried" | "dead";

/**
 * Where an inquiry stands: delivered through every transport; pending (a delivery is due now or later);
 * dead (a transport failed as often as it may: it waits for someone to retry it by hand); quarantined
 * (looked automated, waits for someone to release it); stored (no transport was configured).
 */
export type EntryState = "delivered" | "pending" | "dead" | "quarantined" | "stored";

export interface OutboxEntry {
  readonly record: OutboxRecord;
  readonly deliveries: Readonly<Partial<Record<TransportName, TransportState>>>;
  readonly attempts: number;
  /** Attempts per transport, which the backoff grows with. */
  readonly attemptsByTransport: Readonly<Partial<Record<TransportName, number>>>;
  readonly state: EntryState;
  readonly released: boolean;
  /** For a pending inquiry, when its next delivery is due (ISO time; now or earlier means at once). */
  readonly dueAt: string | null;
}

export class DuplicateReferenceError extends Error {}

const INQUIRIES_FILE = "inquiries.ndjson";
const DELIVERIES_FILE = "deliveries.ndjson";
const RELEASES_FILE = "releases.ndjson";
const DELIVERY_LOCK = "delivery";

interface PendingLine {
  readonly line: string;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}
interface FileState {
  /**
   * Lines waiting for the next write. One write at a time per file, so a line is never written while
   * another is half-written; the lines that arrived meanwhile go in the next write together, with one
   * sync for all of them (a group commit), so 200 inquiries at once wait for a few syncs, not 200.
   */
  pending: PendingLine[];
  writing: boolean;
}
interface RecordIndex {
  readonly references: Set<string>;
  /** Idempotency key → reference, including inquiries still being written. */
  readonly keys: Map<string, Promise<string>>;
}
interface OutboxState {
  files: Map<string, FileState>;
  indexes: Map<string, Promise<RecordIndex>>;
}

const processState = (): OutboxState =>
  processWide<OutboxState>("inquiry-outbox", () => ({ files: new Map(), indexes: new Map() }));

const endsWithNewline = async (handle: fs.FileHandle): Promise<boolean> => {
  const { size } = await handle.stat();
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  return last[0] === 0x0a;
};

const exists = async (file: string): Promise<boolean> => {
  try {
    await fs.stat(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
};

/** Flushes a folder's entries, so a file just created in it survives a power cut. */
const syncFolder = async (dir: string): Promise<void> => {
  const handle = await fs.open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
};

/**
 * Appends one line and waits until it is on disk (and, for a new file, its name in the folder too);
 * a line torn by an earlier crash is closed off first.
 */
const appendDurably = async (file: string, line: string): Promise<void> => {
  const created = !(await exists(file));
  const handle = await fs.open(file, "a+", 0o600);
  try {
    const text = (await endsWithNewline(handle)) ? line : `\n${line}`;
    await handle.appendFile(text, "utf8");
    await handle.datasync();
  } finally {
    await handle.close();
  }
  if (created) await syncFolder(path.dirname(file));
};

export interface OutboxContents {
  readonly records: readonly OutboxRecord[];
  readonly attempts: readonly DeliveryAttempt[];
  readonly releases: readonly QuarantineRelease[];
  /** Lines that are not whole JSON records: only a crash in the middle of a write leaves one. */
  readonly damagedLines: number;
}

/** Each whole JSON line of one file. The outbox wrote every line itself, so callers say what each one holds. */
const readLines = async (file: string): Promise<{ items: unknown[]; damaged: number }> => {
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { items: [], damaged: 0 };
    throw error;
  }
  const items: unknown[] = [];
  let damaged = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      items.push(JSON.parse(line));
    } catch {
      damaged += 1;
    }
  }
  return { items, damaged };
};

const latest = (times: readonly string[]): string | null =>
  times.reduce<string | null>((found, time) => (found === null || time > found ? time : found), null);

/** Where one inquiry stands, from its record and every line written about it since. */
const entryOf = (
  record: OutboxRecord,
  tried: readonly DeliveryAttempt[],
  released: boolean,
  maxAttempts: number,
): OutboxEntry => {
  const deliveries: Partial<Record<TransportName, TransportState>> = {};
  const attemptsByTransport: Partial<Record<TransportName, number>> = {};
  const dueTimes: string[] = [];
  for (const transport of record.transports) {
    const mine = tried.filter((attempt) => attempt.transport === transport);
    attemptsByTransport[transport] = mine.length;
    if (mine.some((attempt) => attempt.ok)) deliveries[transport] = "delivered";
    else if (mine.length === 0) {
      deliveries[transport] = "not tried";
      dueTimes.push(record.receivedAt);
    } else if (mine.length >= maxAttempts) deliveries[transport] = "dead";
    else {
      deliveries[transport] = "failed";
      dueTimes.push(latest(mine.map((attempt) => attempt.retryAt ?? attempt.at)) ?? record.receivedAt);
    }
  }
  const states = record.transports.map((transport) => deliveries[transport]);
  const quarantined = Boolean(record.quarantine) && !released;
  const state: EntryState =
    record.transports.length === 0
      ? "stored"
      : quarantined
        ? "quarantined"
        : states.every((value) => value === "delivered")
          ? "delivered"
          : states.includes("dead") && dueTimes.length === 0
            ? "dead"
            : "pending";
  return {
    record,
    deliveries,
    attempts: tried.length,
    attemptsByTransport,
    state,
    released,
    // The earliest transport due decides; the others are tried in the same pass.
    dueAt: state === "pending" ? (dueTimes.sort()[0] ?? null) : null,
  };
};

export interface AddResult {
  readonly reference: string;
  /** False when the idempotency key was seen before: nothing new was stored. */
  readonly created: boolean;
}

/** Every inquiry of `contents` with where it stands, in the order of its records. */
export const entriesOf = (
  { records, attempts, releases }: Pick<OutboxContents, "records" | "attempts" | "releases">,
  maxAttempts: number,
): OutboxEntry[] => {
  const byReference = new Map<string, DeliveryAttempt[]>();
  for (const attempt of attempts) {
    const list = byReference.get(attempt.reference) ?? [];
    list.push(attempt);
    byReference.set(attempt.reference, list);
  }
  const released = new Set(releases.map((release) => release.reference));
  return records.map((record) =>
    entryOf(record, byReference.get(record.reference) ?? [], released.has(record.reference), maxAttempts),
  );
};

/** What a delivery run may still do while it holds the outbox's delivery lock. */
export interface DeliveryLease {
  /**
   * Whether a delivery started now ends before the lock can pass to another process. False once the lock
   * is lost, or (for a lease that expires) too close to its expiry: the run then starts no more.
   */
  mayStart(): boolean;
}

/**
 * Which inquiries `entries` must return: all of them, or at least every one that may be due for delivery.
 * With "open" a store may leave out those it knows to be delivered, and those held in quarantine (which
 * it then counts in `heldUnread`), so that a delivery pass does not read the whole history.
 */
export type EntryScope = "all" | "open";

export interface OutboxEntries {
  readonly entries: OutboxEntry[];
  readonly damagedLines: number;
  /** Quarantined inquiries left out, unread, of an "open" listing. */
  readonly heldUnread?: number;
}

/**
 * An append-only store of inquiries and what became of them, whichever medium holds it: the file outbox
 * below (one server's disk) or BlobsOutbox (a Netlify Blobs store, for the CDN deploy).
 */
export interface InquiryOutbox {
  /** Where it is, in words for an operator: a folder, or a store of a site. */
  readonly location: string;
  /**
   * Stores an accepted inquiry and resolves once it is durable. An inquiry whose idempotency key was
   * stored before (or is being stored now) is not stored again: the first one's reference comes back.
   * A reference the outbox already holds is refused with DuplicateReferenceError.
   */
  add(record: OutboxRecord): Promise<AddResult>;
  recordAttempt(attempt: DeliveryAttempt): Promise<void>;
  release(reference: string, at?: Date): Promise<void>;
  read(): Promise<OutboxContents>;
  /** Every inquiry (in the scope) with where it stands, oldest first. */
  entries(maxAttempts: number, scope?: EntryScope): Promise<OutboxEntries>;
  /** One inquiry with where it stands; null when the outbox has no such reference. */
  entry(reference: string, maxAttempts: number): Promise<OutboxEntry | null>;
  /**
   * Runs `work` while this process alone may deliver from this outbox, so that no inquiry is delivered
   * twice at once. Resolves to null when another process holds the lock for longer than `waitMs`.
   * Losing the lock while `work` runs is told to `onLost`; `work` goes on to its end, but the lease it
   * was given says no more deliveries may start.
   */
  whileDelivering<T>(
    work: (lease: DeliveryLease) => Promise<T>,
    waitMs?: number,
    onLost?: (error: Error) => void,
  ): Promise<{ value: T } | null>;
}

export interface OutboxOptions {
  /** How often the delivery lock is refreshed while it is held (at least 1 s); 5 s by default. */
  readonly lockUpdateMs?: number;
}

/**
 * The outbox as NDJSON files in one folder, each line synced to disk before the call that wrote it
 * returns. One process writes; others (the `npm run inquiries` command) read, and deliver only while
 * holding the delivery lock.
 */
export class Outbox implements InquiryOutbox {
  readonly inquiriesFile: string;
  readonly deliveriesFile: string;
  readonly releasesFile: string;

  constructor(
    readonly dir: string,
    private readonly options: OutboxOptions = {},
  ) {
    this.inquiriesFile = path.join(dir, INQUIRIES_FILE);
    this.deliveriesFile = path.join(dir, DELIVERIES_FILE);
    this.releasesFile = path.join(dir, RELEASES_FILE);
  }

  get location(): string {
    return this.dir;
  }

  private async ensureFolder(): Promise<void> {
    const parent = path.dirname(this.dir);
    const created = !(await exists(this.dir));
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    if (created) await syncFolder(parent);
  }

  private enqueue(file: string, line: string): Promise<void> {
    const { files } = processState();
    let state = files.get(file);
    if (!state) {
      state = { pending: [], writing: false };
      files.set(file, state);
    }
    const written = new Promise<void>((resolve, reject) => state.pending.push({ line, resolve, reject }));
    if (!state.writing) void this.writeBatches(file, state);
    return written;
  }

  /** Writes what is pending, batch after batch, until nothing is; a failed batch fails each of its lines. */
  private async writeBatches(file: string, state: FileState): Promise<void> {
    state.writing = true;
    try {
      while (state.pending.length > 0) {
        const batch = state.pending.splice(0);
        try {
          await this.ensureFolder();
          await appendDurably(file, batch.map((pending) => pending.line).join(""));
          for (const pending of batch) pending.resolve();
        } catch (error) {
          for (const pending of batch) pending.reject(error);
        }
      }
    } finally {
      state.writing = false;
    }
  }

  private index(): Promise<RecordIndex> {
    const { indexes } = processState();
    let index = indexes.get(this.inquiriesFile);
    if (!index) {
      index = readLines(this.inquiriesFile).then(({ items }) => {
        const records = items as OutboxRecord[];
        return {
          references: new Set(records.map((item) => item.reference)),
          keys: new Map(
            records.flatMap((item) => (item.idempotencyKey ? [[item.idempotencyKey, Promise.resolve(item.reference)]] : [])),
          ),
        };
      });
      indexes.set(this.inquiriesFile, index);
      index.catch(() => indexes.delete(this.inquiriesFile));
    }
    return index;
  }

  /** Resolves once the inquiry is on disk (see InquiryOutbox.add). */
  async add(record: OutboxRecord): Promise<AddResult> {
    const { references, keys } = await this.index();
    const key = record.idempotencyKey;
    const earlier = key ? keys.get(key) : undefined;
    if (earlier) return { reference: await earlier, created: false };
    if (references.has(record.reference)) throw new DuplicateReferenceError(record.reference);
    references.add(record.reference);
    const written = this.enqueue(this.inquiriesFile, `${JSON.stringify(record)}\n`).then(() => record.reference);
    if (key) keys.set(key, written);
    try {
      await written;
    } catch (error) {
      references.delete(record.reference);
      if (key) keys.delete(key);
      throw error;
    }
    return { reference: record.reference, created: true };
  }

  async recordAttempt(attempt: DeliveryAttempt): Promise<void> {
    await this.enqueue(this.deliveriesFile, `${JSON.stringify(attempt)}\n`);
  }

  async release(reference: string, at: Date = new Date()): Promise<void> {
    await this.enqueue(this.releasesFile, `${JSON.stringify({ reference, at: at.toISOString() })}\n`);
  }

  async read(): Promise<OutboxContents> {
    const [records, attempts, releases] = await Promise.all([
      readLines(this.inquiriesFile),
      readLines(this.deliveriesFile),
      readLines(this.releasesFile),
    ]);
    return {
      records: records.items as OutboxRecord[],
      attempts: attempts.items as DeliveryAttempt[],
      releases: releases.items as QuarantineRelease[],
      damagedLines: records.damaged + attempts.damaged + releases.damaged,
    };
  }

  /** Every inquiry, whatever the scope: the files are read whole anyway. */
  async entries(maxAttempts: number): Promise<OutboxEntries> {
    const contents = await this.read();
    return { entries: entriesOf(contents, maxAttempts), damagedLines: contents.damagedLines };
  }

  async entry(reference: string, maxAttempts: number): Promise<OutboxEntry | null> {
    const { entries } = await this.entries(maxAttempts);
    return entries.find((candidate) => candidate.record.reference === reference) ?? null;
  }

  /**
   * The server's worker and any number of `npm run inquiries -- --retry` runs take turns through a
   * lock file (proper-lockfile). A lock left by a process that died is taken over once it is stale.
   *
   * A lock can be lost while it is held (its folder removed, or taken over as stale after the process
   * stalled): `onLost` hears of it and the work goes on to its end. proper-lockfile's default would
   * throw from a timer, which ends the process: the whole site, for a lock.
   */
  async whileDelivering<T>(
    work: (lease: DeliveryLease) => Promise<T>,
    waitMs = 0,
    onLost: (error: Error) => void = () => undefined,
  ): Promise<{ value: T } | null> {
    await this.ensureFolder();
    let unlock: () => Promise<void>;
    // Set by proper-lockfile from a timer while `work` runs.
    const lock = { lost: false };
    try {
      unlock = await lockfile.lock(path.join(this.dir, DELIVERY_LOCK), {
        realpath: false,
        stale: 30_000,
        update: this.options.lockUpdateMs ?? 5_000,
        retries: waitMs > 0 ? { retries: Math.ceil(waitMs / 250), minTimeout: 250, maxTimeout: 250 } : 0,
        onCompromised: (error) => {
          lock.lost = true;
          onLost(error);
        },
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ELOCKED") return null;
      throw error;
    }
    try {
      return { value: await work({ mayStart: () => !lock.lost }) };
    } finally {
      // A lost lock is no longer ours to remove (another process may hold it now).
      if (!lock.lost) await unlock();
    }
  }
}
