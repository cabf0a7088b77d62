import type { FastifyReply, FastifyRequest } from "fastify";
import { clientKey } from "../inquiries/intake/client-address";
import { memoryRateLimiter, type RateLimit } from "../rate-limit";
import { COULD_NOT_HANDLE } from "./refusals";

/**
 * An onRequest hook for the single server's own limits (server/rate-limit.ts): each request counts against
 * its client's address (clientKey, as the inquiry limit counts it), and one past the limit is answered 429
 * with Retry-After, before its body is read. Each call is a limiter of its own, so a route limited apart
 * (the sign-in) keeps its count whatever else is limited or not.
 */
export const limitRequests = (
  limit: RateLimit,
  exempt: (request: FastifyRequest) => boolean = () => false,
): ((request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>) => {
  const limiter = memoryRateLimiter(limit);
  return async (request, reply) => {
    if (exempt(request)) return undefined;
    const decision = await limiter.take(clientKey(request.ip));
    if (decision.allowed) return undefined;
    return reply
      .code(429)
      .headers({ "Retry-After": String(decision.retryAfterSeconds), "Cache-Control": "no-store" })
      .send({ error: COULD_NOT_HANDLE });
  };
};
