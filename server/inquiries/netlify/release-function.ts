import type { GatsbyFunctionRequest } from "gatsby";
import { FUNCTION_NOT_FOUND, header } from "../../site/function-request";
import { instanceInquiryConfig, type InquiryConfig } from "../config";
import type { DigestContent } from "../held/digest";
import { deliverNow } from "../delivery/delivery-worker";
import { atApiPathOnly, readBodyText, readsOwnBody, replySender } from "./gatsby-function";
import { openOutbox } from "../store/open-outbox";
import { createReleaseHandler, MAX_RELEASE_BODY_BYTES } from "../held/release";
import { functionLog, type OperationalLog } from "../operational-log";

export interface ReleaseFunctionOptions {
  readonly content: DigestContent;
  /** The headers every answer of the site carries (server/site/common-headers.ts), which the platform adds to files only. */
  readonly siteHeaders: Readonly<Record<string, string>>;
  readonly config?: () => InquiryConfig;
  readonly log?: OperationalLog;
}

/** The query string: gatsby-adapter-netlify gives the event's path as the URL and its query apart, in `query`. */
const queryOf = (req: GatsbyFunctionRequest): string => {
  const url = req.url ?? "";
  const at = url.indexOf("?");
  if (at !== -1) return url.slice(at + 1);
  const query = new URLSearchParams();
  // Absent on a request made without one (a test's, or a POST's from another runtime than the adapter's).
  const given = req.query as Record<string, unknown> | undefined;
  for (const [name, value] of Object.entries(given ?? {})) {
    for (const one of Array.isArray(value) ? (value as unknown[]) : [value]) query.append(name, String(one));
  }
  return query.toString();
};

/**
 * /api/inquiry-release as a Gatsby Function, for the CDN deploy: the same core as the single server's route
 * (held/release.ts), over Netlify Database. A released inquiry is
 * delivered before the answer where a transport takes it; otherwise the scheduled delivery does, within
 * minutes, as for any inquiry. The body is read here, as the inquiry function reads its own (Gatsby's
 * parsers are told to take no type: `config`).
 */
export const createReleaseFunction = (options: ReleaseFunctionOptions) => {
  const readConfig = options.config ?? instanceInquiryConfig(options.content.form.delivery);
  const log = options.log ?? functionLog("inquiry-release");
  const handler = createReleaseHandler({ content: options.content, config: readConfig, log });

  const send = replySender(options.siteHeaders);

  const releaseFunction = atApiPathOnly(send, async (req, res) => {
    let config: InquiryConfig;
    try {
      config = readConfig();
    } catch (error) {
      log.error({ err: error }, `not available: ${(error as Error).message}`);
      send(res, handler.failed());
      return;
    }
    const method = req.method ?? "GET";
    let body: string | null = null;
    if (method === "POST") {
      const text = await readBodyText(req, MAX_RELEASE_BODY_BYTES);
      if (text.kind !== "text") {
        send(res, handler.malformed());
        return;
      }
      body = text.text;
    }
    const outbox = openOutbox(config);
    try {
      const outcome = await handler.handle(
        {
          method,
          query: queryOf(req),
          contentType: header(req, "content-type"),
          body,
          host: header(req, "host"),
          origin: header(req, "origin"),
          secFetchSite: header(req, "sec-fetch-site"),
        },
        outbox,
      );
      if (outcome === null) {
        send(res, FUNCTION_NOT_FOUND);
        return;
      }
      if (outcome.released !== null) {
        try {
          await deliverNow(outbox, config, outcome.released, log);
        } catch (error) {
          // Released and recorded: the scheduled delivery takes it up.
          log.warn(
            { err: error, reference: outcome.released },
            `${outcome.released} not delivered now: ${(error as Error).name}`,
          );
        }
      }
      send(res, outcome.reply);
    } catch (error) {
      log.error({ err: error }, `failed: ${(error as Error).name}`);
      send(res, handler.failed(500));
    }
  });

  return Object.assign(releaseFunction, { config: readsOwnBody(MAX_RELEASE_BODY_BYTES) });
};
