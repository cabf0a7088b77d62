import { randomBytes } from "node:crypto";
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
  type OutboxRecord,
  type QuarantineRelease,
} from "./outbox";
import { processWide } from "./process-wide";

/*
 * The keys of the store, each blob written once and never changed (the lease aside):
 *   inquiries/<reference>             the inquiry, exactly as the file outbox keeps it
 *   keys/<idempotency key>            the inquiry that claimed the key (the whole record: see add)
 *   attempts/<reference>/<time>-...   one delivery attempt
 *   releases/<reference>/<time>-...   a quarantined inquiry let through
 *   open/<reference>                  a mark that it may still need delivering: the only inquiries a delivery
 *                                     pass reads. Written before the inquiry itself, removed once delivered.
 *   quarantined/<reference>           a mark that it is held in quarantine: counted, unread, until released
 *   meta/open-index                   written once every open inquiry has its open/ mark (see ensureOpenIndex)
 *   delivered/<reference>             (stores from before open/) a mark that every transport has it
 *   lease/delivery                    the delivery lock (blobs-lease.ts)
 *   health/probe                      the time of the last health check (rewritten by each)
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

/**
 * The outbox in a Netlify Blobs store, for the CDN deploy: every function instance, the scheduled
 * delivery and `npm run inquiries` share it. Each inquiry is one blob under its reference, written only
 * if new, with strong consistency, before the visitor is answered; what becomes of it is appended as
 * blobs of their own (one per attempt, one per release), never by rewriting a blob.
 */
export class BlobsOutbox implements InquiryOutbox {
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
    if (record.quarantine) {
      await this.blobs.write(QUARANTINED + record.reference, { reason: record.quarantine.reason }, { onlyIfNew: true });
    } else {
      await this.blobs.write(OPEN + record.reference, { at: new Date().toISOString() }, { onlyIfNew: true });
    }
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
    await this.append(`${ATTEMPTS}${attempt.reference}/${keyTime(attempt.at)}-${attempt.transport}`, attempt);
  }

  /** Records the release, then moves the inquiry's mark from held to open, for the next pass to read it. */
  async release(reference: string, at: Date = new Date()): Promise<void> {
    const release: QuarantineRelease = { reference, at: at.toISOString() };
    await this.append(`${RELEASES}${reference}/${keyTime(release.at)}`, release);
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
    const texts = await mapLimited(keys, READ_CONCURRENCY, (key) => this.blobs.get(key));
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
   * A store written before the open/ marks existed gets them once, from a listing of everything (the
   * last time a pass reads the history): every inquiry neither marked delivered nor held unreleased.
   */
  private async ensureOpenIndex(): Promise<void> {
    if ((await this.blobs.get(OPEN_INDEX)) !== null) return;
    const [inquiryKeys, deliveredKeys, heldKeys, releaseKeys] = await Promise.all(
      [INQUIRIES, DELIVERED, QUARANTINED, RELEASES].map((prefix) => this.keys(prefix)),
    );
    const released = new Set((releaseKeys ?? []).map((key) => referenceOf(key, RELEASES)));
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
        (await mapLimited(open, READ_CONCURRENCY, (reference) => this.keys(`${prefix}${reference}/`))).flat(),
      ),
    );
    const texts = await mapLimited(open, READ_CONCURRENCY, (reference) => this.blobs.get(INQUIRIES + reference));
    await this.removeOrphanMarks(open.filter((_reference, index) => texts[index] === null));
    const records = await this.readBlobs(
      open.filter((_reference, index) => texts[index] !== null).map((reference) => INQUIRIES + reference),
      isRecord,
    );
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
      this.keys(`${ATTEMPTS}${reference}/`),
      this.keys(`${RELEASES}${reference}/`),
    ]);
    const attempts = await this.readBlobs(attemptKeys, isAttempt);
    const releases = await this.readBlobs(releaseKeys, isRelease);
    const contents = { records: records.items, attempts: attempts.items, releases: releases.items };
    return entriesOf(contents, maxAttempts)[0] ?? null;
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
