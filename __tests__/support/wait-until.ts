import { setTimeout as sleep } from "node:timers/promises";

/** Resolves once `check` holds, asking every 25 ms; rejects naming `what` if it does not within the time-out. */
export const waitUntil = async (check: () => boolean, timeoutMs = 8_000, what = "the condition"): Promise<void> => {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`${what} did not hold within ${timeoutMs} ms`);
    await sleep(25);
  }
};
