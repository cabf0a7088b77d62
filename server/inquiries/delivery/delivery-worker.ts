import type { OperationalLog } from "../operational-log";
import { setTimeout as sleep } from "node:timers/promises";
import { configuredTransports, type InquiryConfig, type RetentionPolicy } from "../config";
import { deliver, logResults } from "./deliver";
import { digestPass, type DigestContent, type DigestOutcome } from "../held/digest";
import { mapLimited } from "../map-limited";
import { nextDueAt, type InquiryOutbox, type OutboxEntry, type RemovedCounts } from "../store/outbox";

export interface DeliveryWorkerOptions {
  readonly outbox: InquiryOutbox;
  readonly config: () => InquiryConfig;
  readonly log: OperationalLog;
  readonly now?: () => Date;
  /** The longest the worker sleeps before it looks at the outbox again (another process may have written). */
  readonly idleMs?: number;
  /** The copy and the company's details the digest of held inquiries needs; without it, the worker makes none. */
  readonly content?: DigestContent;
}

/** What the worker last saw, for the health endpoint. */
export interface WorkerStatus {
  readonly lastPassAt: string | null;
  readonly lastPassFailed: boolean;
  readonly pending: number;
  readonly dead: number;
  readonly quarantined: number;
  /** Digests of held inquiries not yet delivered through every transport: due or waiting to be retried, and given up on. */
  readonly digests: { readonly pending: number; readonly dead: number };
}

export interface DeliverySummary {
  /** Inquiries every transport now has. */
  readonly delivered: number;
  /** Inquiries at least one transport failed. */
  readonly failed: number;
  /** Inquiries at least one transport took in this call. */
  readonly reached: number;
}

const IDLE_MS = 60_000;
/** How often the worker, and the scheduled delivery, remove what is past its retention. */
export const RETENTION_EVERY_MS = 24 * 60 * 60 * 1000;

/** What a retention run removed, for the log: how many, never whose. */
export const retentionLine = (removed: RemovedCounts, retention: RetentionPolicy): string =>
  `retention: removed ${removed.inquiries} inquiries past ${retention.deliveredMonths} months and ` +
  `${removed.quarantined} unreleased suspected spam past ${retention.quarantinedDays} days` +
  (removed.complete ? "" : "; the rest at the next run");
const LOCKED_RETRY_MS = 2_000;

/**
 * The entries whose delivery is due at `now`: pending, not quarantined, not given up on; and, once a
 * transport is configured, those stored while none was (the backlog: undelivered whatever the reason).
 */
const dueEntries = (entries: readonly OutboxEntry[], now: Date, config: InquiryConfig): OutboxEntry[] =>
  entries.filter(
    (entry) =>
      (entry.state === "pending" && entry.dueAt !== null && Date.parse(entry.dueAt) <= now.getTime()) ||
      (entry.state === "stored" && configuredTransports(config).length > 0),
  );

/**
 * The transports an entry still needs: those it arrived with, or (stored while none was configured) those
 * configured now; a transport that has used up its attempts only when `retryDead`.
 */
const transportsToTry = (entry: OutboxEntry, config: InquiryConfig, retryDead: boolean) =>
  (entry.record.transports.length > 0 ? entry.record.transports : configuredTransports(config)).filter(
    (transport) => entry.deliveries[transport] !== "delivered" && (retryDead || entry.deliveries[transport] !== "dead"),
  );

/**
 * Delivers the given entries through each transport they still need, at most `concurrency` at once.
 * A transport that has used up its attempts is left alone unless `retryDead` (a person asked for it):
 * the worker must not go on retrying it just because another transport of the inquiry is still due.
 * Once `stopping` says so, no further inquiry is started (the server is shutting down).
 */
export const deliverEntries = async (
  entries: readonly OutboxEntry[],
  outbox: InquiryOutbox,
  config: InquiryConfig,
  log: OperationalLog,
  now: () => Date,
  { retryDead = false, stopping }: { readonly retryDead?: boolean; readonly stopping?: () => boolean } = {},
): Promise<DeliverySummary> => {
  let delivered = 0;
  let failed = 0;
  let reached = 0;
  await mapLimited(entries, config.delivery.concurrency, async (entry) => {
    // Checked as each inquiry's turn comes: once stopping, the rest are passed over, not started.
    if (stopping?.()) return;
    const transports = transportsToTry(entry, config, retryDead);
    if (transports.length === 0) return;
    const results = await deliver(entry.record, transports, config, outbox, entry.attemptsByTransport, now);
    const fields = {
      reference: entry.record.reference,
      deliveries: Object.fromEntries(results.map((result) => [result.transport, result.ok ? "sent" : "failed"])),
    };
    if (logResults(log, fields, entry.record.reference, results)) delivered += 1;
    else failed += 1;
    if (results.some((result) => result.ok)) reached += 1;
  });
  return { delivered, failed, reached };
};

/**
 * Delivers inquiries from the outbox in the server's process, after the visitor has had their answer:
 * a pass whenever an inquiry is stored, and whenever a retry falls due. A failed attempt is tried again
 * after a growing, jittered delay, up to the policy's number of attempts; then the inquiry is left as
 * a dead letter for `npm run inquiries`. Each pass holds the outbox's delivery lock.
 */
export class DeliveryWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private nextRunAt = 0;
  /** When the worker last removed what was past its retention (ms, on its clock); null: not yet. */
  private lastRetentionAt: number | null = null;
  private lastStatus: WorkerStatus = {
    lastPassAt: null,
    lastPassFailed: false,
    pending: 0,
    dead: 0,
    quarantined: 0,
    digests: { pending: 0, dead: 0 },
  };
  private readonly now: () => Date;
  private readonly idleMs: number;

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.now = options.now ?? (() => new Date());
    this.idleMs = options.idleMs ?? IDLE_MS;
  }

  status(): WorkerStatus {
    return this.lastStatus;
  }

  start(): void {
    this.stopped = false;
    this.notify();
  }

  /** Something was stored: run a pass now, or right after the one under way. */
  notify(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  /**
   * Waits for the deliveries under way (each bounded by the attempt deadline), starts no more, and runs
   * no further pass.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Resolves when no pass is running or scheduled to run at once: for tests and the load bench. */
  async idle(): Promise<void> {
    const soon = () => this.timer !== null && this.nextRunAt <= Date.now() + 5;
    while (this.running || this.again || soon()) {
      await (this.running ?? sleep(5));
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.nextRunAt = Date.now() + delayMs;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.pass()
        .catch((error: unknown) => {
          // A pass that failed (the disk, say) is tried again later; the inquiries stay in the outbox.
          this.options.log.error(
            { err: error },
            `delivery pass failed: ${(error as NodeJS.ErrnoException).code ?? (error as Error).name}`,
          );
          this.lastStatus = { ...this.lastStatus, lastPassAt: this.now().toISOString(), lastPassFailed: true };
          return LOCKED_RETRY_MS;
        })
        .then((nextMs) => {
          this.running = null;
          if (this.again) {
            this.again = false;
            this.schedule(0);
          } else this.schedule(nextMs);
        });
    }, delayMs);
    // A scheduled pass must not keep a process alive that has nothing else to do.
    this.timer.unref();
  }

  /**
   * Removes what is past its retention, at the first pass and then once a day. The log says how many,
   * never whose.
   */
  private async removeExpired(): Promise<void> {
    const { outbox, log } = this.options;
    const now = this.now();
    if (this.lastRetentionAt !== null && now.getTime() - this.lastRetentionAt < RETENTION_EVERY_MS) return;
    const { retention } = this.options.config();
    const removed = await outbox.removeExpired(now, retention);
    this.lastRetentionAt = now.getTime();
    log.info({ removed }, retentionLine(removed, retention));
  }

  /** One pass over the due inquiries; resolves to how long to sleep before the next one. */
  private async pass(): Promise<number> {
    const config = this.options.config();
    const { outbox, log } = this.options;
    await this.removeExpired();
    const outcome = await deliveryPass(outbox, config, log, this.now, () => this.stopped, this.options.content);
    if (!outcome) return LOCKED_RETRY_MS;
    this.lastStatus = {
      lastPassAt: this.now().toISOString(),
      lastPassFailed: false,
      pending: outcome.pending,
      dead: outcome.dead,
      quarantined: outcome.quarantined,
      digests: { pending: outcome.digests?.pending ?? 0, dead: outcome.digests?.dead ?? 0 },
    };
    // The next inquiry or digest due; the day's digest itself is looked for at least every idle period.
    const dueTimes = [outcome.nextDueAt, outcome.digests?.nextDueAt ?? null].filter((time) => time !== null);
    const nextDueAt = dueTimes.length > 0 ? Math.min(...dueTimes) : null;
    return nextDueAt === null ? this.idleMs : Math.min(this.idleMs, Math.max(0, nextDueAt - this.now().getTime()));
  }
}

/** What one delivery pass did, and what it left. */
export interface PassOutcome extends DeliverySummary {
  /** Inquiries that were due (one a stopping pass did not start counts as neither delivered nor failed). */
  readonly due: number;
  readonly pending: number;
  readonly dead: number;
  readonly quarantined: number;
  /** When the next pending inquiry falls due (ms since the epoch); null when none is pending. */
  readonly nextDueAt: number | null;
  /** The digest of held inquiries: made if due, and delivered; null where the pass makes none. */
  readonly digests: DigestOutcome | null;
}

/**
 * One pass over an outbox while holding its delivery lock: every inquiry due at `now` is delivered
 * through each transport it still needs; then, given `content`, the day's digest of held inquiries is made
 * if it is due, and every digest due is delivered. Null when another process holds the lock. Deliveries stop
 * being started once `stopping` says so or the lock no longer allows it. The server's worker runs a
 * pass whenever something is due; the scheduled function on the CDN deploy runs one every few minutes.
 */
export const deliveryPass = async (
  outbox: InquiryOutbox,
  config: InquiryConfig,
  log: OperationalLog,
  now: () => Date,
  stopping: () => boolean = () => false,
  content: DigestContent | null = null,
): Promise<PassOutcome | null> => {
  const outcome = await outbox.whileDelivering(
    async (lease) => {
      const before = await outbox.entries(config.delivery.maxAttempts, "open");
      const due = dueEntries(before.entries, now(), config);
      const summary =
        due.length > 0
          ? await deliverEntries(due, outbox, config, log, now, { stopping: () => stopping() || !lease.mayStart() })
          : { delivered: 0, failed: 0, reached: 0 };
      // Read again: this pass's failures set new due times.
      const { entries: after, heldUnread = 0 } =
        due.length > 0 ? await outbox.entries(config.delivery.maxAttempts, "open") : before;
      const count = (state: OutboxEntry["state"]) => after.filter((entry) => entry.state === state).length;
      // After the inquiries: what is due to visitors goes first.
      const digests = content
        ? await digestPass(outbox, config, content, log, now, { stopping: () => stopping() || !lease.mayStart() })
        : null;
      return {
        ...summary,
        due: due.length,
        pending: count("pending"),
        dead: count("dead"),
        quarantined: count("quarantined") + heldUnread,
        nextDueAt: nextDueAt(after),
        digests,
      };
    },
    0,
    (error) =>
      log.error(
        { err: error },
        `delivery lock lost during a pass: ${(error as NodeJS.ErrnoException).code ?? error.name}`,
      ),
  );
  return outcome ? outcome.value : null;
};

/** How long a function with an outbox that does not outlive it waits for the delivery lock. */
const EPHEMERAL_LOCK_WAIT_MS = 5_000;

/**
 * Delivers one stored inquiry straight away, for a platform with no worker between requests, while
 * holding the outbox's delivery lock. Resolves to whether at least one transport took it. Where the
 * outbox is durable, a lock held elsewhere (a scheduled pass) is not waited for: that pass, or the
 * next, delivers it.
 */
export const deliverNow = async (
  outbox: InquiryOutbox,
  config: InquiryConfig,
  reference: string,
  log: OperationalLog,
  now: () => Date = () => new Date(),
): Promise<boolean> => {
  const outcome = await outbox.whileDelivering(
    async (lease) => {
      const entry = await outbox.entry(reference, config.delivery.maxAttempts);
      if (entry?.state !== "pending") return false;
      const { reached } = await deliverEntries([entry], outbox, config, log, now, {
        stopping: () => !lease.mayStart(),
      });
      return reached > 0;
    },
    config.durableOutbox ? 0 : EPHEMERAL_LOCK_WAIT_MS,
  );
  return outcome?.value ?? false;
};
