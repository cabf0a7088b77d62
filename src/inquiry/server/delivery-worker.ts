import type { InquiryConfig } from "./config";
import { deliver } from "./deliver";
import { Outbox, type OutboxEntry } from "./outbox";

export interface DeliveryWorkerOptions {
  readonly outbox: Outbox;
  readonly config: () => InquiryConfig;
  readonly log: (line: string) => void;
  readonly now?: () => Date;
  /** The longest the worker sleeps before it looks at the outbox again (another process may have written). */
  readonly idleMs?: number;
}

/** What the worker last saw, for the health endpoint. */
export interface WorkerStatus {
  readonly lastPassAt: string | null;
  readonly lastPassFailed: boolean;
  readonly pending: number;
  readonly dead: number;
  readonly quarantined: number;
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
const LOCKED_RETRY_MS = 2_000;

/**
 * Runs `task` over `items`, at most `limit` at a time. A task that throws, or `stopping` turning true,
 * stops starting new ones, but the call settles only once every task under way has: the caller holds
 * the delivery lock until then.
 */
const eachLimited = async <T>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<void>,
  stopping: () => boolean = () => false,
) => {
  let next = 0;
  let failed = false;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length && !failed && !stopping()) {
      const item = items[next];
      next += 1;
      if (item === undefined) continue;
      try {
        await task(item);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  });
  const outcomes = await Promise.allSettled(lanes);
  const rejected = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
  if (rejected) throw rejected.reason;
};

/** The entries whose delivery is due at `now`: pending, not quarantined, not given up on. */
const dueEntries = (entries: readonly OutboxEntry[], now: Date): OutboxEntry[] =>
  entries.filter((entry) => entry.state === "pending" && entry.dueAt !== null && Date.parse(entry.dueAt) <= now.getTime());

/**
 * Delivers the given entries through each transport they still need, at most `concurrency` at once.
 * A transport that has used up its attempts is left alone unless `retryDead` (a person asked for it):
 * the worker must not go on retrying it just because another transport of the inquiry is still due.
 * Once `stopping` says so, no further inquiry is started (the server is shutting down).
 */
export const deliverEntries = async (
  entries: readonly OutboxEntry[],
  outbox: Outbox,
  config: InquiryConfig,
  log: (line: string) => void,
  now: () => Date,
  { retryDead = false, stopping }: { readonly retryDead?: boolean; readonly stopping?: () => boolean } = {},
): Promise<DeliverySummary> => {
  let delivered = 0;
  let failed = 0;
  let reached = 0;
  await eachLimited(entries, config.delivery.concurrency, async (entry) => {
    const transports = entry.record.transports.filter(
      (transport) =>
        entry.deliveries[transport] !== "delivered" && (retryDead || entry.deliveries[transport] !== "dead"),
    );
    if (transports.length === 0) return;
    const results = await deliver(entry.record, transports, config, outbox, entry.attemptsByTransport, now);
    if (results.every((result) => result.ok)) delivered += 1;
    else failed += 1;
    if (results.some((result) => result.ok)) reached += 1;
    log(
      `${entry.record.reference} ${results
        .map((result) => `${result.transport}: ${result.ok ? "sent" : `failed (${result.detail ?? "unknown"})`}`)
        .join("; ")}`,
    );
  }, stopping);
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
  private lastStatus: WorkerStatus = { lastPassAt: null, lastPassFailed: false, pending: 0, dead: 0, quarantined: 0 };
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
      await (this.running ?? new Promise((resolve) => setTimeout(resolve, 5)));
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
          this.options.log(`delivery pass failed: ${(error as NodeJS.ErrnoException).code ?? (error as Error).name}`);
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

  /** One pass over the due inquiries; resolves to how long to sleep before the next one. */
  private async pass(): Promise<number> {
    const config = this.options.config();
    const { outbox, log } = this.options;
    const outcome = await outbox.whileDelivering(async () => {
      const { entries } = await outbox.entries(config.delivery.maxAttempts);
      const due = dueEntries(entries, this.now());
      if (due.length > 0) await deliverEntries(due, outbox, config, log, this.now, { stopping: () => this.stopped });
      // Read again: this pass's failures set new due times.
      const after = due.length > 0 ? (await outbox.entries(config.delivery.maxAttempts)).entries : entries;
      const count = (state: OutboxEntry["state"]) => after.filter((entry) => entry.state === state).length;
      this.lastStatus = {
        lastPassAt: this.now().toISOString(),
        lastPassFailed: false,
        pending: count("pending"),
        dead: count("dead"),
        quarantined: count("quarantined"),
      };
      const nextDue = after
        .flatMap((entry) => (entry.state === "pending" && entry.dueAt !== null ? [Date.parse(entry.dueAt)] : []))
        .sort((a, b) => a - b)[0];
      return nextDue === undefined ? this.idleMs : Math.min(this.idleMs, Math.max(0, nextDue - this.now().getTime()));
    }, 0, (error) => log(`delivery lock lost during a pass: ${(error as NodeJS.ErrnoException).code ?? error.name}`));
    return outcome ? outcome.value : LOCKED_RETRY_MS;
  }
}

/**
 * Delivers one stored inquiry straight away, for a platform with no worker between requests.
 * Resolves to whether at least one transport took it.
 */
export const deliverNow = async (
  config: InquiryConfig,
  reference: string,
  log: (line: string) => void,
  now: () => Date = () => new Date(),
): Promise<boolean> => {
  const outbox = new Outbox(config.dataDir);
  const { entries } = await outbox.entries(config.delivery.maxAttempts);
  const entry = entries.find((candidate) => candidate.record.reference === reference);
  if (entry?.state !== "pending") return false;
  const { reached } = await deliverEntries([entry], outbox, config, log, now);
  return reached > 0;
};
