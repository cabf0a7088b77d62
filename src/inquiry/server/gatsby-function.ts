import type { GatsbyFunctionRequest, GatsbyFunctionResponse } from "gatsby";
import { blobsAccessFromLambdaEvent } from "./blobs-store";
import { clientKey } from "./client-address";
import { readInquiryConfig, type InquiryConfig } from "./config";
import type { InquiryContent } from "./content";
import { deliverNow } from "./delivery-worker";
import { createInquiryHandler, type InquiryReply, type InquiryRequest } from "./handler";
import { openOutbox } from "./open-outbox";

export interface GatsbyFunctionOptions {
  readonly content: InquiryContent;
  readonly config?: () => InquiryConfig;
  readonly log?: (line: string) => void;
}

const header = (req: GatsbyFunctionRequest, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** gatsby-adapter-netlify puts the Lambda event of the invocation on the request. */
type NetlifyRequest = GatsbyFunctionRequest & { readonly netlifyFunctionParams?: { readonly event?: unknown } };

const send = (res: GatsbyFunctionResponse, reply: InquiryReply) => {
  for (const [name, value] of Object.entries(reply.headers)) res.setHeader(name, value);
  res.status(reply.status).send(reply.body);
};

/**
 * /api/inquiry as a Gatsby Function, for the CDN deploy: the same handler as the production server
 * (server/app.ts), behind the platform's body parser. With no worker between requests there, the
 * inquiry is delivered before the answer. With a Blobs outbox it is stored for good first, and what no
 * transport took now the scheduled delivery retries; where the outbox does not outlive the request, a
 * visitor whose inquiry no transport took is told it was not sent.
 */
export const createGatsbyFunction = (options: GatsbyFunctionOptions) => {
  const readConfig = options.config ?? (() => readInquiryConfig(options.content.form.delivery));
  const log = options.log ?? ((line: string) => console.info(`[inquiry] ${line}`));
  const handler = createInquiryHandler({ content: options.content, config: readConfig, log });

  return async (req: GatsbyFunctionRequest, res: GatsbyFunctionResponse): Promise<void> => {
    const config = readConfig();
    // The platform's own header where it sets one: the platform overwrites it, a visitor cannot forge it.
    // Where it is missing or empty, the connection's own address.
    const platformAddress = config.clientIpHeader ? header(req, config.clientIpHeader) : undefined;
    const request: InquiryRequest = {
      method: req.method ?? "GET",
      contentType: header(req, "content-type"),
      clientAddress: clientKey(
        platformAddress === undefined || platformAddress === "" ? req.socket.remoteAddress : platformAddress,
      ),
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
      if (Number(header(req, "content-length") ?? 0) > handler.maxBodyBytes) {
        send(res, handler.tooLarge(request));
        return;
      }
      // The store access of this invocation, where the platform gave one (Netlify Blobs).
      const edge =
        config.outbox === "blobs"
          ? blobsAccessFromLambdaEvent((req as NetlifyRequest).netlifyFunctionParams?.event)
          : null;
      const { reply, stored } = await handler.accept(request, req.body, (accepted) => openOutbox(accepted, edge));
      if (stored?.created && !stored.quarantined) {
        let delivered = false;
        try {
          delivered = await deliverNow(openOutbox(config, edge), config, stored.reference, log);
        } catch (error) {
          // Stored already: a durable outbox keeps it for the scheduled delivery.
          log(`${stored.reference} not delivered now: ${(error as Error).name}`);
        }
        if (!config.durableOutbox && !delivered) {
          send(res, handler.undelivered(request));
          return;
        }
      }
      send(res, reply);
    } catch (error) {
      log(`failed: ${(error as Error).name}`);
      send(res, handler.failed(request));
    }
  };
};
