import RateLimiterMemory from "rate-limiter-flexible/lib/RateLimiterMemory";

export type RateDecision = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number };

interface Limit {
  readonly requests: number;
  readonly windowSeconds: number;
}

// Gatsby's server loads a function's module afresh for every request, so the counters live on the
// process, one limiter per configured limit.
const LIMITERS_KEY = Symbol.for("gov-supply-site.inquiry-rate-limiters");
const limiters = (): Map<string, RateLimiterMemory> => {
  const holder = globalThis as typeof globalThis & { [LIMITERS_KEY]?: Map<string, RateLimiterMemory> };
  holder[LIMITERS_KEY] ??= new Map();
  return holder[LIMITERS_KEY];
};

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
