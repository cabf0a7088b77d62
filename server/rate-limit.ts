import RateLimiterMemory from "rate-limiter-flexible/lib/RateLimiterMemory";

/**
 * The site's one rate-limit library, rate-limiter-flexible's in-memory limiter: it needs no framework, so the
 * inquiry core counts with it in a Netlify function as on the single server, and the single server's own
 * limits (every request, the sign-in) count with the same one.
 */

export type RateDecision = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number };

export interface RateLimit {
  readonly requests: number;
  readonly windowSeconds: number;
}

export interface RateLimiter {
  /** Counts one request from `client` and says whether it is within the limit. */
  take(client: string): Promise<RateDecision>;
}

/** A limiter that counts in this process's memory, each client's count forgotten once its window ends. */
export const memoryRateLimiter = ({ requests, windowSeconds }: RateLimit): RateLimiter => {
  const limiter = new RateLimiterMemory({ points: requests, duration: windowSeconds });
  return {
    take: async (client) => {
      try {
        await limiter.consume(client);
        return { allowed: true };
      } catch (rejection) {
        // A limiter kept on the process (process-wide.ts) may come from an earlier load of this module,
        // so its result class is not this load's: recognise a refusal by its shape.
        const msBeforeNext = (rejection as { msBeforeNext?: unknown }).msBeforeNext;
        if (typeof msBeforeNext !== "number") throw rejection;
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(msBeforeNext / 1000)) };
      }
    },
  };
};
