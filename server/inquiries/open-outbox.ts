import { BlobsOutbox } from "./blobs-outbox";
import { BlobsStore, type BlobsEdgeAccess } from "./blobs-store";
import type { InquiryConfig } from "./config";
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
