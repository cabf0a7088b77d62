import { createHash, randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { BlobsLease, type LeaseTiming } from "./blobs-lease";
import type { BlobsStore } from "./blobs-store";
import { mapLimited } from "./map-limited";
import {
  DuplicateReferenceError,
  entriesOf,
  type AddResult,
  type DeliveryAttempt,
  type DeliveryLease,
  type DigestAttempt,
  type DigestEntry,
  type DigestingOutbox,
  digestEntryOf,
  type EntryScope,
  type HeldDigest,
  type HeldSummary,
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
  UnknownLayoutError,
  UnknownReferenceError,
} from "./outbox";
import type { RetentionPolicy, TransportName } from "./config";
import { processWide } from "./process-wide";

/*
 * The keys of the store, each blob written once and never changed (the lease aside):
 *   inquiries/<reference>             the inquiry
 *   keys/<idempotency key>            the inquiry that claimed the key (the whole record: see add)
 *   attempts/<shard>/<reference>/<time>-...   one delivery attempt
 *   releases/<shard>/<reference>/<time>-...   a quarantined inquiry let through
 *   open/<reference>                  a mark that it may still need delivering: the only inquiries a delivery
 *                                     pass reads. Written before the inquiry itself, removed once delivered.
 *   quarantined/<reference>           a mark that it is held in quarantine: counted, unread, until released
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
 *   meta/layout                       the layout version of these keys ({ version }), written with the first write
 * and for the daily digest of held inquiries (digest.ts), which older code of this layout ignores:
 *   digested/<reference>              a held inquiry a digest has listed ({ digest }): the next digest lists
 *                                     the held ones without such a mark
 *   digests/<day>                     the day's digest: the references it lists and its transports
 *   digest-open/<day>                 a mark that it may still need delivering, written before the digest,
 *                                     removed once every transport has it
 *   digest-attempts/<day>/<time>-...  one delivery attempt of it
 *   meta/digest                       the last day a digest was decided on ({ day })
 * A release is written once, under releases/<shard>/<reference>/release, only if new: of two releases at
 * once, one is written (releases an earlier release wrote have a time of their own in the key instead).
 * A <shard> is two hex digits of the SHA-256 of the folder's name (the reference, or the address's hash):
 * 256 folders, so that a listing of one inquiry's attempts, or of one person's inquiries, never passes over
 * a folder per inquiry or per person ever stored (a store may answer a prefix listing by walking the
 * folders beside it, as the local Blobs server does).
 */
const INQUIRIES = "inquiries/";
const KEYS = "keys/";
const ATTEMPTS = "attempts/";
const RELEASES = "releases/";
const QUARANTINED = "quarantined/";
const OPEN = "open/";
/** An open mark whose inquiry is still missing after this long belongs to a write that died: it is removed. */
const ORPHAN_MARK_MS = 60 * 60 * 1000;
const RECEIVED = "received/";
const EXPIRY = "expiry/";
const HELD = "held/";
const SENDERS = "senders/";
const KEPT = "kept/";
const DIGESTED = "digested/";
const DIGESTS = "digests/";
const DIGEST_OPEN = "digest-open/";
const DIGEST_ATTEMPTS = "digest-attempts/";
const DIGEST_DAY = "meta/digest";
/** The last segment of the key a release is written under (see the list of keys above). */
const RELEASE_KEY = "release";
/** Exported for bench/blobs-scale.ts, which removes it to make the day's retention due. */
export const RETENTION_RUN = "meta/retention";
/**
 * The layout of the keys above, recorded under LAYOUT_KEY. A store without the key is new, or was written
 * before the version was recorded, in this same layout. A later layout's move from this one goes where the
 * version is checked (checkLayout), before the stamp changes.
 */
export const LAYOUT_VERSION = 1;
const LAYOUT_KEY = "meta/layout";
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
  /** Stores whose layout this process has checked: "stamped" once it records the current version. */
  readonly layouts: Map<string, "stamped" | "unstamped">;
}

const processState = () =>
  processWide<BlobsProcessState>("inquiry-blobs-outbox", () => ({
    adding: new Map(),
    delivering: new Set(),
    layouts: new Map(),
  }));

/** A time as the digits of its ISO form, so that attempt keys sort by time; any other text kept to its letters. */
const keyTime = (at: string) => at.replace(/[^0-9A-Za-z]/g, "");
const uniqueSuffix = () => randomBytes(6).toString("hex");
const isRecord = (record: OutboxRecord) => typeof record.reference === "string" && Array.isArray(record.transports);
const isAttempt = (attempt: DeliveryAttempt) =>
  typeof attempt.reference === "string" && typeof attempt.transport === "string";
const isRelease = (release: QuarantineRelease) => typeof release.reference === "string";
const isDigest = (digest: HeldDigest) =>
  typeof digest.id === "string" && Array.isArray(digest.references) && Array.isArray(digest.transports);
const isDigestAttempt = (attempt: DigestAttempt) =>
  typeof attempt.digest === "string" && typeof attempt.transport === "string";
const referenceOf = (key: string, prefix: string) => key.slice(prefix.length).split("/")[0] ?? "";
/** What follows a key's last "/": the reference of a by-day key, the `<time>-<reference>` of a timed one. */
const lastSegment = (key: string) => key.slice(key.lastIndexOf("/") + 1);
/** The reference at the end of a `<time>-<reference>` key (a time as keyTime gives it has no "-"). */
const timedReferenceOf = (key: string) => {
  const last = lastSegment(key);
  return last.slice(last.indexOf("-") + 1);
};
/** Keys by their last segment, which starts with the time: oldest first (the store lists them in no such order). */
const byTime = (keys: readonly string[]) =>
  [...keys].sort((a, b) => (lastSegment(a) < lastSegment(b) ? -1 : lastSegment(a) > lastSegment(b) ? 1 : 0));
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
/** An attempt's key, but for the random part that append adds (see the list of keys above). */
const attemptKeyOf = (attempt: DeliveryAttempt) =>
  `${shardedFolder(ATTEMPTS, attempt.reference)}${keyTime(attempt.at)}-${attempt.transport}`;

/** The keys that index an inquiry (see the list of keys above): written before it, removed with it. */
const indexKeysOf = (record: OutboxRecord): string[] => {
  const day = dayOf(record.receivedAt);
  const at = keyTime(record.receivedAt);
  return [
    `${RECEIVED}${day}/${at}-${record.reference}`,
    `${EXPIRY}${day}/${record.reference}`,
    `${shardedFolder(SENDERS, senderOf(record.replyTo.address))}${at}-${record.reference}`,
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

/** What LAYOUT_KEY holds, as the version it names ("unreadable" when it names none). */
const layoutVersionOf = (text: string): string => {
  try {
    const { version } = JSON.parse(text) as { version?: unknown };
    if (typeof version === "number") return String(version);
  } catch {
    // Not JSON: not a stamp this code wrote.
  }
  return "unreadable";
};

/** Items handled this many at a time by retention, which checks `stopping` between them. */
const RETENTION_CHUNK = 64;

/**
 * The outbox in a Netlify Blobs store, for the CDN deploy: every function instance, the scheduled
 * delivery and `npm run inquiries` share it. Each inquiry is one blob under its reference, written only
 * if new, with strong consistency, before the visitor is answered; what becomes of it is appended as
 * blobs of their own (one per attempt, one per release), never by rewriting a blob.
 */
export class BlobsOutbox implements InquiryOutbox, RetainingOutbox, RetentionRecord, DigestingOutbox {
  readonly location: string;
  private readonly timing: LeaseTiming;

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
      await this.checkLayout(true);
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
    await this.checkLayout(true);
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

  /**
   * Refuses a store whose recorded layout this code does not know, before anything else is read or written.
   * A write (`stamp`) records the current version on a store that has none yet. Checked once per process and
   * store: only a later release, which replaces this code, changes a store's layout.
   */
  private async checkLayout(stamp: boolean): Promise<void> {
    const { layouts } = processState();
    const known = layouts.get(this.blobs.identity);
    if (known === "stamped" || (known === "unstamped" && !stamp)) return;
    let text = await this.blobs.get(LAYOUT_KEY);
    if (text === null && stamp) {
      const stamped = await this.blobs.write(LAYOUT_KEY, { version: LAYOUT_VERSION }, { onlyIfNew: true });
      // Lost to another writer's stamp: that one is checked as found.
      text = stamped.written ? JSON.stringify({ version: LAYOUT_VERSION }) : await this.blobs.get(LAYOUT_KEY);
    }
    if (text === null) {
      layouts.set(this.blobs.identity, "unstamped");
      return;
    }
    const found = layoutVersionOf(text);
    if (found !== String(LAYOUT_VERSION)) throw new UnknownLayoutError(this.location, found, LAYOUT_VERSION);
    layouts.set(this.blobs.identity, "stamped");
  }

  /** Whether the store holds anything: an empty one is, to an operator, most likely the wrong store. */
  async holdsAnything(): Promise<boolean> {
    return this.blobs.holdsAnything();
  }

  async probe(): Promise<void> {
    await this.checkLayout(true);
    await this.blobs.write(PROBE_KEY, { at: new Date().toISOString() });
  }

  /** Appends a blob under a new key; a clash of the random part (never expected) just draws again. */
  private async append(prefix: string, value: unknown): Promise<void> {
    for (;;) {
      if ((await this.blobs.write(`${prefix}-${uniqueSuffix()}`, value, { onlyIfNew: true })).written) return;
    }
  }

  async recordAttempt(attempt: DeliveryAttempt): Promise<void> {
    await this.checkLayout(true);
    await this.append(attemptKeyOf(attempt), attempt);
  }

  /**
   * Records the release, only if none was written before (a conditional write: of two at once, one wins),
   * then moves the inquiry's mark from held to open, for the next pass to read it. A release cut short
   * between its writes is finished by the next call, which still answers false.
   */
  async release(reference: string, at: Date = new Date()): Promise<boolean> {
    await this.checkLayout(true);
    const folder = shardedFolder(RELEASES, reference);
    const [record, held, earlier] = await Promise.all([
      this.recordOf(reference),
      this.blobs.get(QUARANTINED + reference),
      this.keys(folder),
    ]);
    if (!record?.quarantine) return false;
    const release: QuarantineRelease = { reference, at: at.toISOString() };
    const released =
      earlier.length === 0 && (await this.blobs.write(folder + RELEASE_KEY, release, { onlyIfNew: true })).written;
    if (released || held !== null) {
      await this.blobs.write(OPEN + reference, { at: release.at }, { onlyIfNew: true });
      await this.blobs.delete(QUARANTINED + reference);
      await this.blobs.delete(DIGESTED + reference);
    }
    return released;
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

  /** The references an operator marked as kept, in one listing. */
  async keptReferences(): Promise<string[]> {
    return (await this.keys(KEPT)).map((key) => key.slice(KEPT.length));
  }

  private async keys(prefix: string): Promise<string[]> {
    return (await this.blobs.list(prefix)).map((blob) => blob.key);
  }

  /** The keys filed under `name` in `prefix`'s shards: an inquiry's attempts or releases, a person's inquiries. */
  private async filedUnder(prefix: string, name: string): Promise<string[]> {
    return this.keys(shardedFolder(prefix, name));
  }

  /** Oldest first; the store lists keys in no such order. */
  private static byArrival(records: OutboxRecord[]): OutboxRecord[] {
    return records.sort((a, b) => a.receivedAt.localeCompare(b.receivedAt) || a.reference.localeCompare(b.reference));
  }

  async read(): Promise<OutboxContents> {
    await this.checkLayout(false);
    const [inquiryKeys, attemptKeys, releaseKeys] = await Promise.all([
      this.keys(INQUIRIES),
      this.keys(ATTEMPTS),
      this.keys(RELEASES),
    ]);
    const records = await this.readBlobs(inquiryKeys, isRecord);
    const attempts = await this.readBlobs(attemptKeys, isAttempt);
    const releases = await this.readBlobs(releaseKeys, isRelease);
    return {
      records: BlobsOutbox.byArrival(records.items),
      attempts: attempts.items,
      releases: releases.items,
      damagedLines: records.damaged + attempts.damaged + releases.damaged,
    };
  }

  /**
   * The inquiries marked open, with what happened to them: what a delivery pass needs, listed from a
   * prefix that delivery empties, so that it costs the open work and not the history. Also how many are
   * held in quarantine (counted from their marks, unread).
   */
  private async readOpen(): Promise<OutboxContents & { heldUnread: number }> {
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
    const attempts = await this.readBlobs(attemptKeys ?? [], isAttempt);
    const releases = await this.readBlobs(releaseKeys ?? [], isRelease);
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
    await this.checkLayout(false);
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
    await this.checkLayout(false);
    const [records, attemptKeys, releaseKeys] = await Promise.all([
      this.readBlobs([INQUIRIES + reference], isRecord),
      this.filedUnder(ATTEMPTS, reference),
      this.filedUnder(RELEASES, reference),
    ]);
    const attempts = await this.readBlobs(attemptKeys, isAttempt);
    const releases = await this.readBlobs(releaseKeys, isRelease);
    const contents = { records: records.items, attempts: attempts.items, releases: releases.items };
    return entriesOf(contents, maxAttempts)[0] ?? null;
  }

  /** The inquiry under `reference`, parsed; null when there is none (or it is not one). */
  private async recordOf(reference: string): Promise<OutboxRecord | null> {
    return (await this.recordsOf([reference]))[0] ?? null;
  }

  /** The inquiries of `references` that are there and whole, in no particular order. */
  private async recordsOf(references: readonly string[]): Promise<OutboxRecord[]> {
    return (
      await this.readBlobs(
        references.map((reference) => INQUIRIES + reference),
        isRecord,
      )
    ).items;
  }

  /**
   * One page in arrival order, from the received/ index a day at a time: the days are listed as folders
   * (one entry each), and only the days the page reaches are listed inside.
   */
  async page({ after, limit, maxAttempts, state }: PageRequest): Promise<OutboxPage> {
    await this.checkLayout(false);
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
    await this.checkLayout(true);
    if ((await this.blobs.get(INQUIRIES + reference)) === null) return false;
    await this.blobs.write(KEPT + reference, { at: new Date().toISOString() });
    return true;
  }

  async stored(reference: string): Promise<StoredInquiry | null> {
    await this.checkLayout(false);
    const [record, attemptKeys, releaseKeys, kept] = await Promise.all([
      this.recordOf(reference),
      this.filedUnder(ATTEMPTS, reference),
      this.filedUnder(RELEASES, reference),
      this.blobs.get(KEPT + reference),
    ]);
    if (!record) return null;
    const attempts = await this.readBlobs(byTime(attemptKeys), isAttempt);
    const releases = await this.readBlobs(byTime(releaseKeys), isRelease);
    return { record, attempts: attempts.items, releasedAt: releases.items[0]?.at ?? null, kept: kept !== null };
  }

  /** Through the senders/ index: the person's keys only, never a listing of every inquiry. */
  async inquiriesFrom(address: string): Promise<StoredInquiry[]> {
    await this.checkLayout(false);
    const keys = byTime(await this.filedUnder(SENDERS, senderOf(address)));
    const found = await mapLimited(keys, READ_CONCURRENCY, (key) => this.stored(timedReferenceOf(key)));
    return found.filter((inquiry): inquiry is StoredInquiry => inquiry !== null);
  }

  async erase(references: readonly string[]): Promise<string[]> {
    await this.checkLayout(true);
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
    const [attemptKeys, releaseKeys] = await Promise.all([
      this.filedUnder(ATTEMPTS, reference),
      this.filedUnder(RELEASES, reference),
    ]);
    const keys = [
      ...(record.idempotencyKey ? [KEYS + encodeURIComponent(record.idempotencyKey)] : []),
      ...indexKeysOf(record),
      ...attemptKeys,
      ...releaseKeys,
      ...[OPEN, QUARANTINED, KEPT, DIGESTED].map((prefix) => prefix + reference),
    ];
    await mapLimited(keys, READ_CONCURRENCY, (key) => this.blobs.delete(key));
    await this.blobs.delete(INQUIRIES + reference);
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
    await this.checkLayout(true);
    const cutoffs = retentionCutoffs(now, retention);
    const quarantined = await this.drain(HELD, cutoffs.quarantined, stopping, (reference, key) =>
      this.expireHeld(reference, key, cutoffs.quarantined),
    );
    const inquiries = await this.drain(EXPIRY, cutoffs.delivered, stopping, (reference, key) =>
      this.expireContact(reference, key, cutoffs.delivered),
    );
    if (!stopping()) await this.removeOldDigests(dayOf(cutoffs.quarantined));
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

  /** Digests of days before `day`, with their attempts: they list only references, past their quarantine. */
  private async removeOldDigests(day: string): Promise<void> {
    const old = (await this.keys(DIGESTS)).map((key) => key.slice(DIGESTS.length)).filter((id) => id < day);
    for (const id of old) {
      const keys = [...(await this.keys(`${DIGEST_ATTEMPTS}${id}/`)), DIGEST_OPEN + id];
      await mapLimited(keys, READ_CONCURRENCY, (key) => this.blobs.delete(key));
      await this.blobs.delete(DIGESTS + id);
    }
  }

  /**
   * The held marks, less those of inquiries a release has marked open (a release cut short), and the oldest
   * of them through the held/ queue's days, oldest day first: only the first day that holds one is read.
   */
  async heldSummary(): Promise<HeldSummary> {
    await this.checkLayout(false);
    const [heldKeys, openKeys] = await Promise.all([this.keys(QUARANTINED), this.keys(OPEN)]);
    const open = new Set(openKeys.map((key) => referenceOf(key, OPEN)));
    const held = new Set(heldKeys.map((key) => referenceOf(key, QUARANTINED)).filter((ref) => !open.has(ref)));
    if (held.size === 0) return { count: 0, oldestReceivedAt: null };
    for (const day of await this.folderNames(HELD)) {
      const here = (await this.keys(`${HELD}${day}/`)).map(lastSegment).filter((reference) => held.has(reference));
      const oldest = BlobsOutbox.byArrival(await this.recordsOf(here))[0];
      if (oldest) return { count: held.size, oldestReceivedAt: oldest.receivedAt };
    }
    // Marks whose inquiries are still being written (or never were): counted, with no age to give.
    return { count: held.size, oldestReceivedAt: null };
  }

  async lastDigestDay(): Promise<string | null> {
    await this.checkLayout(false);
    const text = await this.blobs.get(DIGEST_DAY);
    if (text === null) return null;
    try {
      const { day } = JSON.parse(text) as { day?: unknown };
      return typeof day === "string" ? day : null;
    } catch {
      return null;
    }
  }

  private async readDigest(id: string): Promise<HeldDigest | null> {
    return (await this.readBlobs([DIGESTS + id], isDigest)).items[0] ?? null;
  }

  /**
   * Under the delivery lease (one run at a time): the held inquiries no digest has listed are those with a
   * held mark and no digested/ mark; each is read, so one whose inquiry is still being written waits for
   * the next digest. The digest is marked open, then written only if new, then its inquiries marked listed,
   * then the day recorded: a run cut short in between finishes the same digest the next time, never a second.
   */
  async takeDigest(day: string, at: Date, transports: readonly TransportName[]): Promise<HeldDigest | null> {
    if (transports.length === 0) return null;
    await this.checkLayout(true);
    const last = await this.lastDigestDay();
    if (last !== null && last >= day) return null;
    let digest = await this.readDigest(day);
    if (digest === null) {
      const [heldKeys, listedKeys] = await Promise.all([this.keys(QUARANTINED), this.keys(DIGESTED)]);
      const listed = new Set(listedKeys.map((key) => referenceOf(key, DIGESTED)));
      const candidates = heldKeys.map((key) => referenceOf(key, QUARANTINED)).filter((ref) => !listed.has(ref));
      const records = (await this.recordsOf(candidates)).filter((record) => record.quarantine !== undefined);
      if (records.length === 0) {
        await this.blobs.write(DIGEST_DAY, { day });
        return null;
      }
      const made: HeldDigest = {
        id: day,
        createdAt: at.toISOString(),
        references: BlobsOutbox.byArrival(records).map((record) => record.reference),
        transports: [...transports],
      };
      await this.blobs.write(DIGEST_OPEN + day, { at: made.createdAt }, { onlyIfNew: true });
      const written = await this.blobs.write(DIGESTS + day, made, { onlyIfNew: true });
      digest = written.written ? made : await this.readDigest(day);
      if (digest === null) throw new Error(`the digest ${DIGESTS}${day} was written and is not there`);
    }
    const { id } = digest;
    await mapLimited(digest.references, READ_CONCURRENCY, (reference) =>
      this.blobs.write(DIGESTED + reference, { digest: id }, { onlyIfNew: true }),
    );
    await this.blobs.write(DIGEST_DAY, { day });
    return digest;
  }

  /** From the open marks only; a digest found delivered loses its mark, so the next run does not read it. */
  async openDigests(maxAttempts: number): Promise<DigestEntry[]> {
    await this.checkLayout(false);
    const ids = (await this.keys(DIGEST_OPEN)).map((key) => key.slice(DIGEST_OPEN.length)).sort();
    const entries: DigestEntry[] = [];
    for (const id of ids) {
      const digest = await this.readDigest(id);
      if (digest === null) {
        // A mark whose digest was never written (its run was cut short, and the day decided since).
        if (((await this.lastDigestDay()) ?? "") >= id) await this.blobs.delete(DIGEST_OPEN + id);
        continue;
      }
      const attempts = await this.readBlobs(await this.keys(`${DIGEST_ATTEMPTS}${id}/`), isDigestAttempt);
      const entry = digestEntryOf(digest, attempts.items, maxAttempts);
      if (entry.state === "delivered") await this.blobs.delete(DIGEST_OPEN + id);
      else entries.push(entry);
    }
    return entries;
  }

  async recordDigestAttempt(attempt: DigestAttempt): Promise<void> {
    await this.checkLayout(true);
    await this.append(`${DIGEST_ATTEMPTS}${attempt.digest}/${keyTime(attempt.at)}-${attempt.transport}`, attempt);
  }

  async lastRetentionAt(): Promise<Date | null> {
    await this.checkLayout(false);
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
    await this.checkLayout(true);
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
      // Before the lease is written: a store this code must not touch gets no lease either.
      await this.checkLayout(true);
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
