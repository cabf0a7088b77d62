import { getStore, type Store } from "@netlify/blobs";
import { mapLimited } from "../map-limited";
import {
  attemptsByReference,
  UnknownLayoutError,
  type DeliveryAttempt,
  type OutboxRecord,
  type QuarantineRelease,
} from "./outbox";
import { chunksOf } from "./jobs";
import type { InquiryOutbox } from "./sql-outbox";

/**
 * A Netlify Blobs store that the site's earlier outbox wrote, read only. Of its keys (each blob written once,
 * never changed), a copy needs these: `inquiries/<reference>`, one inquiry; `attempts/<shard>/<reference>/...`,
 * one delivery attempt; `releases/<shard>/<reference>/...`, a held inquiry let through; `kept/<reference>`,
 * a mark to keep; and `meta/layout`, the layout's version ({ version: 1 }), absent from a store written
 * before versions were recorded. The rest indexed these for that outbox and holds nothing of its own.
 */
export interface BlobsSource {
  readonly store: Store;
  /** The store as an operator names it, for messages. */
  readonly location: string;
}

const LAYOUT_VERSION = 1;
/** Blobs read at once; a store holds thousands of small ones. */
const READ_CONCURRENCY = 16;

/**
 * The store `name`, through the Netlify API with a site's ID and a personal access token, or without them
 * where @netlify/blobs finds access in its environment (NETLIFY_BLOBS_CONTEXT, as Netlify gives a function).
 */
export const openBlobsSource = (name: string, site: { siteID: string; token: string } | null): BlobsSource => ({
  store: getStore({ name, consistency: "strong", ...site }),
  location: `Netlify Blobs store "${name}"${site ? ` of site ${site.siteID}` : ""}`,
});

/** The blobs under `prefix`, parsed; one that is not JSON of the shape is counted as damaged and left out. */
const readAll = async <T extends object>(
  { store }: BlobsSource,
  prefix: string,
  isWhole: (value: T) => boolean,
): Promise<{ items: T[]; damaged: number }> => {
  const { blobs } = await store.list({ prefix });
  // Null for a blob gone since the listing, whatever @netlify/blobs' types say.
  const texts: (string | null)[] = await mapLimited(blobs, READ_CONCURRENCY, ({ key }) =>
    store.get(key, { type: "text" }),
  );
  const items: T[] = [];
  let damaged = 0;
  for (const text of texts) {
    if (text === null) continue;
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value === "object" && value !== null && isWhole(value as T)) items.push(value as T);
      else damaged += 1;
    } catch {
      damaged += 1;
    }
  }
  return { items, damaged };
};

/** Stops before reading a store of a layout this code does not know (or one that is not an inquiry store). */
const checkLayout = async (source: BlobsSource): Promise<void> => {
  const text = (await source.store.get("meta/layout", { type: "text" })) as string | null;
  if (text === null) return;
  let found = "unreadable";
  try {
    const { version } = JSON.parse(text) as { version?: unknown };
    if (typeof version === "number") found = String(version);
  } catch {
    // Not JSON: not a stamp that outbox wrote.
  }
  if (found !== String(LAYOUT_VERSION)) throw new UnknownLayoutError(source.location, found, LAYOUT_VERSION);
};

/** Everything a copy takes from the store, inquiries oldest first. */
const readBlobsStore = async (source: BlobsSource) => {
  await checkLayout(source);
  const [records, attempts, releases, keptKeys] = await Promise.all([
    readAll<OutboxRecord>(source, "inquiries/", (record) => typeof record.reference === "string"),
    readAll<DeliveryAttempt>(source, "attempts/", (attempt) => typeof attempt.reference === "string"),
    readAll<QuarantineRelease>(source, "releases/", (release) => typeof release.reference === "string"),
    source.store.list({ prefix: "kept/" }),
  ]);
  return {
    records: records.items.sort(
      (a, b) => a.receivedAt.localeCompare(b.receivedAt) || a.reference.localeCompare(b.reference),
    ),
    attempts: attempts.items,
    releases: releases.items,
    kept: new Set(keptKeys.blobs.map(({ key }) => key.slice("kept/".length))),
    damaged: records.damaged + attempts.damaged + releases.damaged,
  };
};

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
export const copyFromBlobs = async (source: BlobsSource, store: InquiryOutbox): Promise<CopyCounts> => {
  const { records, attempts, releases, kept, damaged } = await readBlobsStore(source);
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
  return { found: { inquiries: records.length, attempts: attempts.length, damaged }, copied };
};
