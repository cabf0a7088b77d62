import { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import type { GatsbyFunctionRequest, GatsbyFunctionResponse } from "gatsby";

export interface FunctionAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface FunctionCall {
  readonly contentType?: string;
  /** The connection's address; null for a request without a socket, as gatsby-adapter-netlify makes them. */
  readonly remoteAddress?: string | null;
  /** The path the request came to, as the adapter sets it from the event (unset: none, as `gatsby serve` tests leave it). */
  readonly url?: string;
  /** Further request headers (lower-case names). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The Lambda event gatsby-adapter-netlify puts on the request: the store access of the invocation. */
  readonly event?: unknown;
  /**
   * Where the body is: "parsed", taken by Gatsby's raw body parser (the function's `config`) and on the
   * request as a Buffer; "stream", left unread in the request's stream, as the parser leaves a body whose
   * length no header declares; "refused", read by the parser and not handed on, as it does a body past
   * its limit; "adapter", in a request made as gatsby-adapter-netlify 1.4 makes one from a Lambda event
   * (a Readable with IncomingMessage's prototype copied onto it, the body pushed into it, no socket).
   */
  readonly bodyIn?: "parsed" | "stream" | "refused" | "adapter";
  /** The request's method; POST unless given. */
  readonly method?: string;
}

/** A Gatsby Function as the site's adapters make them (server/inquiries/netlify/gatsby-function.ts, release-function.ts). */
export type GatsbyFunction = (req: GatsbyFunctionRequest, res: GatsbyFunctionResponse) => Promise<void>;

/** The bytes a client sends: bytes or a string as they are, an object as JSON or, for a form, urlencoded. */
const encode = (body: unknown, contentType: string): Buffer => {
  if (Buffer.isBuffer(body)) return body;
  if (typeof body === "string") return Buffer.from(body);
  if (!contentType.startsWith("application/x-www-form-urlencoded")) return Buffer.from(JSON.stringify(body));
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    for (const one of Array.isArray(value) ? (value as unknown[]) : [value]) params.append(name, String(one));
  }
  return Buffer.from(params.toString());
};

/** The request stream gatsby-adapter-netlify's lambda handler makes (createRequestObject in its lambda-handler.js). */
const adapterStream = (bytes: Buffer): Readable => {
  const stream = Object.assign(new Readable(), IncomingMessage.prototype) as unknown as Readable;
  stream.push(bytes);
  stream.push(null);
  return stream;
};

/** Calls a Gatsby Function as Gatsby does with the function's `config`, with an Express-like response. */
export const callFunction = async (
  fn: GatsbyFunction,
  body: unknown,
  {
    contentType = "application/json",
    remoteAddress = "192.0.2.10",
    headers = {},
    event,
    bodyIn = "parsed",
    url,
    method = "POST",
  }: FunctionCall = {},
): Promise<FunctionAnswer> => {
  const answer: FunctionAnswer = { status: 200, headers: {}, body: "" };
  const bytes = encode(body, contentType);
  const unread = bodyIn === "stream" || bodyIn === "adapter";
  const stream = bodyIn === "adapter" ? adapterStream(bytes) : Readable.from(bodyIn === "stream" ? [bytes] : []);
  if (!unread) stream.resume();
  if (!unread) await new Promise((resolve) => stream.once("end", resolve));
  const req = Object.assign(stream, {
    method,
    headers: {
      "content-type": contentType,
      host: "site.example",
      ...(bodyIn === "stream" ? {} : { "content-length": String(bytes.length) }),
      ...headers,
    },
    ...(bodyIn === "parsed" ? { body: bytes } : {}),
    ...(remoteAddress === null || bodyIn === "adapter" ? {} : { socket: { remoteAddress } }),
    ...(event === undefined ? {} : { netlifyFunctionParams: { event, context: {} } }),
    ...(url === undefined ? {} : { url, originalUrl: url }),
  }) as unknown as GatsbyFunctionRequest;
  await fn(req, recordingResponse(answer));
  return answer;
};

/** The Express-like response a Gatsby Function writes to, recording into `answer` (header names in lower case). */
export const recordingResponse = (answer: FunctionAnswer): GatsbyFunctionResponse => {
  const res = {
    setHeader: (name: string, value: string) => {
      answer.headers[name.toLowerCase()] = value;
    },
    status(code: number) {
      answer.status = code;
      return this;
    },
    send: (text: string) => {
      answer.body = text;
    },
  };
  return res as unknown as GatsbyFunctionResponse;
};
