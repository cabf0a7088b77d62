import { getStore, type Store } from "@netlify/blobs";
import * as z from "zod/mini";
import type { BlobsSettings } from "./config";

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

/** A write the store refused or failed, told apart from "the condition did not hold". */
export class BlobsWriteError extends Error {
  constructor(
    readonly key: string,
    readonly status: number | null,
  ) {
    super(`Netlify Blobs did not store ${key}${status === null ? "" : ` (HTTP ${status})`}`);
    this.name = "BlobsWriteError";
  }
}

export type WriteCondition = { readonly onlyIfNew: true } | { readonly onlyIfMatch: string };

export interface WriteOutcome {
  /** False when the condition did not hold: nothing was written. */
  readonly written: boolean;
  /** The entry's new ETag, where the store sent one. */
  readonly etag: string | null;
}

type Fetcher = typeof globalThis.fetch;

/**
 * One Netlify Blobs store, every request strongly consistent, reached in whichever way this process
 * can: with the credentials of the invocation (a Lambda-compatible function), with a site ID and a
 * personal access token through the Netlify API (the CLI, a server; a local Blobs server directly), or
 * from the environment a modern Netlify function is given (the scheduled delivery).
 */
export class BlobsStore {
  readonly location: string;
  /** The same for every BlobsStore on the same store, for state kept per store in this process. */
  readonly identity: string;
  private readonly reader: Store;

  constructor(
    private readonly settings: BlobsSettings,
    private readonly edge: BlobsEdgeAccess | null = null,
  ) {
    const siteID = edge?.siteID ?? settings.siteID;
    this.location = `Netlify Blobs store "${settings.store}"${siteID ? ` of site ${siteID}` : ""}`;
    this.identity = `${siteID ?? "(this site)"}/${settings.store}`;
    this.reader = this.open(globalThis.fetch);
  }

  private open(fetch: Fetcher): Store {
    const common = { name: this.settings.store, consistency: "strong" as const, fetch };
    if (this.edge) return getStore({ ...common, ...this.edge });
    const { siteID, token, serverURL } = this.settings;
    if (siteID && token) {
      const direct = serverURL ? { edgeURL: serverURL, uncachedEdgeURL: serverURL } : {};
      return getStore({ ...common, siteID, token, ...direct });
    }
    return getStore(common);
  }

  /** The entry as text, or null when there is none. */
  async get(key: string): Promise<string | null> {
    return this.reader.get(key, { type: "text" });
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
   * The folders directly under `prefix` (keys up to their next "/"), without listing the keys inside
   * them: e.g. the days of a by-day index, one entry per day however many keys each holds.
   */
  async directories(prefix: string): Promise<string[]> {
    return (await this.reader.list({ prefix, directories: true })).directories;
  }

  /** Whether the store holds anything at all: one listing page at most, however large the store. */
  async holdsAnything(): Promise<boolean> {
    for await (const page of this.reader.list({ paginate: true })) {
      if (page.blobs.length > 0 || page.directories.length > 0) return true;
    }
    return false;
  }

  /**
   * Writes JSON, under a condition if given. @netlify/blobs reports a conditional write that was
   * answered with an error (a 401, a 500 after its retries) as `modified: true`, the same as one that
   * was stored; the status of the last response is checked here instead, so a failed write is never
   * taken for a stored inquiry.
   */
  async write(key: string, value: unknown, condition: WriteCondition | null = null): Promise<WriteOutcome> {
    const statuses: number[] = [];
    const recording: Fetcher = async (input, init) => {
      const response = await globalThis.fetch(input, init);
      statuses.push(response.status);
      return response;
    };
    const store = this.open(recording);
    const result = await store.setJSON(key, value, condition ?? {});
    // Through the Netlify API a write is two requests (a signed URL, then the upload): the last one counts.
    const status = statuses[statuses.length - 1] ?? null;
    if (condition && status === 412) return { written: false, etag: null };
    if (status === null || status < 200 || status > 299) throw new BlobsWriteError(key, status);
    // An empty ETag is none: the lease then cannot be extended, and runs out on its own.
    return { written: result.modified, etag: result.etag === undefined || result.etag === "" ? null : result.etag };
  }
}
