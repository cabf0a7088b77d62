import { memoryRateLimiter, type RateDecision, type RateLimit, type RateLimiter } from "../../rate-limit";
import { processWide } from "../process-wide";

// One limiter per configured limit, for the whole process: a function's module may be loaded afresh for
// every request (process-wide.ts), and the count must outlive it.
const limiters = () => processWide("inquiry-rate-limits", () => new Map<string, RateLimiter>());

/** Counts one accepted submission from a client and says whether it is within the limit. */
export const takeRateLimit = (limit: RateLimit, client: string): Promise<RateDecision> => {
  const key = `${limit.requests}/${limit.windowSeconds}`;
  let limiter = limiters().get(key);
  if (!limiter) {
    limiter = memoryRateLimiter(limit);
    limiters().set(key, limiter);
  }
  return limiter.take(client);
};
