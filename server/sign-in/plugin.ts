import fastifyCookie from "@fastify/cookie";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { limitRequests } from "../site/request-limit";
import {
  AUTH_PATH,
  CALLBACK_PATH,
  createGithubOAuth,
  type GithubOAuthSettings,
  type OAuthAnswer,
  type OAuthRequest,
} from "./github-oauth";

export interface SignInPluginOptions {
  readonly settings: GithubOAuthSettings;
  readonly log: (line: string) => void;
}

// At most a sign-in every few seconds from one address, on each route: each callback can cost a token
// exchange with GitHub under the site's secret, and an editor signs in a few times a day.
const SIGN_IN_LIMIT = { requests: 20, windowSeconds: 60 };

const oauthRequest = (request: FastifyRequest): OAuthRequest => ({
  url: request.url,
  cookies: request.cookies,
  // As the editor's browser reaches this server: behind a trusted proxy, the scheme it was reached by.
  origin: `${request.protocol}://${request.host}`,
});

const send = (reply: FastifyReply, answer: OAuthAnswer) => {
  for (const { name, value, options } of answer.cookies ?? []) reply.setCookie(name, value, options);
  return reply.code(answer.status).headers(answer.headers).send(answer.body);
};

/**
 * /api/auth and /api/auth/callback on the single server: the editors' GitHub sign-in (github-oauth.ts).
 * Its cookies are read and written by @fastify/cookie, registered here so that no other route parses
 * them; each route has its own rate limit, whether or not the site-wide one is on.
 */
export const signIn: FastifyPluginAsync<SignInPluginOptions> = async (app, { settings, log }) => {
  await app.register(fastifyCookie);
  const oauth = createGithubOAuth({ settings, log });
  // GET only: a HEAD would start a sign-in too.
  const route = () => ({ exposeHeadRoute: false, onRequest: limitRequests(SIGN_IN_LIMIT) });
  app.get(AUTH_PATH, route(), (request, reply) => send(reply, oauth.begin(oauthRequest(request))));
  app.get(CALLBACK_PATH, route(), async (request, reply) => send(reply, await oauth.callback(oauthRequest(request))));
};
