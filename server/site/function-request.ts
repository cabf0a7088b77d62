import type { GatsbyFunctionRequest } from "gatsby";

/** What the site's Gatsby Functions (the CDN deploy's /api/ routes) read of a request the same way. */

/** A single value of a request header that may repeat. */
export const header = (req: GatsbyFunctionRequest, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * Whether the function was called at its own address, `/.netlify/functions/<name>`, rather than through
 * netlify.toml's route from its /api/ path. Netlify gives a function the path the visitor asked for (the
 * event's `path`, which the adapter makes the request's URL; netlify/cli#559), and serves that address
 * as well, where no redirect rule, and so no rate limit across instances, can reach: Netlify's own
 * parser refuses a rule from /.netlify/. So the function answers there as for any path without a page.
 */
/** What a function answers at its own address, or where it does not exist: a 404 as for any path without a page. */
export const FUNCTION_NOT_FOUND = {
  status: 404,
  headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" },
  body: JSON.stringify({ error: "Not found." }),
} as const;

export const calledAtOwnAddress = (req: GatsbyFunctionRequest): boolean => {
  const url = (req as GatsbyFunctionRequest & { readonly originalUrl?: string }).originalUrl ?? req.url ?? "";
  return url.startsWith("/.netlify/");
};
