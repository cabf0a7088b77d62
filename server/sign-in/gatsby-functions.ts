import type { GatsbyFunctionRequest, GatsbyFunctionResponse } from "gatsby";
import { calledAtOwnAddress, FUNCTION_NOT_FOUND, header } from "../site/function-request";
import { readOnce } from "../settings/catalog";
import { blobsAccessFromLambdaEvent, BlobsStore } from "./blobs-store";
import { blobsSpentStates, SPENT_STATES_STORE } from "./blobs-spent-states";
import {
  createGithubOAuth,
  memorySpentStates,
  readGithubOAuthSettings,
  type GithubOAuth,
  type GithubOAuthSettings,
  type OAuthAnswer,
  type OAuthRequest,
  type SpentStates,
} from "./github-oauth";

/**
 * The answer's cookies as Set-Cookie values, written by the `cookie` package, as @fastify/cookie writes them
 * on the single server. Loaded when first needed: it is an ES module, which this CommonJS code imports.
 */
const setCookieValues = async (answer: OAuthAnswer): Promise<string[]> => {
  if (!answer.cookies?.length) return [];
  const { stringifySetCookie } = await import("cookie");
  return answer.cookies.map(({ name, value, options }) => stringifySetCookie({ name, value, ...options }));
};

/** gatsby-adapter-netlify puts the Lambda event of the invocation on the request. */
type NetlifyRequest = GatsbyFunctionRequest & { readonly netlifyFunctionParams?: { readonly event?: unknown } };

/**
 * /api/auth and /api/auth/callback as Gatsby Functions, for the CDN deploy: thin adapters over the same
 * handshake as the production server's routes (github-oauth.ts). The settings are read for each request:
 * a function is configured by its platform's environment (CMS_GITHUB_*, Functions scope on Netlify), not
 * by the build.
 *
 * Where the callback records spent states: on Netlify, in a Blobs store reached with the invocation's own
 * credentials (the instances share nothing else); under `gatsby serve`, one long-running process, in its
 * memory. On Netlify without store credentials the callback refuses rather than accept a state it cannot
 * record.
 */
export interface SignInFunctionOptions {
  /** The headers every answer of the site carries (server/site/common-headers.ts). */
  readonly siteHeaders: Readonly<Record<string, string>>;
  readonly log?: (line: string) => void;
}

/** What a sign-in function answers while its settings are wrong: the log says which. */
const SIGN_IN_UNAVAILABLE = {
  ...FUNCTION_NOT_FOUND,
  status: 503,
  body: JSON.stringify({ error: "Sign-in is not available now." }),
} as const;

export const createSignInFunctions = (options: SignInFunctionOptions) => {
  const log = options.log ?? ((line: string) => console.info(`[sign-in] ${line}`));
  const processSpentStates = memorySpentStates();
  const unrecordable: SpentStates = {
    spend: () => Promise.reject(new Error("this invocation carries no Netlify Blobs credentials")),
  };
  const spentStatesFor = (req: GatsbyFunctionRequest): SpentStates => {
    const params = (req as NetlifyRequest).netlifyFunctionParams;
    if (params === undefined) return processSpentStates;
    const edge = blobsAccessFromLambdaEvent(params.event);
    if (edge === null) return unrecordable;
    return blobsSpentStates(new BlobsStore(SPENT_STATES_STORE, edge));
  };
  const send = async (res: GatsbyFunctionResponse, answer: OAuthAnswer) => {
    for (const [name, value] of Object.entries({ ...options.siteHeaders, ...answer.headers }))
      res.setHeader(name, value);
    const cookies = await setCookieValues(answer);
    const [only, ...more] = cookies;
    if (only !== undefined) res.setHeader("Set-Cookie", more.length === 0 ? only : cookies);
    res.status(answer.status).send(answer.body);
  };
  /** The path and query: gatsby-adapter-netlify gives the event's path as the URL and the query apart, in `query`. */
  const urlOf = (req: GatsbyFunctionRequest): string => {
    const url = req.url ?? "/";
    if (url.includes("?")) return url;
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(req.query as Record<string, unknown>)) {
      for (const one of Array.isArray(value) ? (value as unknown[]) : [value]) query.append(name, String(one));
    }
    return query.size > 0 ? `${url}?${query.toString()}` : url;
  };
  const requestOf = (req: GatsbyFunctionRequest): OAuthRequest => ({
    url: urlOf(req),
    // Gatsby parses the Cookie header for a function (`gatsby serve` and gatsby-adapter-netlify's handler
    // alike), with the `cookie` package; a request without the header has no `cookies` at all.
    cookies: (req as { readonly cookies?: Readonly<Record<string, string>> }).cookies ?? {},
    // The CDN serves the site over HTTPS only; it says so in x-forwarded-proto, as `gatsby serve` does not.
    origin: `${header(req, "x-forwarded-proto") ?? "https"}://${header(req, "host") ?? ""}`,
  });
  const settingsOfInstance = readOnce(() => readGithubOAuthSettings());
  /**
   * The handshake's step; 404 where sign-in is not set up or the function was called at its own address; 503,
   * logged, while a setting is wrong.
   */
  const step =
    (run: (oauth: GithubOAuth, request: OAuthRequest) => OAuthAnswer | Promise<OAuthAnswer>) =>
    async (req: GatsbyFunctionRequest, res: GatsbyFunctionResponse): Promise<void> => {
      if (calledAtOwnAddress(req) || req.method !== "GET") {
        await send(res, FUNCTION_NOT_FOUND);
        return;
      }
      let settings: GithubOAuthSettings | null;
      try {
        settings = settingsOfInstance();
      } catch (error) {
        log(`not available: ${(error as Error).message}`);
        await send(res, SIGN_IN_UNAVAILABLE);
        return;
      }
      if (!settings) {
        await send(res, FUNCTION_NOT_FOUND);
        return;
      }
      await send(
        res,
        await run(createGithubOAuth({ settings, log, spentStates: spentStatesFor(req) }), requestOf(req)),
      );
    };
  return {
    begin: step((oauth, request) => oauth.begin(request)),
    callback: step((oauth, request) => oauth.callback(request)),
  };
};
