import type { BlobsStore } from "./blobs-store";
import type { SpentStates } from "./github-oauth";

/** The Netlify Blobs store in which the CDN deploy's sign-in callbacks record the states they have spent. */
export const SPENT_STATES_STORE = "sign-in-states";

/**
 * Spent sign-in states in a Netlify Blobs store: the CDN's functions keep nothing between invocations, and
 * a replayed callback may reach another instance than the first. A state is written only if new (a
 * conditional write, so of two callbacks with the same state exactly one is first). Each key begins with
 * its expiry, so each spend also removes the records that have expired, without reading them: editors
 * sign in a few times a day, and the store stays as small as the states of the last ten minutes.
 */
export const blobsSpentStates = (store: BlobsStore, now: () => number = Date.now): SpentStates => ({
  spend: async (key, expiresAtMs) => {
    const time = now();
    for (const { key: recorded } of await store.list("")) {
      const expiry = Number(recorded.split("-", 1)[0]);
      if (Number.isFinite(expiry) && expiry <= time) await store.delete(recorded);
    }
    return store.writeIfNew(`${expiresAtMs}-${key}`, { spent: true });
  },
});
