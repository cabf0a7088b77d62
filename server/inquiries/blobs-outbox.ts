import { createHash, randomBytes } from "node:crypto";
import { BlobsLease, type LeaseTiming } from "./blobs-lease";
import type { BlobsStore } from "./blobs-store";
import {
  DuplicateReferenceError,
  entriesOf,
  type AddResult,
  type DeliveryAttempt,
  type DeliveryLease,
  type EntryScope,
  type InquiryOutbox,
  type OutboxContents,
  type OutboxEntries,
  type OutboxEntry,
  type OutboxPage,
  type OutboxRecord,
  type PageRequest,
  type QuarantineRelease,
  type RemovedCounts,
  type RetainingOutbox,
  type RetentionRecord,
  type StoredInquiry,
  retentionCutoffs,
  senderAddressKey,
  UnknownReferenceError,
} from "./outbox";
import type { RetentionPolicy } from "./config";
import { processWide } from "./process-wide";

/*
 * The keys of the store, each blob written once and never changed (the lease aside):
 *   inquiries/<reference>             the inquiry, exactly as the file outbox keeps it
 *   keys/<idempotency key>            the inquiry that claimed the key (the whole record: see add)
 *   attempts/<shard>/<reference>/<time>-...   one delivery attempt
 *   releases/<shard>/<reference>/<time>-...   a quarantined inquiry let through
 *   open/<reference>                  a mark that it may still need delivering: the only inquiries a delivery
 *                                     pass reads. Written before the inquiry itself, removed once delivered.
 *   quarantined/<reference>           a mark that it is held in quarantine: counted, unread, until released
 *   meta/open-index                   written once every open inquiry has its open/ mark (see ensureOpenIndex)
 *   delivered/<reference>             (stores from before open/) a mark that every transport has it
 *   lease/delivery                    the delivery lock (blobs-lease.ts)
 *   health/probe                      the time of the last health check (rewritten by each)
 * and, written with the open or held mark, before the inquiry, so that none is ever stored without them:
 *   received/<day>/<time>-<reference> every inquiry by the day it arrived: the listing's pages, oldest first
 *   expiry/<day>/<reference>          retention's queue, by the day of the sender's last contact: a run
 *                                     lists only the days past their time, and empties them (an inquiry
 *                                     whose sender wrote again moves to that later day)
 *   held/<day>/<reference>            suspected spam's queue, by the day it arrived (emptied likewise)
 *   senders/<shard>/<sha-256 of the address>/<time>-<reference>   a person's inquiries, for an export or an erasure
 *   kept/<reference>                  marked by an operator: never removed by retention
 *   meta/retention                    when the last whole retention run ended (the scheduled run's daily turn)
 *   meta/retention-index              written once every inquiry has the keys above (see ensureRetentionIndex)
 *   meta/sharded-layout               written once no attempt, release or sender folder is left unsharded
 *                                     (see ensureShardedLayout)
 * A <shard> is two hex digits of the SHA-256 of the folder's name (the reference, or the address's hash):
 * 256 folders, so that a listing of one inquiry's attempts, or of one person's inquiries, never has to pass
 * over a folder per inquiry or per person ever stored. Netlify answers a prefix listing from an index, but
 * the local Blobs server (what the tests and the bench measure) walks the folders beside the prefix, and
 * under attempts/<reference>/ a store of 100,000 inquiries made every pass read 100,000 folders.
 */
const INQUIRIES = "inquiries/";
const KEYS = "keys/";
const ATTEMPTS = "attempts/";
const RELEASES = "releases/";
const DELIVERED = "delivered/";
const QUARANTINED = "quarantined/";
const OPEN = "open/";
const OPEN_INDEX = "meta/open-index";
/** An open mark whose inquiry is still missing after this long belongs to a write that died: it is removed. */
const ORPHAN_MARK_MS = 60 * 60 * 1000;
const RECEIVED = "received/";
const EXPIRY = "expiry/";
const HELD = "held/";
const SENDERS = "senders/";
const KEPT = "kept/";
/** Exported for bench/blobs-scale.ts, which removes it to make the day's retention due. */
export const RETENTION_RUN = "meta/retention";
const RETENTION_INDEX = "meta/retention-index";
const SHARDED_LAYOUT = "meta/sharded-layout";
/** A shard's folder name (see the list of keys above), told apart from an unsharded folder's reference or hash. */
const SHARD_NAME = /^[0-9a-f]{2}$/;
const LEASE_KEY = "lease/delivery";
/** Written by a health check: the store takes a write as an inquiry's would be taken. */
const PROBE_KEY = "health/probe";

/** Blobs read at once; a store holds hundreds or thousands of small blobs. */
const READ_CONCURRENCY = 16;

export interface BlobsOutboxOptions {
  /** The longest one delivery attempt may take: a delivery starts only with at least that much lease left. */
  readonly attemptTimeoutMs: number;
  /**
   * The lease's timing (tests shorten it): by default it lasts 2 min, is renewed every 30 s, and a
   * delivery starts only with one attempt and 15 s to spare (for recording it, and for clocks that disagree).
   */
  readonly lease?: Partial<LeaseTiming>;
}

interface BlobsProcessState {
  /** Idempotency key → the add under way for it, so that repeats in this process wait for it. */
  readonly adding: Map<string, Promise<AddResult>>;
  /** Stores whose lease a run in this process holds. */
  readonly delivering: Set<string>;
}

const processState = () =>
  processWide<BlobsProcessState>("inquiry-blobs-outbox", () => ({ adding: new Map(), delivering: new Set() }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `task` over `items`, at most `limit` at a time, results in the order of `items`. */
const mapLimited = async <T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> => {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await task(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
};

/** A time as the digits of its ISO form, so that attempt keys sort by time; any other text kept to its letters. */
const keyTime = (at: string) => at.replace(/[^0-9A-Za-z]/g, "");
const uniqueSuffix = () => randomBytes(6).toString("hex");
const isRecord = (record: OutboxRecord) => typeof record.reference === "string" && Array.isArray(record.transports);
const isAttempt = (attempt: DeliveryAttempt) =>
  typeof attempt.reference === "string" && typeof attempt.transport === "string";
const isRelease = (release: QuarantineRelease) => typeof release.reference === "string";
const referenceOf = (key: string, prefix: string) => key.slice(prefix.length).split("/")[0] ?? "";
/** What follows a key's last "/": the reference of a by-day key, the `<time>-<reference>` of a timed one. */
const lastSegment = (key: string) => key.slice(key.lastIndexOf("/") + 1);
/** The reference at the end of a `<time>-<reference>` key (a time as keyTime gives it has no "-"). */
const timedReferenceOf = (key: string) => {
  const last = lastSegment(key);
  return last.slice(last.indexOf("-") + 1);
};
/** The folder a key is filed in, by name: the reference of an attempt or a release, the hash of a sender. */
const folderNameOf = (key: string) => key.split("/").slice(-2)[0] ?? "";
/** Whether an attempt, release or sender key is in its shard's folder (`<prefix>/<shard>/<name>/<leaf>`). */
const isShardedKey = (key: string) => {
  const segments = key.split("/");
  return segments.length === 4 && SHARD_NAME.test(segments[1] ?? "");
};
/** What a key stands for in either layout: its folder's name and its own. */
const identityOf = (key: string) => `${folderNameOf(key)}/${lastSegment(key)}`;
/**
 * Attempt or release keys, each once, in the order given: one being moved to its shard shows in both
 * places for a moment, and the shard's copy (the one that stays) is kept.
 */
const onceEach = (keys: readonly string[]): string[] => {
  const sharded = new Set(keys.filter(isShardedKey).map(identityOf));
  const seen = new Set<string>();
  return keys.filter((key) => {
    const identity = identityOf(key);
    if (seen.has(identity) || (!isShardedKey(key) && sharded.has(identity))) return false;
    seen.add(identity);
    return true;
  });
};
/** Keys by their last segment, which starts with the time: oldest first in either layout. */
const byTime = (keys: readonly string[]) =>
  [...keys].sort((a, b) => (lastSegment(a) < lastSegment(b) ? -1 : lastSegment(a) > lastSegment(b) ? 1 : 0));
/** A blob's text as it is to be written again: JSON as its value, anything else (damaged) as a string. */
const asStored = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};
/** The time part of a `<time>-<reference>` key. */
const timeOfTimedKey = (key: string) => {
  const last = lastSegment(key);
  return last.slice(0, last.indexOf("-"));
};
/** The day (YYYY-MM-DD, UTC) of an ISO time, or of a time as keyTime gives it. */
const dayOf = (at: string) =>
  at.includes("-") ? at.slice(0, 10) : `${at.slice(0, 4)}-${at.slice(4, 6)}-${at.slice(6, 8)}`;
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
/** A person's address as the store's keys name it: hashed, so that no listing shows it. */
const senderOf = (address: string) => sha256(senderAddressKey(address));
/** The folder under `prefix` that holds what is filed under `name` (a reference, an address's hash). */
const shardedFolder = (prefix: string, name: string) => `${prefix}${sha256(name).slice(0, 2)}/${name}/`;
/** The same folder as stores from before the shards have it. */
const unshardedFolder = (prefix: string, name: string) => `${prefix}${name}/`;
/** Where an unsharded key goes in its shard's folder. */
const shardedKeyOf = (key: string) =>
  shardedFolder(`${key.slice(0, key.indexOf("/"))}/`, folderNameOf(key)) + lastSegment(key);
/** An attempt's key, but for the random part that append adds (see the list of keys above). */
const attemptKeyOf = (attempt: DeliveryAttempt) =>
  `${shardedFolder(ATTEMPTS, attempt.reference)}${keyTime(attempt.at)}-${attempt.transport}`;

/** The key that files an inquiry under its sender: in its shard, or where a store from before the shards has it. */
const senderKeyOf = (record: OutboxRecord, folderOf = shardedFolder) =>
  `${folderOf(SENDERS, senderOf(record.replyTo.address))}${keyTime(record.receivedAt)}-${record.reference}`;

/** The keys that index an inquiry (see the list of keys above): written before it, removed with it. */
const indexKeysOf = (record: OutboxRecord): string[] => {
  const day = dayOf(record.receivedAt);
  const at = keyTime(record.receivedAt);
  return [
    `${RECEIVED}${day}/${at}-${record.reference}`,
    `${EXPIRY}${day}/${record.reference}`,
    senderKeyOf(record),
    ...(record.quarantine ? [`${HELD}${day}/${record.reference}`] : []),
  ];
};

/**
 * What the store holds for a delivered inquiry, key and value, as this outbox leaves it once every attempt
 * of `attempts` is recorded (its open mark then removed): for a bench that seeds a large store directly.
 */
export const deliveredBlobsOf = (
  record: OutboxRecord,
  attempts: readonly DeliveryAttempt[],
): { key: string; value: unknown }[] => [
  { key: INQUIRIES + record.reference, value: record },
  ...(record.idempotencyKey ? [{ key: KEYS + encodeURIComponent(record.idempotencyKey), value: record }] : []),
  ...indexKeysOf(record).map((key) => ({ key, value: {} })),
  ...attempts.map((attempt) => ({
    key: `${attemptKeyOf(attempt)}-${uniqueSuffix()}`,
    value: attempt,
  })),
];

/** The keys that say a store has its open/ and retention keys and its shards (see ensureOpenIndex and after). */
export const INDEX_MARKERS: readonly string[] = [OPEN_INDEX, RETENTION_INDEX, SHARDED_LAYOUT];

/** Items handled this many at a time by retention, which checks `stopping` between them. */
const RETENTION_CHUNK = 64;

/**
 * The outbox in a Netlify Blobs store, for the CDN deploy: every function instance, the scheduled
 * delivery and `npm run inquiries` share it. Each inquiry is one blob under its reference, written only
 * if new, with strong consistency, before the visitor is answered; what becomes of it is appended as
 * blobs of their own (one per attempt, one per release), never by rewriting a blob.
 */
export class BlobsOutbox implements InquiryOutbox, RetainingOutbox, RetentionRecord {
  readonly location: string;
  private readonly timing: LeaseTiming;
  /** Whether the store's folders are all sharded (see ensureShardedLayout): asked once, then remembered. */
  private shardedOnly: Promise<boolean> | null = null;

  constructor(
    private readonly blobs: BlobsStore,
    options: BlobsOutboxOptions,
  ) {
    this.location = blobs.location;
    this.timing = {
      ttlMs: options.lease?.ttlMs ?? 120_000,
      renewMs: options.lease?.renewMs ?? 30_000,
      marginMs: options.lease?.marginMs ?? options.attemptTimeoutMs + 15_000,
    };
  }

  /**
   * A repeat (same idempotency key) must get the first inquiry's reference, however many arrive at once
   * and in however many function instances. The key is claimed first, with a conditional write that
   * only one of them wins, and the claim holds the whole inquiry; then the inquiry is written under the
   * claimed reference, only if new. A repeat that lost the claim writes the same inquiry there too (a
   * no-op when the winner got there first): if the winner's instance died between its two writes, the
   * inquiry is stored all the same, under the reference the claim promised.
   */
  async add(record: OutboxRecord): Promise<AddResult> {
    const key = record.idempotencyKey;
    if (!key) {
      await this.mark(record);
      const stored = await this.blobs.write(INQUIRIES + record.reference, record, { onlyIfNew: true });
      if (!stored.written) throw new DuplicateReferenceError(record.reference);
      return { reference: record.reference, created: true };
    }
    const { adding } = processState();
    const slot = `${this.blobs.identity}\n${key}`;
    const earlier = adding.get(slot);
    if (earlier) return { reference: (await earlier).reference, created: false };
    const pending = this.addClaimed(record, key);
    adding.set(slot, pending);
    try {
      return await pending;
    } finally {
      adding.delete(slot);
    }
  }

  private async addClaimed(record: OutboxRecord, key: string): Promise<AddResult> {
    // A reference another inquiry already has must not be claimed for this one.
    if ((await this.blobs.get(INQUIRIES + record.reference)) !== null) {
      throw new DuplicateReferenceError(record.reference);
    }
    const claimKey = KEYS + encodeURIComponent(key);
    const claim = await this.blobs.write(claimKey, record, { onlyIfNew: true });
    let claimed = record;
    if (!claim.written) {
      const text = await this.blobs.get(claimKey);
      if (text === null) throw new Error(`the claim of an idempotency key vanished: ${claimKey}`);
      claimed = JSON.parse(text) as OutboxRecord;
    }
    await this.mark(claimed);
    const stored = await this.blobs.write(INQUIRIES + claimed.reference, claimed, { onlyIfNew: true });
    if (!stored.written) {
      const text = await this.blobs.get(INQUIRIES + claimed.reference);
      const existing = text === null ? null : (JSON.parse(text) as OutboxRecord);
      // Only two inquiries drawing the same random reference at the same moment end here.
      if (existing?.idempotencyKey !== key) throw new Error(`${claimed.reference} is held by another inquiry`);
    }
    return { reference: claimed.reference, created: claim.written };
  }

  /**
   * Marks an inquiry, before it is stored, as open (a delivery pass reads it) or held in quarantine
   * (counted, never read, until released). Marked first, so that a writer that dies between the two
   * writes leaves a mark without an inquiry (removed later), never an inquiry no pass will find.
   */
  private async mark(record: OutboxRecord): Promise<void> {
    await Promise.all([
      record.quarantine
        ? this.blobs.write(QUARANTINED + record.reference, { reason: record.quarantine.reason }, { onlyIfNew: true })
        : this.blobs.write(OPEN + record.reference, { at: new Date().toISOString() }, { onlyIfNew: true }),
      ...indexKeysOf(record).map((key) => this.blobs.write(key, {}, { onlyIfNew: true })),
    ]);
  }

  /** Whether the store holds anything: an empty one is, to an operator, most likely the wrong store. */
  async holdsAnything(): Promise<boolean> {
    return this.blobs.holdsAnything();
  }

  async probe(): Promise<void> {
    await this.blobs.write(PROBE_KEY, { at: new Date().toISOString() });
  }

  /** Appends a blob under a new key; a clash of the random part (never expected) just draws again. */
  private async append(prefix: string, value: unknown): Promise<void> {
    for (;;) {
      if ((await this.blobs.write(`${prefix}-${uniqueSuffix()}`, value, { onlyIfNew: true })).written) return;
    }
  }

  async recordAttempt(attempt: DeliveryAttempt): Promise<void> {
    await this.append(attemptKeyOf(attempt), attempt);
  }

  /** Records the release, then moves the inquiry's mark from held to open, for the next pass to read it. */
  async release(reference: string, at: Date = new Date()): Promise<void> {
    const release: QuarantineRelease = { reference, at: at.toISOString() };
    await this.append(`${shardedFolder(RELEASES, reference)}${keyTime(release.at)}`, release);
    await this.blobs.write(OPEN + reference, { at: release.at }, { onlyIfNew: true });
    await this.blobs.delete(QUARANTINED + reference);
  }

  /**
   * The blobs under the given keys, parsed; a key gone meanwhile is skipped. One that is not what this
   * outbox writes there (not JSON, or not of the shape) is counted as damaged and left out: someone
   * writing to the store by hand must not stop every delivery.
   */
  private async readBlobs<T>(
    keys: readonly string[],
    isWhole: (value: T) => boolean,
  ): Promise<{ items: T[]; damaged: number }> {
    return BlobsOutbox.parsed(await mapLimited(keys, READ_CONCURRENCY, (key) => this.blobs.get(key)), isWhole);
  }

  /**
   * Attempts or releases, as readBlobs reads them, each once (onceEach). One listed in its unsharded folder
   * and moved to its shard before it was read (ensureShardedLayout) is read in its shard.
   */
  private async readFiled<T>(
    keys: readonly string[],
    isWhole: (value: T) => boolean,
  ): Promise<{ items: T[]; damaged: number }> {
    const texts = await mapLimited(onceEach(keys), READ_CONCURRENCY, async (key) => {
      const text = await this.blobs.get(key);
      return text === null && !isShardedKey(key) ? this.blobs.get(shardedKeyOf(key)) : text;
    });
    return BlobsOutbox.parsed(texts, isWhole);
  }

  /** Blobs' texts parsed: a text that is null (the blob gone) is skipped, one not of the shape counted as damaged. */
  private static parsed<T>(
    texts: readonly (string | null)[],
    isWhole: (value: T) => boolean,
  ): { items: T[]; damaged: number } {
    const items: T[] = [];
    let damaged = 0;
    for (const text of texts) {
      if (text === null) continue;
      try {
        const value = JSON.parse(text) as T;
        if (typeof value === "object" && value !== null && isWhole(value)) items.push(value);
        else damaged += 1;
      } catch {
        damaged += 1;
      }
    }
    return { items, damaged };
  }

  private async keys(prefix: string): Promise<string[]> {
    return (await this.blobs.list(prefix)).map((blob) => blob.key);
  }

  private isSharded(): Promise<boolean> {
    this.shardedOnly ??= this.blobs.get(SHARDED_LAYOUT).then(
      (marker) => marker !== null,
      (error: unknown) => {
        // A failed look is not an answer: the next read asks again.
        this.shardedOnly = null;
        throw error;
      },
    );
    return this.shardedOnly;
  }

  /**
   * The keys filed under `name` in `prefix`'s folders (an inquiry's attempts or releases, a person's
   * inquiries): its shard's folder and, until the store is sharded whole, its unsharded folder too. The
   * old folder is listed first: a key being moved is written to its shard before it leaves the old folder,
   * so it shows in one listing or both, never in neither. Both copies are returned (an erasure removes
   * both); readers count each once (onceEach), and readFiled reads one moved after it was listed.
   */
  private async filedUnder(prefix: string, name: string): Promise<string[]> {
    if (await this.isSharded()) return this.keys(shardedFolder(prefix, name));
    const unsharded = await this.keys(unshardedFolder(prefix, name));
    return [...(await this.keys(shardedFolder(prefix, name))), ...unsharded];
  }

  /**
   * Moves one key to its shard's folder: written there, then removed from the old folder. An erasure may
   * remove the inquiry while its key is being moved: a copy written after the inquiry is gone is removed
   * again (and remove() looks once more after removing the inquiry), so that no key outlives its inquiry.
   */
  private async moveToShard(prefix: string, key: string): Promise<void> {
    const text = await this.blobs.get(key);
    if (text !== null) {
      const copy = shardedKeyOf(key);
      const { written } = await this.blobs.write(copy, asStored(text), { onlyIfNew: true });
      const reference = prefix === SENDERS ? timedReferenceOf(key) : folderNameOf(key);
      if (written && (await this.blobs.get(INQUIRIES + reference)) === null) await this.blobs.delete(copy);
    }
    await this.blobs.delete(key);
  }

  /**
   * Moves a store written before the shards to them, once: every key in an unsharded attempts/, releases/
   * or senders/ folder is moved to its shard's folder (moveToShard). Until it is done, readers look in
   * both (filedUnder). Cut short by `stopping`, it goes on from what is left at the next run (the
   * scheduled delivery retries every five minutes until a retention run completes); false until no
   * unsharded folder is left. Each run lists the folders under the three prefixes: on a store that was
   * sharded from the start, three short listings, once.
   */
  private async ensureShardedLayout(stopping: () => boolean = () => false): Promise<boolean> {
    if (await this.isSharded()) return true;
    for (const prefix of [ATTEMPTS, RELEASES, SENDERS]) {
      const unsharded = (await this.folderNames(prefix)).filter((name) => !SHARD_NAME.test(name));
      for (let from = 0; from < unsharded.length; from += RETENTION_CHUNK) {
        if (stopping()) return false;
        await mapLimited(unsharded.slice(from, from + RETENTION_CHUNK), READ_CONCURRENCY, async (name) => {
          // Checked per folder too: a sender's folder can hold many keys.
          if (stopping()) return;
          for (const key of await this.keys(unshardedFolder(prefix, name))) await this.moveToShard(prefix, key);
        });
        if (stopping()) return false;
      }
    }
    await this.blobs.write(SHARDED_LAYOUT, { at: new Date().toISOString() }, { onlyIfNew: true });
    this.shardedOnly = Promise.resolve(true);
    return true;
  }

  /** Oldest first, as the file outbox lists them; the store lists keys in no such order. */
  private static byArrival(records: OutboxRecord[]): OutboxRecord[] {
    return records.sort((a, b) => a.receivedAt.localeCompare(b.receivedAt) || a.reference.localeCompare(b.reference));
  }

  async read(): Promise<OutboxContents> {
    const [inquiryKeys, attemptKeys, releaseKeys] = await Promise.all([
      this.keys(INQUIRIES),
      this.keys(ATTEMPTS),
      this.keys(RELEASES),
    ]);
    const records = await this.readBlobs(inquiryKeys, isRecord);
    const attempts = await this.readFiled(attemptKeys, isAttempt);
    const releases = await this.readFiled(releaseKeys, isRelease);
    return {
      records: BlobsOutbox.byArrival(records.items),
      attempts: attempts.items,
      releases: releases.items,
      damagedLines: records.damaged + attempts.damaged + releases.damaged,
    };
  }

  /**
   * A store written before the open/ marks existed gets them once, from a listing of everything (the
   * last time a pass reads the history): every inquiry neither marked delivered nor held unreleased.
   */
  private async ensureOpenIndex(): Promise<void> {
    if ((await this.blobs.get(OPEN_INDEX)) !== null) return;
    const [inquiryKeys, deliveredKeys, heldKeys, releaseKeys] = await Promise.all(
      [INQUIRIES, DELIVERED, QUARANTINED, RELEASES].map((prefix) => this.keys(prefix)),
    );
    const released = new Set((releaseKeys ?? []).map(folderNameOf));
    const closed = new Set([
      ...(deliveredKeys ?? []).map((key) => referenceOf(key, DELIVERED)),
      ...(heldKeys ?? []).map((key) => referenceOf(key, QUARANTINED)).filter((reference) => !released.has(reference)),
    ]);
    const open = (inquiryKeys ?? [])
      .map((key) => referenceOf(key, INQUIRIES))
      .filter((reference) => !closed.has(reference));
    const at = new Date().toISOString();
    await mapLimited(open, READ_CONCURRENCY, (reference) =>
      this.blobs.write(OPEN + reference, { at }, { onlyIfNew: true }),
    );
    await this.blobs.write(OPEN_INDEX, { at }, { onlyIfNew: true });
  }

  /**
   * The inquiries marked open, with what happened to them: what a delivery pass needs, listed from a
   * prefix that delivery empties, so that it costs the open work and not the history. Also how many are
   * held in quarantine (counted from their marks, unread).
   */
  private async readOpen(): Promise<OutboxContents & { heldUnread: number }> {
    await this.ensureOpenIndex();
    const [openMarks, heldKeys] = await Promise.all([this.blobs.list(OPEN), this.keys(QUARANTINED)]);
    const open = openMarks.map((mark) => referenceOf(mark.key, OPEN));
    const [attemptKeys, releaseKeys] = await Promise.all(
      [ATTEMPTS, RELEASES].map(async (prefix) =>
        (await mapLimited(open, READ_CONCURRENCY, (reference) => this.filedUnder(prefix, reference))).flat(),
      ),
    );
    const texts = await mapLimited(open, READ_CONCURRENCY, (reference) => this.blobs.get(INQUIRIES + reference));
    await this.removeOrphanMarks(open.filter((_reference, index) => texts[index] === null));
    // Each inquiry read once: the texts that told the orphans apart are the records.
    const records = BlobsOutbox.parsed(texts, isRecord);
    const attempts = await this.readFiled(attemptKeys ?? [], isAttempt);
    const releases = await this.readFiled(releaseKeys ?? [], isRelease);
    const openSet = new Set(open);
    return {
      records: BlobsOutbox.byArrival(records.items),
      attempts: attempts.items,
      releases: releases.items,
      damagedLines: records.damaged + attempts.damaged + releases.damaged,
      heldUnread: heldKeys.filter((key) => !openSet.has(referenceOf(key, QUARANTINED))).length,
    };
  }

  /** Open marks whose inquiry never arrived (its writer died in between), once old enough to be sure. */
  private async removeOrphanMarks(references: readonly string[]): Promise<void> {
    const marks = await this.readBlobs<{ at: string }>(
      references.map((reference) => OPEN + reference),
      (mark) => typeof mark.at === "string",
    );
    const old = marks.items.flatMap((mark, index) =>
      Date.now() - Date.parse(mark.at) > ORPHAN_MARK_MS ? [references[index] ?? ""] : [],
    );
    await mapLimited(old, READ_CONCURRENCY, (reference) => this.blobs.delete(OPEN + reference));
  }

  /**
   * With scope "open", only the inquiries marked open are read, and those held in quarantine counted.
   * An inquiry found delivered loses its open mark, so the next pass does not list it at all.
   */
  async entries(maxAttempts: number, scope: EntryScope = "all"): Promise<OutboxEntries> {
    const contents: OutboxContents & { heldUnread?: number } =
      scope === "open" ? await this.readOpen() : await this.read();
    const entries = entriesOf(contents, maxAttempts);
    if (scope === "open") {
      const delivered = entries.filter((entry) => entry.state === "delivered");
      await mapLimited(delivered, READ_CONCURRENCY, (entry) => this.blobs.delete(OPEN + entry.record.reference));
    }
    return {
      entries,
      damagedLines: contents.damagedLines,
      ...(contents.heldUnread === undefined ? {} : { heldUnread: contents.heldUnread }),
    };
  }

  async entry(reference: string, maxAttempts: number): Promise<OutboxEntry | null> {
    const [records, attemptKeys, releaseKeys] = await Promise.all([
      this.readBlobs([INQUIRIES + reference], isRecord),
      this.filedUnder(ATTEMPTS, reference),
      this.filedUnder(RELEASES, reference),
    ]);
    const attempts = await this.readFiled(attemptKeys, isAttempt);
    const releases = await this.readFiled(releaseKeys, isRelease);
    const contents = { records: records.items, attempts: attempts.items, releases: releases.items };
    return entriesOf(contents, maxAttempts)[0] ?? null;
  }

  /** The inquiry under `reference`, parsed; null when there is none (or it is not one). */
  private async recordOf(reference: string): Promise<OutboxRecord | null> {
    const { items } = await this.readBlobs([INQUIRIES + reference], isRecord);
    return items[0] ?? null;
  }

  /**
   * One page in arrival order, from the received/ index a day at a time: the days are listed as folders
   * (one entry each), and only the days the page reaches are listed inside.
   */
  async page({ after, limit, maxAttempts, state }: PageRequest): Promise<OutboxPage> {
    await this.ensureRetentionIndex();
    let startKey = "";
    if (after !== null) {
      const record = await this.recordOf(after);
      if (!record) throw new UnknownReferenceError(after);
      startKey = indexKeysOf(record)[0] ?? "";
    }
    const startDay = startKey.slice(RECEIVED.length, RECEIVED.length + 10);
    const days = (await this.folderNames(RECEIVED)).filter((day) => day >= startDay);
    const entries: OutboxEntry[] = [];
    let damagedLines = 0;
    for (const [dayIndex, day] of days.entries()) {
      const keys = (await this.keys(`${RECEIVED}${day}/`)).filter((key) => key > startKey).sort();
      for (let from = 0; from < keys.length; from += limit) {
        const chunk = keys.slice(from, from + limit);
        const found = await mapLimited(chunk, READ_CONCURRENCY, (key) =>
          this.entry(timedReferenceOf(key), maxAttempts),
        );
        for (const [index, entry] of found.entries()) {
          // An index key without its inquiry: one being erased right now, or a damaged blob.
          if (entry === null) damagedLines += 1;
          else if (state === undefined || entry.state === state) entries.push(entry);
          if (entries.length === limit) {
            const more = index < chunk.length - 1 || from + limit < keys.length || dayIndex < days.length - 1;
            return { entries, next: more && entry ? entry.record.reference : null, damagedLines };
          }
        }
      }
    }
    return { entries, next: null, damagedLines };
  }

  /** The folders directly under `prefix`, by name, sorted: the days of a by-day index, oldest first. */
  private async folderNames(prefix: string): Promise<string[]> {
    return (await this.blobs.directories(prefix))
      .map((folder) => folder.slice(prefix.length).replace(/\/$/, ""))
      .filter((day) => day !== "")
      .sort();
  }

  async keep(reference: string): Promise<boolean> {
    if ((await this.blobs.get(INQUIRIES + reference)) === null) return false;
    await this.blobs.write(KEPT + reference, { at: new Date().toISOString() });
    return true;
  }

  async stored(reference: string): Promise<StoredInquiry | null> {
    const [record, attemptKeys, releaseKeys, kept] = await Promise.all([
      this.recordOf(reference),
      this.filedUnder(ATTEMPTS, reference),
      this.filedUnder(RELEASES, reference),
      this.blobs.get(KEPT + reference),
    ]);
    if (!record) return null;
    const attempts = await this.readFiled(byTime(attemptKeys), isAttempt);
    const releases = await this.readFiled(byTime(releaseKeys), isRelease);
    return { record, attempts: attempts.items, releasedAt: releases.items[0]?.at ?? null, kept: kept !== null };
  }

  /** Through the senders/ index: the person's keys only, never a listing of every inquiry. */
  async inquiriesFrom(address: string): Promise<StoredInquiry[]> {
    await this.ensureRetentionIndex();
    const keys = byTime(onceEach(await this.filedUnder(SENDERS, senderOf(address))));
    const found = await mapLimited(keys, READ_CONCURRENCY, (key) => this.stored(timedReferenceOf(key)));
    return found.filter((inquiry): inquiry is StoredInquiry => inquiry !== null);
  }

  async erase(references: readonly string[]): Promise<string[]> {
    const removed: string[] = [];
    for (const reference of references) {
      const record = await this.recordOf(reference);
      if (!record) continue;
      await this.remove(reference, record);
      removed.push(reference);
    }
    return removed;
  }

  /**
   * Removes an inquiry and every key about it. The inquiry goes last: an erasure cut short leaves it
   * findable, to be erased again, and never an idempotency claim (which holds the whole inquiry) without it.
   * An expiry key moved to a later day is left: it names no one, and retention drops it when it gets there.
   */
  private async remove(reference: string, record: OutboxRecord): Promise<void> {
    const [attemptKeys, releaseKeys, sharded] = await Promise.all([
      this.filedUnder(ATTEMPTS, reference),
      this.filedUnder(RELEASES, reference),
      this.isSharded(),
    ]);
    const keys = [
      ...(record.idempotencyKey ? [KEYS + encodeURIComponent(record.idempotencyKey)] : []),
      ...indexKeysOf(record),
      ...(sharded ? [] : [senderKeyOf(record, unshardedFolder)]),
      ...attemptKeys,
      ...releaseKeys,
      ...[OPEN, QUARANTINED, DELIVERED, KEPT].map((prefix) => prefix + reference),
    ];
    await mapLimited(keys, READ_CONCURRENCY, (key) => this.blobs.delete(key));
    await this.blobs.delete(INQUIRIES + reference);
    if (sharded) return;
    // A move to the shards under way may have copied a key after it was listed above: once more, now that
    // the inquiry is gone (moveToShard removes a copy it writes after this).
    const moved = await Promise.all([this.filedUnder(ATTEMPTS, reference), this.filedUnder(RELEASES, reference)]);
    await mapLimited([...moved.flat(), senderKeyOf(record)], READ_CONCURRENCY, (key) => this.blobs.delete(key));
  }

  /**
   * Retention through the by-day queues: lists the days (one entry each) and, inside, only the days past
   * their time, which it empties; so a run's cost is what expires that day, not the history.
   */
  async removeExpired(
    now: Date,
    retention: RetentionPolicy,
    stopping: () => boolean = () => false,
  ): Promise<RemovedCounts> {
    if (!((await this.ensureRetentionIndex(stopping)) && (await this.ensureShardedLayout(stopping)))) {
      return { inquiries: 0, quarantined: 0, complete: false };
    }
    const cutoffs = retentionCutoffs(now, retention);
    const quarantined = await this.drain(HELD, cutoffs.quarantined, stopping, (reference, key) =>
      this.expireHeld(reference, key, cutoffs.quarantined),
    );
    const inquiries = await this.drain(EXPIRY, cutoffs.delivered, stopping, (reference, key) =>
      this.expireContact(reference, key, cutoffs.delivered),
    );
    return {
      inquiries: inquiries.removed,
      quarantined: quarantined.removed,
      complete: inquiries.complete && quarantined.complete,
    };
  }

  /** Runs `decide` on every key of the days up to `cutoff`'s in a by-day queue; counts what it removed. */
  private async drain(
    prefix: string,
    cutoff: string,
    stopping: () => boolean,
    decide: (reference: string, key: string) => Promise<boolean>,
  ): Promise<{ removed: number; complete: boolean }> {
    let removed = 0;
    for (const day of (await this.folderNames(prefix)).filter((candidate) => candidate <= dayOf(cutoff))) {
      const keys = await this.keys(`${prefix}${day}/`);
      for (let from = 0; from < keys.length; from += RETENTION_CHUNK) {
        if (stopping()) return { removed, complete: false };
        const outcomes = await mapLimited(keys.slice(from, from + RETENTION_CHUNK), READ_CONCURRENCY, (key) =>
          decide(lastSegment(key), key),
        );
        removed += outcomes.filter(Boolean).length;
      }
    }
    return { removed, complete: true };
  }

  /** Suspected spam past its days and never released (nor kept) is removed; true when it was. */
  private async expireHeld(reference: string, key: string, cutoff: string): Promise<boolean> {
    const [record, kept, releases] = await Promise.all([
      this.recordOf(reference),
      this.blobs.get(KEPT + reference),
      this.filedUnder(RELEASES, reference),
    ]);
    // Gone, kept or let through: off this queue (a released one is the contact queue's from now on).
    if (!record || kept !== null || releases.length > 0) {
      await this.blobs.delete(key);
      return false;
    }
    if (record.receivedAt >= cutoff) return false;
    await this.remove(reference, record);
    return true;
  }

  /**
   * An inquiry whose sender's last contact is past the months is removed; one whose sender wrote again
   * since moves to the day of that contact, to be looked at when it runs out. True when removed.
   */
  private async expireContact(reference: string, key: string, cutoff: string): Promise<boolean> {
    const [record, kept, held] = await Promise.all([
      this.recordOf(reference),
      this.blobs.get(KEPT + reference),
      this.blobs.get(QUARANTINED + reference),
    ]);
    if (!record || kept !== null) {
      await this.blobs.delete(key);
      return false;
    }
    // Still held in quarantine: its own, shorter, queue decides.
    if (held !== null) return false;
    const contacts = (await this.filedUnder(SENDERS, senderOf(record.replyTo.address))).map(timeOfTimedKey).sort();
    const last = contacts[contacts.length - 1] ?? keyTime(record.receivedAt);
    if (last >= keyTime(cutoff)) {
      const later = `${EXPIRY}${dayOf(last)}/${reference}`;
      if (later !== key) {
        await this.blobs.write(later, {}, { onlyIfNew: true });
        await this.blobs.delete(key);
      }
      return false;
    }
    await this.remove(reference, record);
    return true;
  }

  /**
   * A store written before the retention keys existed gets them once: every inquiry without its
   * received/ key is read and indexed, from one listing of the inquiries (the last time retention reads
   * the history). Cut short by `stopping`, it resumes from what it did; false until it is done.
   */
  private async ensureRetentionIndex(stopping: () => boolean = () => false): Promise<boolean> {
    if ((await this.blobs.get(RETENTION_INDEX)) !== null) return true;
    const [inquiryKeys, receivedKeys] = await Promise.all([this.keys(INQUIRIES), this.keys(RECEIVED)]);
    const indexed = new Set(receivedKeys.map(timedReferenceOf));
    const missing = inquiryKeys
      .map((key) => referenceOf(key, INQUIRIES))
      .filter((reference) => !indexed.has(reference));
    for (let from = 0; from < missing.length; from += RETENTION_CHUNK) {
      if (stopping()) return false;
      await mapLimited(missing.slice(from, from + RETENTION_CHUNK), READ_CONCURRENCY, async (reference) => {
        const record = await this.recordOf(reference);
        if (!record) return;
        await Promise.all(indexKeysOf(record).map((key) => this.blobs.write(key, {}, { onlyIfNew: true })));
      });
    }
    await this.blobs.write(RETENTION_INDEX, { at: new Date().toISOString() }, { onlyIfNew: true });
    return true;
  }

  async lastRetentionAt(): Promise<Date | null> {
    const text = await this.blobs.get(RETENTION_RUN);
    if (text === null) return null;
    try {
      const at = Date.parse((JSON.parse(text) as { at: string }).at);
      return Number.isNaN(at) ? null : new Date(at);
    } catch {
      return null;
    }
  }

  async recordRetention(at: Date): Promise<void> {
    await this.blobs.write(RETENTION_RUN, { at: at.toISOString() });
  }

  /**
   * Holds the store's delivery lease (blobs-lease.ts) while `work` runs. Runs in this process take
   * turns before asking the store, so that they do not spend requests competing with each other.
   */
  async whileDelivering<T>(
    work: (lease: DeliveryLease) => Promise<T>,
    waitMs = 0,
    onLost: (error: Error) => void = () => undefined,
  ): Promise<{ value: T } | null> {
    const { delivering } = processState();
    const deadline = Date.now() + waitMs;
    while (delivering.has(this.blobs.identity)) {
      if (Date.now() + 50 > deadline) return null;
      await sleep(50);
    }
    delivering.add(this.blobs.identity);
    try {
      const lease = await BlobsLease.acquire(this.blobs, LEASE_KEY, this.timing, deadline, onLost);
      if (!lease) return null;
      try {
        return { value: await work(lease) };
      } finally {
        await lease.release();
      }
    } finally {
      delivering.delete(this.blobs.identity);
    }
  }
}
