import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { limitRequests } from "../../site/request-limit";
import type { DeliveryWorker } from "../delivery/delivery-worker";
import type { InquiryOutbox } from "../store/sql-outbox";
import { MAX_RELEASE_BODY_BYTES, type ReleaseHandler, type ReleaseReply } from "../held/release";
import { RELEASE_PATH } from "../held/release-link";

export interface ReleasePluginOptions {
  readonly handler: ReleaseHandler;
  readonly outbox: InquiryOutbox;
  /** Told of every release, so it delivers the inquiry at once. */
  readonly worker: DeliveryWorker;
}

// The sales desk opens a few links a day; guessing at signatures meets this long before it could matter.
const RELEASE_LIMIT = { requests: 20, windowSeconds: 60 };

const headerValue = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

const send = (reply: FastifyReply, answer: ReleaseReply) =>
  reply.code(answer.status).headers(answer.headers).send(answer.body);

const requestOf = (request: FastifyRequest, body: string | null) => {
  const query = request.url.indexOf("?");
  return {
    method: request.method,
    query: query === -1 ? "" : request.url.slice(query + 1),
    contentType: headerValue(request.headers["content-type"]),
    body,
    host: request.host,
    origin: headerValue(request.headers.origin),
    secFetchSite: headerValue(request.headers["sec-fetch-site"]),
  };
};

/**
 * /api/inquiry-release on the single server (held/release.ts): the page of a release link and its button. Its
 * own body parser takes the button's small form only, as text for the core to read, and its own rate limit
 * counts every request; where release links are not set up (no INQUIRY_RELEASE_SECRET), it answers as for
 * any path without a page.
 */
// Async with nothing to await on purpose: Fastify waits for the promise a plugin returns.
// eslint-disable-next-line @typescript-eslint/require-await
export const inquiryRelease: FastifyPluginAsync<ReleasePluginOptions> = async (app, { handler, outbox, worker }) => {
  app.removeAllContentTypeParsers();
  // Any type is read as text, within the limit: the core refuses what is not the form.
  app.addContentTypeParser("*", { parseAs: "string", bodyLimit: MAX_RELEASE_BODY_BYTES }, (_req, body, done) =>
    done(null, body),
  );
  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status < 500) return send(reply, handler.malformed());
    request.log.error({ err: error, req: request }, `error ${request.method} ${RELEASE_PATH}`);
    return send(reply, handler.failed(500));
  });
  app.route({
    method: ["GET", "POST"],
    url: RELEASE_PATH,
    bodyLimit: MAX_RELEASE_BODY_BYTES,
    // Its own limit, whether or not the site-wide one is on, counted before the body is read.
    onRequest: limitRequests(RELEASE_LIMIT),
    handler: async (request, reply) => {
      const body = typeof request.body === "string" ? request.body : null;
      const outcome = await handler.handle(requestOf(request, body), outbox);
      if (outcome === null) {
        reply.callNotFound();
        return reply;
      }
      if (outcome.released !== null) worker.notify();
      return send(reply, outcome.reply);
    },
  });
};
