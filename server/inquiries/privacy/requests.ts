import { chunksOf, inquiryJobs, NO_ATTEMPT_LIMIT, type InquiryJob, type JobRows } from "../store/jobs";
import { senderAddressKey, type DeliveryAttempt, type OutboxRecord } from "../store/outbox";
import type { InquiryOutbox } from "../store/sql-outbox";

/** An inquiry with everything stored about it, as an export on request gives it. */
export interface StoredInquiry {
  readonly record: OutboxRecord;
  readonly attempts: readonly DeliveryAttempt[];
  readonly releasedAt: string | null;
  /** Marked by an operator as kept (tied to a quote or an order): never removed by retention. */
  readonly kept: boolean;
}

const storedOf = ({ entry, row, attempts }: InquiryJob): StoredInquiry => ({
  record: entry.record,
  attempts: attempts.map((outcome) => ({ reference: row.subject, ...outcome })),
  releasedAt: row.released_at,
  kept: row.kept === 1,
});

const storedWhere = (outbox: InquiryOutbox, where: (rows: JobRows) => JobRows): Promise<StoredInquiry[]> =>
  outbox.query(async (q) => (await inquiryJobs(q, NO_ATTEMPT_LIMIT, where)).map(storedOf));

/** Every inquiry sent from `address` (compared without regard to case), oldest first: what an export gives. */
export const inquiriesFrom = (outbox: InquiryOutbox, address: string): Promise<StoredInquiry[]> =>
  storedWhere(outbox, (rows) =>
    rows.where("inquiries.email", "=", senderAddressKey(address)).orderBy("inquiries.received_at"),
  );

/** One inquiry with everything stored about it; null when there is none. */
export const storedInquiry = async (outbox: InquiryOutbox, reference: string): Promise<StoredInquiry | null> =>
  (await storedWhere(outbox, (rows) => rows.where("jobs.subject", "=", reference)))[0] ?? null;

/** Marks one inquiry as never to be removed by retention; false when there is no such inquiry. */
export const keepInquiry = (outbox: InquiryOutbox, reference: string): Promise<boolean> =>
  outbox.write(async (q) => {
    const kept = await q
      .updateTable("inquiries")
      .set({ kept: 1 })
      .where("reference", "=", reference)
      .executeTakeFirst();
    return kept.numUpdatedRows > 0n;
  });

/**
 * Removes the inquiries, their jobs and (through the foreign key) their attempts, in one transaction, without yet
 * wiping the files they were in (erase and retention do that once they are done); resolves to those that were there.
 */
export const removeInquiries = (outbox: InquiryOutbox, references: readonly string[]): Promise<string[]> =>
  outbox.write(async (q) => {
    const removed = new Set<string>();
    for (const chunk of chunksOf(references)) {
      await q.deleteFrom("jobs").where("kind", "=", "inquiry").where("subject", "in", chunk).execute();
      const rows = await q.deleteFrom("inquiries").where("reference", "in", chunk).returning("reference").execute();
      for (const row of rows) removed.add(row.reference);
    }
    return references.filter((reference) => removed.has(reference));
  });

/** Erases the inquiries on request, gone from the database's files too; resolves to the references that were there. */
export const eraseInquiries = async (outbox: InquiryOutbox, references: readonly string[]): Promise<string[]> => {
  const removed = await removeInquiries(outbox, references);
  await outbox.database.afterRemoval();
  return removed;
};
