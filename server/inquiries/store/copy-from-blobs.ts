import type { InquiryOutbox, RetainingOutbox } from "../outbox";
import type { SqlOutbox } from "./sql-outbox";

/** Inquiries copied per transaction: a large store is copied in steps, each whole or not at all. */
const BATCH = 500;

export interface CopyCounts {
  /** What the Blobs store holds: inquiries, their attempts, and records it could not read. */
  readonly found: { readonly inquiries: number; readonly attempts: number; readonly damaged: number };
  /** What the database did not hold yet and now does. */
  readonly copied: { readonly inquiries: number; readonly attempts: number };
}

/**
 * Copies a Blobs store's inquiries into the SQL store: each with its attempts, its release and its mark to keep,
 * under its own reference, so a release link of a held one works on the database as it did on Blobs. What the
 * database already holds is left as it is and only what it lacks is added, so a copy run again adds nothing.
 */
export const copyFromBlobs = async (blobs: InquiryOutbox & RetainingOutbox, store: SqlOutbox): Promise<CopyCounts> => {
  const { records, attempts, releases, damagedLines } = await blobs.read();
  const copied = { inquiries: 0, attempts: 0 };
  for (let start = 0; start < records.length; start += BATCH) {
    const batch = records.slice(start, start + BATCH);
    const references = new Set(batch.map((record) => record.reference));
    // Only a stored inquiry says whether it is kept: read per inquiry, a copy is a one-off.
    const kept = await Promise.all(batch.map(async ({ reference }) => (await blobs.stored(reference))?.kept ?? false));
    const added = await store.absorb({
      records: batch,
      attempts: attempts.filter((attempt) => references.has(attempt.reference)),
      releases: releases.filter((release) => references.has(release.reference)),
      kept: batch.filter((_, index) => kept[index]).map((record) => record.reference),
    });
    copied.inquiries += added.inquiries;
    copied.attempts += added.attempts;
  }
  return { found: { inquiries: records.length, attempts: attempts.length, damaged: damagedLines }, copied };
};
