import RateLimiterMemory from "rate-limiter-flexible/lib/RateLimiterMemory";
import { processWide } from "./process-wide";

export type RateDecision = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number };

interface Limit {
  readonly requests: number;
  readonly windowSeconds: number;
}

// One limiter per configured limit, for the whole process.
const limiters = () => processWide("inquiry-rate-limiters", () => new Map<string, RateLimiterMemory>());

/** Counts one accepted submission from a client and says whether it is within the limit. */
export const takeRateLimit = async (limit: Limit, client: string): Promise<RateDecision> => {
  const key = `${limit.requests}/${limit.windowSeconds}`;
  let limiter = limiters().get(key);
  if (!limiter) {
    limiter = new RateLimiterMemory({ points: limit.requests, duration: limit.windowSeconds });
    limiters().set(key, limiter);
  }
  try {
    await limiter.consume(client);
    return { allowed: true };
  } catch (rejection) {
    // The limiter may come from an earlier load of this module, so its result class is not this
    // load's: recognise a refusal by its shape.
    const msBeforeNext = (rejection as { msBeforeNext?: unknown }).msBeforeNext;
    if (typeof msBeforeNext !== "number") throw rejection;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(msBeforeNext / 1000)) };
  }
};
