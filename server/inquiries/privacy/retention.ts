import type { RetentionPolicy } from "../config";
import type { OperationalLog } from "../operational-log";
import { jobRows, HELD } from "../store/jobs";
import type { InquiryOutbox } from "../store/sql-outbox";
import { removeInquiries } from "./requests";

/** How often what is past its retention is removed: by the server's worker and the scheduled function alike. */
const RETENTION_EVERY_MS = 24 * 60 * 60 * 1000;
/** Inquiries removed per transaction, so that a large removal never holds the writer long. */
const REMOVAL_BATCH = 500;

/** What a retention run removed, by kind: counts only, never whose. */
export interface RemovedCounts {
  /** Inquiries past the months the privacy page states (any but unreleased suspected spam). */
  readonly inquiries: number;
  /** Suspected spam never released, past its days. */
  readonly quarantined: number;
  /** False when the run stopped early (it was told to): the rest is removed by the next run. */
  readonly complete: boolean;
}

/** The moment before which a retention of `months` (calendar months) or `days` has run out, at `now`. */
const retentionCutoffs = (now: Date, retention: RetentionPolicy) => {
  const delivered = new Date(now);
  delivered.setUTCMonth(delivered.getUTCMonth() - retention.deliveredMonths);
  return {
    delivered: delivered.toISOString(),
    quarantined: new Date(now.getTime() - retention.quarantinedDays * 86_400_000).toISOString(),
  };
};

/** What a retention run removed, for the log: how many, never whose. */
export const retentionLine = (removed: RemovedCounts, retention: RetentionPolicy): string =>
  `retention: removed ${removed.inquiries} inquiries past ${retention.deliveredMonths} months and ` +
  `${removed.quarantined} unreleased suspected spam past ${retention.quarantinedDays} days` +
  (removed.complete ? "" : "; the rest at the next run");

/** A batch of the inquiries past `cutoff`: the held ones (through their jobs' partial index), or all the others. */
const expired = (outbox: InquiryOutbox, held: boolean, cutoff: string) =>
  outbox.query((q) =>
    jobRows(q)
      .where("jobs.kind", "=", "inquiry")
      .where("jobs.state", held ? "=" : "<>", HELD)
      // A held inquiry's job was made when it arrived: its partial index finds the old ones alone.
      .$if(held, (rows) => rows.where("jobs.created_at", "<", cutoff))
      .where("inquiries.received_at", "<", cutoff)
      .where("inquiries.kept", "=", 0)
      // Any other goes the months after its sender's last inquiry.
      .$if(!held, (rows) =>
        rows.where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom("inquiries as later")
                .select("later.position")
                .whereRef("later.email", "=", "inquiries.email")
                .where("later.received_at", ">=", cutoff),
            ),
          ),
        ),
      )
      .limit(REMOVAL_BATCH)
      .execute(),
  );

/**
 * Removes what is past its time at `now`, as the privacy page promises: the inquiry with its job, attempts and
 * idempotency key. An inquiry goes the months after its sender's last one, unreleased suspected spam after its
 * days, a kept one never. A batch at a time (each its own transaction), through the indexes; once `stopping` says
 * so, no more (a scheduled run's time is up).
 */
export const removeExpired = async (
  outbox: InquiryOutbox,
  now: Date,
  retention: RetentionPolicy,
  stopping: () => boolean = () => false,
): Promise<RemovedCounts> => {
  const cutoffs = retentionCutoffs(now, retention);
  const counts = { inquiries: 0, quarantined: 0, complete: true };
  for (const [held, cutoff, kind] of [
    [false, cutoffs.delivered, "inquiries"],
    [true, cutoffs.quarantined, "quarantined"],
  ] as const) {
    for (
      let batch = await expired(outbox, held, cutoff);
      batch.length > 0 && counts.complete;
      batch = await expired(outbox, held, cutoff)
    ) {
      counts.complete = !stopping();
      if (counts.complete)
        counts[kind] += (
          await removeInquiries(
            outbox,
            batch.map((row) => row.subject),
          )
        ).length;
    }
  }
  // A digest lists only references; once the inquiries it listed are past their quarantine, it is of no use.
  if (!stopping()) {
    await outbox.write((q) =>
      q.deleteFrom("jobs").where("kind", "=", "digest").where("created_at", "<", cutoffs.quarantined).execute(),
    );
  }
  if (counts.inquiries + counts.quarantined > 0) await outbox.database.afterRemoval();
  return counts;
};

/**
 * Removes what is past its retention once a day, whichever process asks: the store remembers when the last whole
 * run started, as nothing else outlives a scheduled function or a release's server. Under the store's maintenance
 * lock, so that two runs never do it at once: a run that loses the lock (it stalled past its lease) stops, as one
 * cut short by `stopping` does, and the next run finishes it.
 */
export const removeExpiredDaily = async (
  outbox: InquiryOutbox,
  retention: RetentionPolicy,
  log: OperationalLog,
  at: Date,
  stopping: () => boolean = () => false,
): Promise<void> => {
  const due = async () => {
    const last = await outbox.lastRetentionAt();
    // One recorded later than now (a clock set back) would otherwise put the next run off until then.
    const since = last === null ? Number.POSITIVE_INFINITY : at.getTime() - last.getTime();
    return since < 0 || since >= RETENTION_EVERY_MS;
  };
  // Read first: most passes find it done, and take no lock for it.
  if (!(await due())) return;
  await outbox.whileMaintaining(
    async (lease) => {
      if (!(await due())) return;
      const removed = await removeExpired(outbox, at, retention, () => stopping() || !lease.mayStart());
      if (removed.complete) await outbox.recordRetention(at);
      log.info({ removed }, retentionLine(removed, retention));
    },
    0,
    (error) => log.warn({ err: error }, `retention: lost the store's maintenance lock: ${error.message}`),
  );
};
