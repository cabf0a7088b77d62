import { functionLog, type OperationalLog } from "../operational-log";
import { instanceInquiryConfig, type InquiryConfig } from "../config";
import type { InquiryContent } from "../content";
import { deliveryPass, type PassOutcome } from "../delivery/delivery-worker";
import { removeExpiredDaily } from "../privacy/retention";
import type { DigestContent } from "../held/digest";
import { openOutbox } from "../store/open-outbox";
import type { InquiryOutbox } from "../store/sql-outbox";

/** How long Netlify lets a scheduled function run. */
const SCHEDULED_RUN_LIMIT_MS = 30_000;
/** Kept free at the end of a run for recording the last outcomes and answering. */
const END_MARGIN_MS = 3_000;

export interface ScheduledDeliveryOptions {
  /** The inquiry settings; the scheduled function's are its instance's (instanceInquiryConfig). */
  readonly config: () => InquiryConfig;
  /** Opens the outbox; the configured one by default (tests give their own lease timings). */
  readonly outbox?: (config: InquiryConfig) => InquiryOutbox;
  readonly log?: OperationalLog;
  readonly now?: () => Date;
  /** How long one run may take in all; the platform's limit by default. */
  readonly runLimitMs?: number;
  /** The copy and the company's details the digest of held inquiries needs; without them, a run makes none. */
  readonly content?: DigestContent;
}

/** What one scheduled run reports: its pass, or why it made none. */
export type ScheduledOutcome =
  ({ readonly ran: true } & PassOutcome) | { readonly ran: false; readonly reason: "not-shared" };

/**
 * One run of the scheduled delivery on the CDN deploy (netlify/functions/deliver-inquiries.mts): the
 * same pass as the single server's worker (deliveryPass: the same backoff, attempt limit and dead
 * letters, and the daily digest of held inquiries), over Netlify Database, claiming what it delivers. A run starts
 * deliveries only while each can still end within the platform's time limit; what it leaves, the next run
 * takes up.
 */
export const runScheduledDelivery = async (options: ScheduledDeliveryOptions): Promise<ScheduledOutcome> => {
  const startedAt = Date.now();
  const config = options.config();
  const log = options.log ?? functionLog("deliver-inquiries");
  const now = options.now ?? (() => new Date());
  if (config.outbox === "sqlite") {
    // A function's own folder holds nothing another invocation wrote: a setting for the operator to mend.
    log.error("INQUIRY_OUTBOX is sqlite: there is no shared store to deliver from");
    return { ran: false, reason: "not-shared" };
  }
  const lastStart =
    startedAt + (options.runLimitMs ?? SCHEDULED_RUN_LIMIT_MS) - config.delivery.attemptTimeoutMs - END_MARGIN_MS;
  const outbox = (options.outbox ?? openOutbox)(config);
  const outcome = await deliveryPass(outbox, config, log, now, () => Date.now() > lastStart, options.content ?? null);
  log.info(
    `${outcome.due} due: ${outcome.delivered} delivered, ${outcome.failed} failed; ` +
      `${outcome.pending} pending, ${outcome.dead} dead, ${outcome.quarantined} quarantined`,
  );
  // After the deliveries, with the time left: what is due to visitors goes first.
  const retentionStop = startedAt + (options.runLimitMs ?? SCHEDULED_RUN_LIMIT_MS) - END_MARGIN_MS;
  await removeExpiredDaily(outbox, config.retention, log, now(), () => Date.now() > retentionStop);
  return { ran: true, ...outcome };
};

/** The scheduled function itself: a modern Netlify function (a Request in, a Response out). */
export const createScheduledDelivery = (
  delivery: InquiryContent["form"]["delivery"],
  options: Omit<ScheduledDeliveryOptions, "config"> = {},
) => {
  const run = { ...options, config: instanceInquiryConfig(delivery) };
  return async (): Promise<Response> => {
    try {
      return Response.json(await runScheduledDelivery(run));
    } catch (error) {
      // Nothing is lost: the inquiries stay in the store for the next run.
      const log = options.log ?? functionLog("deliver-inquiries");
      log.error({ err: error }, `run failed: ${(error as Error).name}: ${(error as Error).message}`);
      return Response.json({ ran: false, reason: "failed" }, { status: 500 });
    }
  };
};
