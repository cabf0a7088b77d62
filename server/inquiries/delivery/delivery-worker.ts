import { failureName, type OperationalLog } from "../operational-log";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { configuredTransports, type InquiryConfig } from "../config";
import { deliver, logResults } from "./deliver";
import { deliverDigest, makeDueDigest, type DigestContent, type DigestOutcome } from "../held/digest";
import { mapLimited } from "../map-limited";
import type { ClaimedJob, OutboxEntry, QueueCounts } from "../store/outbox";
import { removeExpiredDaily } from "../privacy/retention";
import type { InquiryOutbox } from "../store/sql-outbox";

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

interface DeliverySummary {
  /** Inquiries every transport now has. */
  readonly delivered: number;
  /** Inquiries at least one transport failed. */
  readonly failed: number;
  /** Inquiries at least one transport took in this call. */
  readonly reached: number;
}

const IDLE_MS = 60_000;
/** How long after a failed pass the worker tries again. */
const FAILED_PASS_RETRY_MS = 2_000;
/** A claim outlasts one attempt through every transport (they go at once) by this much: recording it, clocks apart. */
const CLAIM_MARGIN_MS = 30_000;

/**
 * The transports an entry still needs: those it arrived with, or (stored while none was configured) those
 * configured now; a transport that has used up its attempts only when `retryDead`.
 */
const transportsToTry = (entry: OutboxEntry, config: InquiryConfig, retryDead: boolean) =>
  (entry.record.transports.length > 0 ? entry.record.transports : configuredTransports(config)).filter(
    (transport) => entry.deliveries[transport] !== "delivered" && (retryDead || entry.deliveries[transport] !== "dead"),
  );

/**
 * Delivers inquiries from the outbox in the server's process, after the visitor has had their answer:
 * a pass whenever an inquiry is stored, and whenever a retry falls due. A failed attempt is tried again
 * after a growing, jittered delay, up to the policy's number of attempts; then the inquiry is left as
 * a dead letter for `npm run inquiries`. Each pass claims what it delivers (runQueue).
 */
export class DeliveryWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private nextRunAt = 0;
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
          this.options.log.error({ err: error }, `delivery pass failed: ${failureName(error)}`);
          this.lastStatus = { ...this.lastStatus, lastPassAt: this.now().toISOString(), lastPassFailed: true };
          return FAILED_PASS_RETRY_MS;
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

  /** One pass over the due inquiries; resolves to how long to sleep before the next one. */
  private async pass(): Promise<number> {
    const config = this.options.config();
    const { outbox, log } = this.options;
    // Before the deliveries, so that nothing past its time is sent; a failed removal does not hold them up.
    await removeExpiredDaily(outbox, config.retention, log, this.now(), () => this.stopped).catch((error: unknown) =>
      log.error({ err: error }, `retention failed: ${failureName(error)}`),
    );
    const outcome = await deliveryPass(outbox, config, log, this.now, () => this.stopped, this.options.content);
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
export interface PassOutcome extends DeliverySummary, QueueCounts {
  /** Inquiries that were due (one a stopping pass did not start counts as neither delivered nor failed). */
  readonly due: number;
  readonly quarantined: number;
  /** The digest of held inquiries: made if due, and delivered; null where the pass makes none. */
  readonly digests: DigestOutcome | null;
}

/** What one run of the queue did. */
interface QueueRun extends DeliverySummary {
  /** Inquiries it claimed: due, or undelivered for a retry (one a stopping run did not start is neither delivered nor failed). */
  readonly due: number;
  readonly digestsDelivered: number;
  readonly digestsFailed: number;
}

interface QueueRunOptions {
  readonly stopping?: () => boolean;
  /** The copy the digests of held inquiries are written with; without it, the run claims no digest. */
  readonly content?: DigestContent | null;
  /** Every undelivered job, due or not, given up on or not, through every transport it lacks: an operator's retry. */
  readonly retryDead?: boolean;
  /** Only this inquiry's job (one a function just stored or released). */
  readonly reference?: string;
}

/**
 * Delivers the jobs of one claim: its inquiries at once (at most `concurrency`), each through the transports it still
 * needs, then its digests. A transport that has used up its attempts is left alone unless `retryDead` (a person asked
 * for it): the worker must not go on retrying it just because another transport of the inquiry is still due. Once
 * `stopping` says so, no further job is started (the server is shutting down).
 */
const deliverClaimed = async (
  jobs: readonly ClaimedJob[],
  outbox: InquiryOutbox,
  config: InquiryConfig,
  log: OperationalLog,
  now: () => Date,
  { stopping = () => false, content = null, retryDead = false }: QueueRunOptions,
): Promise<QueueRun> => {
  const inquiries = jobs.flatMap((job) => (job.kind === "inquiry" ? [job.entry] : []));
  const run = { delivered: 0, failed: 0, reached: 0, due: inquiries.length, digestsDelivered: 0, digestsFailed: 0 };
  await mapLimited(inquiries, config.delivery.concurrency, async (entry) => {
    // Checked as each inquiry's turn comes: once stopping, the rest are passed over, not started.
    const transports = transportsToTry(entry, config, retryDead);
    if (stopping() || transports.length === 0) return;
    const results = await deliver(entry.record, transports, config, outbox, entry.attemptsByTransport, now);
    const fields = {
      reference: entry.record.reference,
      deliveries: Object.fromEntries(results.map((result) => [result.transport, result.ok ? "sent" : "failed"])),
    };
    if (logResults(log, fields, entry.record.reference, results)) run.delivered += 1;
    else run.failed += 1;
    if (results.some((result) => result.ok)) run.reached += 1;
  });
  for (const job of jobs) {
    if (job.kind !== "digest" || !content || stopping()) continue;
    if (await deliverDigest(job.entry, outbox, config, content, log, now, retryDead)) run.digestsDelivered += 1;
    else run.digestsFailed += 1;
  }
  return run;
};

/**
 * The one worker loop over the queue: claims what is due (inquiries and digests alike, oldest first), as many as
 * are delivered at once, delivers each through the transports it still needs, and lets go of them; again until
 * nothing due is left to this run, or `stopping` says so. Every run delivers this way: the server's worker (two
 * of them while a release takes over), the scheduled function, a function delivering what it just stored, and an
 * operator's retry. Each claims other jobs than the others, so none is delivered twice; a job whose run died is
 * claimed again once its claim runs out.
 */
export const runQueue = async (
  outbox: InquiryOutbox,
  config: InquiryConfig,
  log: OperationalLog,
  now: () => Date,
  options: QueueRunOptions = {},
): Promise<QueueRun> => {
  const { stopping = () => false, content = null, retryDead = false, reference } = options;
  const holder = randomUUID();
  // A job tried in this run and still open (a retry that failed again) is not taken twice by it.
  const tried = new Set<number>();
  const totals = { delivered: 0, failed: 0, reached: 0, due: 0, digestsDelivered: 0, digestsFailed: 0 };
  while (!stopping()) {
    const claimed = await outbox.claim({
      holder,
      now: now(),
      leaseMs: config.delivery.attemptTimeoutMs + CLAIM_MARGIN_MS,
      limit: config.delivery.concurrency,
      maxAttempts: config.delivery.maxAttempts,
      storedToo: configuredTransports(config).length > 0,
      kinds: content ? ["inquiry", "digest"] : ["inquiry"],
      everyOpen: retryDead,
      ...(reference === undefined ? {} : { reference }),
    });
    const fresh = claimed.filter((job) => !tried.has(job.id));
    try {
      if (fresh.length === 0) break;
      const run = await deliverClaimed(fresh, outbox, config, log, now, options);
      for (const key of Object.keys(totals) as (keyof QueueRun)[]) totals[key] += run[key];
    } finally {
      await outbox.unclaim(
        holder,
        claimed.map((job) => job.id),
      );
    }
    for (const job of fresh) tried.add(job.id);
  }
  return totals;
};

/**
 * One pass over the outbox: given `content`, the day's digest of held inquiries is made if it is due; then every
 * inquiry and digest due at `now` is claimed and delivered (runQueue). No further delivery is started once
 * `stopping` says so. The server's worker runs a pass whenever something is due; the scheduled function on the
 * CDN deploy runs one every few minutes.
 */
export const deliveryPass = async (
  outbox: InquiryOutbox,
  config: InquiryConfig,
  log: OperationalLog,
  now: () => Date,
  stopping: () => boolean = () => false,
  content: DigestContent | null = null,
): Promise<PassOutcome> => {
  const made = content && !stopping() ? await makeDueDigest(outbox, config, content, log, now) : null;
  const run = await runQueue(outbox, config, log, now, { stopping, content });
  const counts = await outbox.counts(config.delivery.maxAttempts);
  return {
    delivered: run.delivered,
    failed: run.failed,
    reached: run.reached,
    due: run.due,
    ...counts.inquiry,
    quarantined: (await outbox.heldSummary()).count,
    digests: content ? { made, delivered: run.digestsDelivered, failed: run.digestsFailed, ...counts.digest } : null,
  };
};

/**
 * Delivers one stored inquiry straight away, for a platform with no worker between requests: its job alone is
 * claimed, so a run under way elsewhere neither waits for it nor delivers it too. Resolves to whether at least
 * one transport took it.
 */
export const deliverNow = async (
  outbox: InquiryOutbox,
  config: InquiryConfig,
  reference: string,
  log: OperationalLog,
  now: () => Date = () => new Date(),
): Promise<boolean> => (await runQueue(outbox, config, log, now, { reference })).reached > 0;
