import type { GatsbyFunctionConfig, GatsbyFunctionRequest, GatsbyFunctionResponse } from "gatsby";
import { calledAtOwnAddress, FUNCTION_NOT_FOUND, header } from "../../site/function-request";
import { clientKey } from "../intake/client-address";
import { instanceInquiryConfig, type InquiryConfig } from "../config";
import type { InquiryContent } from "../content";
import { deliverNow } from "../delivery/delivery-worker";
import { createInquiryHandler, type InquiryHandler, type InquiryReply, type InquiryRequest } from "../intake/handler";
import { openOutbox } from "../store/open-outbox";
import { parseInquiryBody } from "../intake/request-body";
import { functionLog, type OperationalLog } from "../operational-log";

export interface GatsbyFunctionOptions {
  readonly content: InquiryContent;
  /**
   * The headers every answer of the site carries (server/site/common-headers.ts): the platform adds
   * `public/_headers` to files only, so the function sends them itself, as the single server does.
   */
  readonly siteHeaders: Readonly<Record<string, string>>;
  readonly config?: () => InquiryConfig;
  readonly log?: OperationalLog;
}

/**
 * The header in which Netlify gives a function the visitor's address. The platform sets it on every
 * request and overwrites whatever a visitor sent under that name (netlify/cli#5748: deployed functions
 * get it, `netlify dev` gives `client-ip` instead), so, unlike X-Forwarded-For, it cannot be forged.
 */
export const NETLIFY_CLIENT_IP_HEADER = "x-nf-client-connection-ip";

/** gatsby-adapter-netlify puts the Lambda event of the invocation on the request. */
type NetlifyRequest = GatsbyFunctionRequest & { readonly netlifyFunctionParams?: { readonly event?: unknown } };

/**
 * The key the rate limit counts this visitor under. INQUIRY_CLIENT_IP_HEADER names the header where it
 * is set; otherwise, under the Netlify adapter (whose requests come with no socket), Netlify's own
 * header; elsewhere (`gatsby serve`) the connection's address.
 */
const clientAddressOf = (req: GatsbyFunctionRequest, configuredHeader: string | null): string => {
  // The adapter builds the request from a Lambda event, without the socket the type promises.
  const socket = req.socket as { readonly remoteAddress?: string } | undefined;
  const onPlatform = (req as NetlifyRequest).netlifyFunctionParams !== undefined || socket === undefined;
  const name = configuredHeader ?? (onPlatform ? NETLIFY_CLIENT_IP_HEADER : null);
  const fromHeader = name === null ? undefined : header(req, name)?.trim();
  // With neither a header nor a socket, every such post is counted under one fixed key ("unknown"): the
  // limit then holds all of them together, in this instance, rather than none of them. Netlify always
  // sets its header, so only a misconfigured header name leads here.
  return clientKey(fromHeader === undefined || fromHeader === "" ? socket?.remoteAddress : fromHeader);
};

type BodyText = { readonly kind: "text"; readonly text: string } | { readonly kind: "tooLarge" | "unreadable" };

/**
 * The body's text, as it came, read here from the request's stream: Gatsby's body parsers are told to
 * take no type (`config` below), because they pass on none of their errors and because of what follows.
 *
 * gatsby-adapter-netlify makes the request a plain stream with IncomingMessage's methods copied onto it,
 * already holding the whole body, without a socket and without the fields Node's constructor sets. On
 * Node 24, IncomingMessage's `_destroy` takes a message that ended without `complete` for an aborted
 * one and reaches for its socket's listeners: the stream's end threw "Cannot read properties of undefined
 * (reading 'removeListener')" and ended the function on every POST with a body. Such a request is
 * complete (its body is all in memory), so it is marked so, and read to its end rather than dropped halfway.
 */
export const readBodyText = async (req: GatsbyFunctionRequest, maxBytes: number): Promise<BodyText> => {
  const encoding = header(req, "content-encoding")?.trim().toLowerCase();
  // The single server reads a compressed body as it is, so cannot read it either; no browser sends one.
  if (encoding && encoding !== "identity") return { kind: "unreadable" };
  const body: unknown = req.body;
  if (Buffer.isBuffer(body)) return { kind: "text", text: body.toString("utf8") };
  if (typeof body === "string") return { kind: "text", text: body };
  // Read already by something else and not handed on: once compressed bodies are ruled out above, only a
  // parser refusing a body past its limit does that.
  if (!req.readable || req.readableEnded) return { kind: "tooLarge" };
  const synthetic = (req.socket as unknown) === undefined;
  if (synthetic) (req as { complete: boolean }).complete = true;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer | string>) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size > maxBytes && !synthetic) return { kind: "tooLarge" };
    if (size <= maxBytes) chunks.push(bytes);
  }
  return size > maxBytes ? { kind: "tooLarge" } : { kind: "text", text: Buffer.concat(chunks).toString("utf8") };
};

/** A core's answer (intake/handler.ts, held/release.ts), for an adapter to send. */
interface CoreReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Sends a core's answer through Gatsby's response, over the site-wide headers: the answer's own win, as on
 * the single server (a result page has its own policy, say).
 */
export const replySender =
  (siteHeaders: Readonly<Record<string, string>>) =>
  (res: GatsbyFunctionResponse, reply: CoreReply): void => {
    for (const [name, value] of Object.entries({ ...siteHeaders, ...reply.headers })) res.setHeader(name, value);
    res.status(reply.status).send(reply.body);
  };

/**
 * A function's handler for its /api/ path only: called at its own address (calledAtOwnAddress), it answers as
 * for a path without a page, whatever it was sent.
 */
export const atApiPathOnly =
  (
    send: ReturnType<typeof replySender>,
    handle: (req: GatsbyFunctionRequest, res: GatsbyFunctionResponse) => Promise<void>,
  ) =>
  async (req: GatsbyFunctionRequest, res: GatsbyFunctionResponse): Promise<void> => {
    if (calledAtOwnAddress(req)) send(res, FUNCTION_NOT_FOUND);
    else await handle(req, res);
  };

/**
 * Gatsby's settings for a function that reads its own body (readBodyText): its parsers take no type at all
 * (a type no request has), within `limit`.
 */
export const readsOwnBody = (limit: number): GatsbyFunctionConfig => {
  const unread = { type: "application/x-read-by-the-function", limit };
  return { bodyParser: { raw: unread, json: unread, text: unread, urlencoded: { ...unread, extended: false } } };
};

/**
 * The body, within the limit and parsed by the single server's rules (intake/request-body.ts), or the handler's
 * refusal to send instead: 413 past the limit, 400 for one it cannot read.
 */
const readInquiryBody = async (
  req: GatsbyFunctionRequest,
  request: InquiryRequest,
  handler: InquiryHandler,
): Promise<{ readonly refused: null; readonly body: unknown } | { readonly refused: InquiryReply }> => {
  if (Number(header(req, "content-length") ?? 0) > handler.maxBodyBytes) return { refused: handler.tooLarge(request) };
  const text = await readBodyText(req, handler.maxBodyBytes);
  if (text.kind !== "text") {
    return { refused: text.kind === "tooLarge" ? handler.tooLarge(request) : handler.malformed(request) };
  }
  const parsed = parseInquiryBody(request.contentType, text.text);
  return parsed.readable ? { refused: null, body: parsed.body } : { refused: handler.malformed(request) };
};

/**
 * /api/inquiry as a Gatsby Function, for the CDN deploy: the same handler as the production server
 * (server/app.ts), the body parsed by the same rules, the same site-wide headers on every answer. With no
 * worker between requests there, the inquiry is delivered before the answer. In Netlify Database it
 * is stored for good first, and what no transport took now the scheduled delivery retries; where the outbox
 * does not outlive the request, a visitor whose inquiry no transport took is told it was not sent.
 *
 * The function carries `config`, Gatsby's settings for it, for the module to export beside it.
 */
export const createGatsbyFunction = (options: GatsbyFunctionOptions) => {
  const readConfig = options.config ?? instanceInquiryConfig(options.content.form.delivery);
  const log = options.log ?? functionLog("inquiry");
  const handler = createInquiryHandler({ content: options.content, config: readConfig, log });

  const send = replySender(options.siteHeaders);

  const inquiryFunction = atApiPathOnly(send, async (req, res) => {
    let config: InquiryConfig | null = null;
    try {
      config = readConfig();
    } catch {
      // Settings that cannot be read: the handler's screen answers 503 and logs why.
    }
    const request: InquiryRequest = {
      method: req.method ?? "GET",
      contentType: header(req, "content-type"),
      clientAddress: clientAddressOf(req, config?.clientIpHeader ?? null),
      host: header(req, "host"),
      origin: header(req, "origin"),
      secFetchSite: header(req, "sec-fetch-site"),
    };
    try {
      const refused = await handler.screen(request);
      if (refused) {
        send(res, refused);
        return;
      }
      const parsed = await readInquiryBody(req, request, handler);
      if (parsed.refused) {
        send(res, parsed.refused);
        return;
      }
      const { reply, stored } = await handler.accept(request, parsed.body, openOutbox);
      if (config && stored?.created && !stored.quarantined) {
        let delivered = false;
        try {
          delivered = await deliverNow(openOutbox(config), config, stored.reference, log);
        } catch (error) {
          // Stored already: a durable outbox keeps it for the scheduled delivery.
          log.warn(
            { err: error, reference: stored.reference },
            `${stored.reference} not delivered now: ${(error as Error).name}`,
          );
        }
        if (!config.durableOutbox && !delivered) {
          send(res, handler.undelivered(request));
          return;
        }
      }
      send(res, reply);
    } catch (error) {
      log.error({ err: error }, `failed: ${(error as Error).name}`);
      send(res, handler.failed(request));
    }
  });

  // The function reads the body itself, within the single server's limit.
  return Object.assign(inquiryFunction, { config: readsOwnBody(handler.maxBodyBytes) });
};
