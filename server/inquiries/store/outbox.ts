import type { TransportName } from "../config";
import type { InquiryValues } from "../../../src/inquiry/values";

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

/** One delivery attempt; the outbox never rewrites one, it adds what happened. */
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

type TransportState = "delivered" | "failed" | "not tried" | "dead";

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

/**
 * A store whose recorded layout version this code does not know: written by a later release, or not an
 * inquiry store at all. Refused before anything is read or written, so that neither misreads the other.
 */
export class UnknownLayoutError extends Error {
  constructor(location: string, found: string, expected: number) {
    super(
      `${location} records layout version ${found}, and this release of the site reads version ${expected}: ` +
        "it was written by a later release, or is not an inquiry store. Deploy that later release (or point the " +
        "site at its own store); nothing was read or written.",
    );
    this.name = "UnknownLayoutError";
  }
}

/** A reference asked for (a page to start after, say) that the outbox does not hold. */
export class UnknownReferenceError extends Error {
  constructor(readonly reference: string) {
    super(`no inquiry ${reference}`);
    this.name = "UnknownReferenceError";
  }
}

export interface OutboxContents {
  readonly records: readonly OutboxRecord[];
  readonly attempts: readonly DeliveryAttempt[];
  readonly releases: readonly QuarantineRelease[];
}

const latest = (times: readonly string[]): string | null =>
  times.reduce<string | null>((found, time) => (found === null || time > found ? time : found), null);

/**
 * The transports an inquiry must go through: those configured when it arrived or, for one stored while
 * none was, those a delivery has since tried it through (deliverEntries tries it
 * through the transports configured then).
 */
const transportsOf = (record: OutboxRecord, tried: readonly DeliveryAttempt[]): readonly TransportName[] =>
  record.transports.length > 0 ? record.transports : [...new Set(tried.map((attempt) => attempt.transport))];

/** How each transport stands for one message (an inquiry, a digest), from the attempts made through it. */
interface TransportStandings {
  readonly deliveries: Readonly<Partial<Record<TransportName, TransportState>>>;
  readonly attemptsByTransport: Readonly<Partial<Record<TransportName, number>>>;
  /** When each transport not yet delivered and not dead is next due (ISO times). */
  readonly dueTimes: readonly string[];
}

/**
 * Where each of `transports` stands for a message first due at `since`: delivered once an attempt went
 * through; not tried (due at once); failed, due at its last retry time; dead after `maxAttempts` failures.
 */
const transportStandings = (
  transports: readonly TransportName[],
  tried: readonly Pick<DeliveryAttempt, "transport" | "ok" | "at" | "retryAt">[],
  since: string,
  maxAttempts: number,
): TransportStandings => {
  const deliveries: Partial<Record<TransportName, TransportState>> = {};
  const attemptsByTransport: Partial<Record<TransportName, number>> = {};
  const dueTimes: string[] = [];
  for (const transport of transports) {
    const mine = tried.filter((attempt) => attempt.transport === transport);
    attemptsByTransport[transport] = mine.length;
    if (mine.some((attempt) => attempt.ok)) deliveries[transport] = "delivered";
    else if (mine.length === 0) {
      deliveries[transport] = "not tried";
      dueTimes.push(since);
    } else if (mine.length >= maxAttempts) deliveries[transport] = "dead";
    else {
      deliveries[transport] = "failed";
      dueTimes.push(latest(mine.map((attempt) => attempt.retryAt ?? attempt.at)) ?? since);
    }
  }
  return { deliveries, attemptsByTransport, dueTimes };
};

/** Delivered through every transport, dead (one gave up and none is due), or pending. */
const deliveryStateOf = (
  transports: readonly TransportName[],
  { deliveries, dueTimes }: TransportStandings,
): "delivered" | "dead" | "pending" => {
  const states = transports.map((transport) => deliveries[transport]);
  if (states.every((value) => value === "delivered")) return "delivered";
  return states.includes("dead") && dueTimes.length === 0 ? "dead" : "pending";
};

/**
 * Where one inquiry stands, from its record and every line written about it since. The judgement that it
 * looked automated comes first: held until released, whatever transports are configured (an inquiry
 * held while none was is quarantined, never a `stored` one the next pass would deliver once one is).
 */
export const entryOf = (
  record: OutboxRecord,
  tried: readonly DeliveryAttempt[],
  released: boolean,
  maxAttempts: number,
): OutboxEntry => {
  const transports = transportsOf(record, tried);
  const standings = transportStandings(transports, tried, record.receivedAt, maxAttempts);
  const quarantined = Boolean(record.quarantine) && !released;
  const state: EntryState = quarantined
    ? "quarantined"
    : transports.length === 0
      ? "stored"
      : deliveryStateOf(transports, standings);
  return {
    record,
    deliveries: standings.deliveries,
    attempts: tried.length,
    attemptsByTransport: standings.attemptsByTransport,
    state,
    released,
    // The earliest transport due decides; the others are tried in the same pass.
    dueAt: state === "pending" ? ([...standings.dueTimes].sort()[0] ?? null) : null,
  };
};

export interface AddResult {
  readonly reference: string;
  /** False when the idempotency key was seen before: nothing new was stored. */
  readonly created: boolean;
}

/** Attempts by the reference of their inquiry, each inquiry's in the order given. */
export const attemptsByReference = (attempts: readonly DeliveryAttempt[]): Map<string, DeliveryAttempt[]> => {
  const byReference = new Map<string, DeliveryAttempt[]>();
  for (const attempt of attempts) {
    const list = byReference.get(attempt.reference) ?? [];
    list.push(attempt);
    byReference.set(attempt.reference, list);
  }
  return byReference;
};

/** What a delivery run asks of the queue: the jobs due at `now`, for it alone until its lease ends. */
export interface ClaimRequest {
  /** The run: the same for each of its claims, and no other run's. */
  readonly holder: string;
  readonly now: Date;
  /** Longer than the run takes to deliver a job through all its transports (the attempt deadline bounds it). */
  readonly leaseMs: number;
  readonly limit: number;
  readonly maxAttempts: number;
  /** Whether inquiries stored while no transport was configured are due: one is now. */
  readonly storedToo: boolean;
  /** The kinds of job to claim: a run that cannot write a digest (no content for it) claims inquiries only. */
  readonly kinds?: readonly ("inquiry" | "digest")[];
  /** Only the job of this inquiry (the one a function just stored). */
  readonly reference?: string;
  /** Every undelivered job, due or not, given up on or not: an operator's retry. */
  readonly everyOpen?: boolean;
}

/** A job a run claimed: an inquiry's delivery or a digest's, with where its message stands. */
export type ClaimedJob =
  | { readonly id: number; readonly kind: "inquiry"; readonly entry: OutboxEntry }
  | { readonly id: number; readonly kind: "digest"; readonly entry: DigestEntry };

/** What a maintenance run may still do while it holds the outbox's maintenance lock. */
export interface MaintenanceLease {
  /** Whether the lock is still this run's: false once another run took it over (this one stalled past its expiry). */
  mayStart(): boolean;
}

export interface PageRequest {
  readonly after: string | null;
  readonly limit: number;
  readonly maxAttempts: number;
  readonly state?: EntryState;
}

export interface OutboxPage {
  readonly entries: OutboxEntry[];
  readonly next: string | null;
}

/** A sender's address as the store compares it (privacy/requests.ts): without regard to case. */
export const senderAddressKey = (address: string): string => address.trim().toLowerCase();

/** How many inquiries are held as suspected spam now, and since when the oldest of them. */
export interface HeldSummary {
  readonly count: number;
  /** When the oldest held inquiry arrived (ISO time); null when none is held. */
  readonly oldestReceivedAt: string | null;
}

/**
 * One day's digest of the inquiries held as suspected spam since the digest before: made once, in the
 * store, with the inquiries it lists (each listed in one digest only), then delivered through each transport
 * as an inquiry is, retried and recorded.
 */
export interface HeldDigest {
  /** The day whose digest it is (YYYY-MM-DD in the company's time zone): at most one a day. */
  readonly id: string;
  readonly createdAt: string;
  /** The held inquiries it lists, oldest first. */
  readonly references: readonly string[];
  /** The transports configured when it was made: it is pending until each has delivered it. */
  readonly transports: readonly TransportName[];
}

/** One delivery attempt of a digest, written once, as an inquiry's are: the same fields, the digest's day for the reference. */
export interface DigestAttempt extends Omit<DeliveryAttempt, "reference"> {
  readonly digest: string;
}

/** Where a digest stands, as an inquiry's entry says of it. */
export interface DigestEntry extends Pick<OutboxEntry, "deliveries" | "attemptsByTransport" | "dueAt"> {
  readonly digest: HeldDigest;
  readonly state: "delivered" | "pending" | "dead";
}

/** What is left in the queue of one kind of job, counted by the store rather than read job by job. */
export interface QueueCounts {
  /** Jobs with a transport still to try, now or later. */
  readonly pending: number;
  /** Jobs whose every transport still needed failed as often as it may: left for an operator's retry. */
  readonly dead: number;
  /** When the first pending one falls due (ms since the epoch); null when none is pending. */
  readonly nextDueAt: number | null;
}

/** Where a digest stands, from the attempts made to deliver it. */
export const digestEntryOf = (
  digest: HeldDigest,
  tried: readonly DigestAttempt[],
  maxAttempts: number,
): DigestEntry => {
  const standings = transportStandings(digest.transports, tried, digest.createdAt, maxAttempts);
  const state = deliveryStateOf(digest.transports, standings);
  return {
    digest,
    deliveries: standings.deliveries,
    attemptsByTransport: standings.attemptsByTransport,
    state,
    dueAt: state === "pending" ? ([...standings.dueTimes].sort()[0] ?? null) : null,
  };
};
