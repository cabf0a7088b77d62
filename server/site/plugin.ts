import path from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyPluginAsync, FastifyReply } from "fastify";
import fastifyPlugin from "fastify-plugin";
import { PRECOMPRESSED_SUFFIX } from "./compression";
import { pagePathOf } from "./headers-file";
import { bodyStillComing, hstsHeaders, lingerAfterAnswer } from "./refusals";
import type { ServedSite } from "./served-site";

export interface SiteOptions {
  readonly site: ServedSite;
  /** Send Strict-Transport-Security: only when every visitor reaches the site over HTTPS. */
  readonly hsts: boolean;
  /** How long a connection whose refused request is still arriving stays half-open before it is closed. */
  readonly lingerMs: number;
}

const HASHED_ASSET = /(^|\/)(static\/|[\w.~-]+-[0-9a-f]{16,}\.(js|css)$|styles\.[0-9a-f]{16,}\.css$)/;
const IMMUTABLE = "public, max-age=31536000, immutable";
const REVALIDATE = "public, max-age=0, must-revalidate";

/** The path a page's rules in `_headers` are written under: `/contact/index.html` is the page `/contact/`. */
const pagePathOfUrl = (url: string): string => pagePathOf((url.split("?")[0] ?? "/").slice(1));

/** The site's 404 page, with status 404; its policy is added by the onSend hook, as for any 404 page. */
const sendNotFoundPage = (reply: FastifyReply, site: ServedSite) =>
  reply.code(404).type("text/html; charset=utf-8").header("Cache-Control", REVALIDATE).send(site.notFoundPage);

/**
 * What every answer of the server shares, whichever plugin gives it: the site's headers from its `_headers`
 * (and a page's own rule for HTML), and the not-found answer.
 * Shared with the whole server (fastify-plugin), since each route's answer needs them.
 */
export const siteAnswers = fastifyPlugin<SiteOptions>(
  // Async with nothing to await on purpose: Fastify waits for the promise a plugin returns, so a throw
  // in here rejects register() rather than escaping avvio's queue as an uncaught exception.
  // eslint-disable-next-line @typescript-eslint/require-await
  async (app, { site, hsts, lingerMs }) => {
    // Only the routes that take a body read one: a POST (PUT, ...) to any other path is answered before
    // a byte of its body is read (the not-found handler would otherwise parse it first).
    app.addHook("onRequest", (request, reply, done) => {
      if (request.is404 && request.method !== "GET" && request.method !== "HEAD") {
        void reply.code(404).header("Cache-Control", "no-store").send({ error: "Not found." });
        return;
      }
      done();
    });

    let closing = false;
    app.addHook("preClose", (done) => {
      closing = true;
      done();
    });
    const hstsHeader = hstsHeaders(hsts);
    app.addHook("onSend", async (request, reply, payload) => {
      const { headerRules, siteHeaders } = site;
      for (const [name, value] of Object.entries(siteHeaders)) if (!reply.hasHeader(name)) reply.header(name, value);
      reply.headers(hstsHeader);
      // A refusal sent before the body was read (a multipart post, a body to a page) ends the connection:
      // otherwise Node reads and discards the rest of the body, however large, to reuse the connection.
      // While the server stops, an answered connection is not kept for a next request either.
      if (bodyStillComing(request)) {
        reply.header("Connection", "close");
        lingerAfterAnswer(request.raw.socket, lingerMs);
      } else if (closing) reply.header("Connection", "close");
      const type = String(reply.getHeader("content-type") ?? "");
      if (type.startsWith("text/html")) {
        const pathname = reply.statusCode === 404 ? "/404.html" : pagePathOfUrl(request.url);
        // A built page gets every header of its rule; any other HTML answer without a policy of its own
        // gets the 404 page's policy and nothing else of that page's.
        const fallbackPolicy = headerRules.get("/404.html")?.["Content-Security-Policy"];
        const headers =
          headerRules.get(pathname) ?? (fallbackPolicy ? { "Content-Security-Policy": fallbackPolicy } : {});
        for (const [name, value] of Object.entries(headers)) if (!reply.hasHeader(name)) reply.header(name, value);
      }
      return payload;
    });

    app.setNotFoundHandler((request, reply) => {
      if (request.method !== "GET" && request.method !== "HEAD") {
        return reply.code(404).header("Cache-Control", "no-store").send({ error: "Not found." });
      }
      return sendNotFoundPage(reply, site);
    });
  },
  { name: "site-answers", fastify: "5.x" },
);

/**
 * The built site's files through reply.sendFile, so the static plugin's own route (which would take any
 * method) is off; the path checks, redirects, index files and compressed copies are still the plugin's.
 */
export const siteFiles: FastifyPluginAsync<{ readonly site: ServedSite }> = async (app, { site }) => {
  await app.register(fastifyStatic, {
    root: site.publicDir,
    serve: false,
    redirect: true,
    // An array: with preCompressed, @fastify/static finds a folder's index file only in a list; given a
    // single name it answered every page of the site 404 to a client that takes br or gzip.
    index: ["index.html"],
    dotfiles: "ignore",
    cacheControl: false,
    // The build's brotli and gzip copies (build/precompressed-files.ts), sent as they are to a client that
    // takes them; a file without copies is compressed on the fly by @fastify/compress.
    preCompressed: true,
    // public/_headers is the deploy's configuration, not a page; the compressed copies are reached only
    // through their originals, which carry the right type.
    allowedPath: (pathname) => !pathname.startsWith("/_headers") && !PRECOMPRESSED_SUFFIX.test(pathname),
    setHeaders: (res, file) => {
      const relative = path.relative(site.publicDir, file).split(path.sep).join("/").replace(PRECOMPRESSED_SUFFIX, "");
      res.header("Cache-Control", HASHED_ASSET.test(relative) ? IMMUTABLE : REVALIDATE);
    },
  });

  // A path @fastify/static will not read, because it is not in its one canonical form (`//x`, `/./x`,
  // `/a/../b`): it names no page, so a visitor (or a scanner) gets the 404 page, as for any other path
  // no file answers, rather than a 403 that says something is there. Any other error is the server's.
  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    if (error.statusCode === 403) return sendNotFoundPage(reply, site);
    throw error;
  });

  app.route({
    method: ["GET", "HEAD"],
    url: "/*",
    handler: (request, reply) => {
      const query = request.raw.url?.indexOf("?") ?? -1;
      const rawPath = query === -1 ? (request.raw.url ?? "/") : (request.raw.url ?? "/").slice(0, query);
      let pathname: string;
      try {
        // As the plugin's own route decodes it: an encoded # or ? is part of a name, not of the URL.
        pathname = decodeURI(rawPath.replace(/%(?:23|3f)/giu, decodeURIComponent));
      } catch {
        reply.callNotFound();
        return reply;
      }
      return reply.sendFile(pathname);
    },
  });
};
