/**
 * Runs `task` over `items`, at most `limit` at a time, and resolves to the results in the order of
 * `items`: the one concurrency limit of the inquiry code (deliveries, and the reads of a Blobs store being copied).
 * A task that throws stops new ones from starting, but the call settles only once every task under way has,
 * so a caller holding a lock (the delivery worker's) holds it until then; it then throws the first failure.
 */
export const mapLimited = async <T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> => {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const lane = async () => {
    while (next < items.length && !failed) {
      const index = next;
      next += 1;
      try {
        results[index] = await task(items[index] as T);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const outcomes = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, lane));
  const rejected = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
  if (rejected) throw rejected.reason;
  return results;
};
