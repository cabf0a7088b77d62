import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { inquiryEndpoint } from "../../../src/inquiry/protocol";
import { clientKey } from "../intake/client-address";
import type { DeliveryWorker } from "../delivery/delivery-worker";
import type { InquiryHandler, InquiryReply, InquiryRequest } from "../intake/handler";
import { parseFormBody } from "../intake/request-body";

export interface InquiriesPluginOptions {
  readonly handler: InquiryHandler;
  /** Told of every new inquiry stored, so it delivers at once. */
  readonly worker: DeliveryWorker;
}

/** A single value from a header that may repeat. */
const headerValue = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

const requestOf = (request: FastifyRequest): InquiryRequest => ({
  method: request.method,
  contentType: headerValue(request.headers["content-type"]),
  clientAddress: clientKey(request.ip),
  host: request.host,
  origin: headerValue(request.headers.origin),
  secFetchSite: headerValue(request.headers["sec-fetch-site"]),
});

const sendReply = (reply: FastifyReply, answer: InquiryReply) =>
  reply.code(answer.status).headers(answer.headers).send(answer.body);

/**
 * /api/inquiry on the single server: the framework-free handler (intake/handler.ts) with Fastify's body parsing,
 * limited to what the handler takes; every answer, refusals and failures included, is the handler's.
 */
// Async with nothing to await on purpose: Fastify waits for the promise a plugin returns.
// eslint-disable-next-line @typescript-eslint/require-await
export const inquiries: FastifyPluginAsync<InquiriesPluginOptions> = async (app, { handler, worker }) => {
  // JSON is Fastify's own to parse: its parser refuses a body that would poison a prototype (`__proto__`,
  // `constructor.prototype`; onProtoPoisoning and onConstructorPoisoning at their defaults) with a 400, as
  // it does malformed JSON, within the route's bodyLimit. A form is parsed by the same rules as on the CDN.
  app.removeContentTypeParser("text/plain");
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string", bodyLimit: handler.maxBodyBytes },
    (_req, body, done) => done(null, parseFormBody(body as string)),
  );

  // A body too large, unreadable or of another type, and anything that fails, answered in the handler's terms.
  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    if (request.method !== "POST") throw error;
    const status = error.statusCode ?? 500;
    const inquiryRequest = requestOf(request);
    if (status === 413) return sendReply(reply, handler.tooLarge(inquiryRequest));
    if (status === 400) return sendReply(reply, handler.malformed(inquiryRequest));
    if (status === 415) return sendReply(reply, handler.unsupported(inquiryRequest));
    if (status >= 500) request.log.error({ err: error, req: request }, `error ${request.method} ${inquiryEndpoint}`);
    return sendReply(reply, handler.failed(inquiryRequest));
  });

  app.route({
    method: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
    url: inquiryEndpoint,
    bodyLimit: handler.maxBodyBytes,
    // Decided before a byte of the body is read: the method, the type, the origin, the rate limit.
    onRequest: async (request, reply) => {
      const refused = await handler.screen(requestOf(request));
      if (refused) return sendReply(reply, refused);
    },
    handler: async (request, reply) => {
      const { reply: answer, stored } = await handler.accept(requestOf(request), request.body);
      if (stored?.created && !stored.quarantined) worker.notify();
      return sendReply(reply, answer);
    },
  });
};
