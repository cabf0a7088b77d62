import type { HeaderRoutes, IAdapter, RoutesManifest } from "gatsby";
import createNetlifyAdapter from "gatsby-adapter-netlify";
import { commonHeaders } from "../server/site/common-headers";

type AdaptContext = Parameters<IAdapter["adapt"]>[0];

/**
 * Netlify's build sets NETLIFY; `npm run build:netlify` sets NETLIFY_LOCAL to build the same output here.
 * Any other build (npm run build, the single server's) has no adapter and writes no .netlify/.
 */
export const buildingForNetlify = (): boolean => Boolean(process.env.NETLIFY) || Boolean(process.env.NETLIFY_LOCAL);

/** What Netlify sends for a file that no rule gives a Cache-Control: cache it, but ask again every time. */
export const PLATFORM_DEFAULT_CACHE_CONTROL = "public, max-age=0, must-revalidate";

/**
 * Headers of Gatsby's own rules that the site's public/_headers already sets for every path ("/*", from
 * build/security-headers.ts), with values of its own. Kept, they would reach a page from two matching
 * rules (Netlify applies every rule that matches a path), so a page would carry, say, two
 * Referrer-Policy values. X-XSS-Protection is left out as the single server leaves it out: browsers
 * dropped the filter it switched on, and the Content-Security-Policy does its work.
 */
const SITE_HEADERS = new Set([...Object.keys(commonHeaders), "X-XSS-Protection"].map((name) => name.toLowerCase()));

/**
 * Gatsby's header rules reduced to what the site's own `_headers` does not say: the year-long,
 * immutable Cache-Control of /static/* and of every content-hashed script and stylesheet. Gatsby's
 * "/*" rule would also send must-revalidate to every path, hashed assets included, and a second
 * Cache-Control there would spoil their immutability; Netlify sends must-revalidate by default anyway.
 */
const cachingRulesOf = (routes: HeaderRoutes): HeaderRoutes =>
  routes
    .map((route) => ({
      ...route,
      headers: route.headers.filter(({ key, value }) => {
        const name = key.toLowerCase();
        if (SITE_HEADERS.has(name)) return false;
        return !(name === "cache-control" && value === PLATFORM_DEFAULT_CACHE_CONTROL);
      }),
    }))
    .filter((route) => route.headers.length > 0);

export interface SiteNetlifyAdapterOptions {
  /**
   * Function paths (`/api/inquiry`) that netlify.toml routes instead of public/_redirects. Netlify reads
   * _redirects before netlify.toml and stops at the first match, and only a route in netlify.toml can
   * carry a rate limit, so a path routed there must not be routed here.
   */
  readonly routedByNetlifyToml: readonly string[];
}

/**
 * gatsby-adapter-netlify, told less: the same functions, redirects and file layout, but header rules
 * that leave the security headers and each page's Content-Security-Policy to the site's own
 * public/_headers (written by onPostBuild before any adapter runs; the adapter adds its rules to the
 * end of that file), and no route for the functions that netlify.toml routes itself.
 */
export const siteNetlifyAdapter = (options: SiteNetlifyAdapterOptions): IAdapter => {
  const netlify = createNetlifyAdapter();
  // Gatsby gives a function's route the site's trailing slash (/api/inquiry/); Netlify matches either.
  const withoutSlash = (routePath: string) => routePath.replace(/\/+$/, "");
  const routedElsewhere = new Set(options.routedByNetlifyToml.map(withoutSlash));
  const routesOf = (context: AdaptContext): RoutesManifest => {
    const functionPaths = new Set(
      context.routesManifest.filter((route) => route.type === "function").map((route) => withoutSlash(route.path)),
    );
    const unknown = [...routedElsewhere].filter((routePath) => !functionPaths.has(routePath));
    if (unknown.length > 0) {
      throw new Error(`netlify.toml is said to route functions the build does not have: ${unknown.join(", ")}`);
    }
    return context.routesManifest.filter(
      (route) => !(route.type === "function" && routedElsewhere.has(withoutSlash(route.path))),
    );
  };
  return {
    ...netlify,
    // On Netlify the adapter keeps .cache and public/ between builds in the platform's build cache.
    // Elsewhere (NETLIFY_LOCAL) it would copy both into .netlify/ next to the ones that persist anyway.
    cache: process.env.NETLIFY ? netlify.cache : undefined,
    adapt: (context) =>
      netlify.adapt({
        ...context,
        routesManifest: routesOf(context),
        headerRoutes: cachingRulesOf(context.headerRoutes),
      }),
  };
};
