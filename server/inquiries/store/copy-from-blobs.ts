import type { BlobsOutbox } from "../blobs-outbox";
import { attemptsByReference } from "../outbox";
import { chunksOf } from "./jobs";
import type { SqlOutbox } from "./sql-outbox";

interface CopyCounts {
  /** What the Blobs store holds: inquiries, their attempts, and records it could not read. */
  readonly found: { readonly inquiries: number; readonly attempts: number; readonly damaged: number };
  /** What the database did not hold yet and now does. */
  readonly copied: { readonly inquiries: number; readonly attempts: number };
}

/**
 * Copies a Blobs store's inquiries into the SQL store: each with its attempts, its release and its mark to keep,
 * under its own reference, so a release link of a held one works on the database as it did on Blobs. What the
 * database already holds is left as it is and only what it lacks is added, so a copy run again adds nothing.
 * A chunk of inquiries at a time, each in a transaction of its own, so that a large store is copied in steps.
 */
export const copyFromBlobs = async (blobs: BlobsOutbox, store: SqlOutbox): Promise<CopyCounts> => {
  const [{ records, attempts, releases, damagedLines }, keptReferences] = await Promise.all([
    blobs.read(),
    blobs.keptReferences(),
  ]);
  const kept = new Set(keptReferences);
  const attemptsOf = attemptsByReference(attempts);
  const releaseOf = new Map(releases.map((release) => [release.reference, release]));
  const copied = { inquiries: 0, attempts: 0 };
  for (const batch of chunksOf(records)) {
    const added = await store.absorb({
      records: batch,
      attempts: batch.flatMap(({ reference }) => attemptsOf.get(reference) ?? []),
      releases: batch.flatMap(({ reference }) => releaseOf.get(reference) ?? []),
      kept: batch.filter(({ reference }) => kept.has(reference)).map(({ reference }) => reference),
    });
    copied.inquiries += added.inquiries;
    copied.attempts += added.attempts;
  }
  return { found: { inquiries: records.length, attempts: attempts.length, damaged: damagedLines }, copied };
};
