import { getStore, type Store } from "@netlify/blobs";
import * as z from "zod/mini";

/**
 * The credentials a function in Lambda compatibility mode receives with each invocation (the inquiry
 * function that gatsby-adapter-netlify generates is one): `event.blobs`, Base64 JSON, and the site in a
 * header. `connectLambda` from @netlify/blobs keeps the cached edge URL only, with which every
 * strongly consistent request throws; the uncached one (`url_uncached`, as netlify-cli's emulation of
 * the event also sets it) is what strong consistency needs.
 */
export interface BlobsEdgeAccess {
  readonly siteID: string;
  readonly token: string;
  readonly edgeURL: string;
  readonly uncachedEdgeURL: string;
}

const lambdaBlobs = z.object({ url: z.string(), url_uncached: z.string(), token: z.string() });
const lambdaEvent = z.object({
  blobs: z.string(),
  headers: z.record(z.string(), z.unknown()),
});

/** The store credentials in a Lambda event, or null when it carries none that allow strong consistency. */
export const blobsAccessFromLambdaEvent = (event: unknown): BlobsEdgeAccess | null => {
  const parsedEvent = lambdaEvent.safeParse(event);
  if (!parsedEvent.success) return null;
  let data: unknown;
  try {
    data = JSON.parse(Buffer.from(parsedEvent.data.blobs, "base64").toString("utf8"));
  } catch {
    return null;
  }
  const parsed = lambdaBlobs.safeParse(data);
  const siteID = parsedEvent.data.headers["x-nf-site-id"];
  if (!parsed.success || typeof siteID !== "string" || siteID === "") return null;
  return { siteID, token: parsed.data.token, edgeURL: parsed.data.url, uncachedEdgeURL: parsed.data.url_uncached };
};

/** A write the store refused or failed, told apart from "the key was there". */
export class BlobsWriteError extends Error {
  constructor(
    readonly key: string,
    readonly status: number | null,
  ) {
    super(`Netlify Blobs did not store ${key}${status === null ? "" : ` (HTTP ${status})`}`);
    this.name = "BlobsWriteError";
  }
}

type Fetcher = typeof globalThis.fetch;

/** One Netlify Blobs store, every request strongly consistent, reached with the credentials of the invocation. */
export class BlobsStore {
  private readonly reader: Store;

  constructor(
    private readonly name: string,
    private readonly edge: BlobsEdgeAccess,
  ) {
    this.reader = this.open(globalThis.fetch);
  }

  private open(fetch: Fetcher): Store {
    return getStore({ name: this.name, consistency: "strong", fetch, ...this.edge });
  }

  /** Removes the entry; one that is not there is no error. */
  async delete(key: string): Promise<void> {
    await this.reader.delete(key);
  }

  /** Every key under `prefix`, with its ETag (paginated lists are followed to their end). */
  async list(prefix: string): Promise<{ key: string; etag: string }[]> {
    return (await this.reader.list({ prefix })).blobs;
  }

  /**
   * Writes JSON only if the key is new: false when it was there. @netlify/blobs reports a conditional write
   * that was answered with an error (a 401, a 500 after its retries) as `modified: true`, the same as one
   * that was stored; the status of the last response is checked here instead, so a failed write is never
   * taken for a first one.
   */
  async writeIfNew(key: string, value: unknown): Promise<boolean> {
    const statuses: number[] = [];
    const recording: Fetcher = async (input, init) => {
      const response = await globalThis.fetch(input, init);
      statuses.push(response.status);
      return response;
    };
    await this.open(recording).setJSON(key, value, { onlyIfNew: true });
    // Through the Netlify API a write is two requests (a signed URL, then the upload): the last one counts.
    const status = statuses[statuses.length - 1] ?? null;
    if (status === 412) return false;
    if (status === null || status < 200 || status > 299) throw new BlobsWriteError(key, status);
    return true;
  }
}
