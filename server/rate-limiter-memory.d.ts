// The package's entry point requires every storage backend it supports (Redis, Mongo, Drizzle…),
// which a bundler would pack into the function; only the in-memory limiter is used.
declare module "rate-limiter-flexible/lib/RateLimiterMemory" {
  import { RateLimiterMemory } from "rate-limiter-flexible";
  export = RateLimiterMemory;
}
