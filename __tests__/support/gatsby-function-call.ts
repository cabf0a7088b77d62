import type { GatsbyFunctionRequest, GatsbyFunctionResponse } from "gatsby";
import type { createGatsbyFunction } from "../../src/inquiry/server/gatsby-function";

export interface FunctionAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface FunctionCall {
  readonly contentType?: string;
  readonly remoteAddress?: string;
  /** The Lambda event gatsby-adapter-netlify puts on the request: the store access of the invocation. */
  readonly event?: unknown;
}

/** Calls /api/inquiry's Gatsby Function as Gatsby does: a parsed body on the request, an Express-like response. */
export const callFunction = async (
  fn: ReturnType<typeof createGatsbyFunction>,
  body: unknown,
  { contentType = "application/json", remoteAddress = "192.0.2.10", event }: FunctionCall = {},
): Promise<FunctionAnswer> => {
  const answer: FunctionAnswer = { status: 200, headers: {}, body: "" };
  const req = {
    method: "POST",
    headers: { "content-type": contentType, host: "site.example" },
    body,
    socket: { remoteAddress },
    ...(event === undefined ? {} : { netlifyFunctionParams: { event, context: {} } }),
  } as unknown as GatsbyFunctionRequest;
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
  } as unknown as GatsbyFunctionResponse;
  await fn(req, res);
  return answer;
};
