import { BlobsOutbox } from "./blobs-outbox";
import { BlobsStore, type BlobsEdgeAccess } from "./blobs-store";
import type { InquiryConfig } from "./config";
import { importFileOutbox } from "./file-outbox-import";
import type { InquiryOutbox } from "./outbox";
import { SqliteOutbox } from "./sqlite-outbox";

/**
 * The outbox this deployment is configured with (INQUIRY_OUTBOX): the database in INQUIRY_DATA_DIR, or
 * the Netlify Blobs store INQUIRY_BLOBS_STORE. `edge` is the store access a function received with its
 * invocation, where it has one (blobsAccessFromLambdaEvent).
 */
export const openOutbox = (config: InquiryConfig, edge: BlobsEdgeAccess | null = null): InquiryOutbox =>
  config.outbox === "blobs"
    ? new BlobsOutbox(new BlobsStore(config.blobs, edge), { attemptTimeoutMs: config.delivery.attemptTimeoutMs })
    : new SqliteOutbox(config.dataDir);

/**
 * Brings the files of the outbox from before the database into it, where there are any (the server's
 * start, and `npm run inquiries`, call this). A failure is logged, not thrown: the site goes on serving,
 * and the files stay where they are for the next try.
 */
export const importEarlierOutbox = async (outbox: InquiryOutbox, log: (line: string) => void): Promise<void> => {
  if (!(outbox instanceof SqliteOutbox)) return;
  try {
    const report = await importFileOutbox(outbox.dir, outbox);
    if (!report) return;
    log(
      `imported the earlier outbox's files into ${outbox.location}: ${report.inquiries} inquiries ` +
        `(${report.added} new), ${report.attempts} delivery attempts, ${report.releases} releases; ` +
        `${report.damagedLines} damaged line(s) skipped; the files were removed`,
    );
  } catch (error) {
    log(
      `the earlier outbox's files could not be imported: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
};
