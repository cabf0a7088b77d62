import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import {
  AUTH_PATH,
  CALLBACK_PATH,
  createGithubOAuth,
  type GithubOAuthSettings,
  type OAuthAnswer,
} from "./github-oauth";

export interface SignInPluginOptions {
  readonly settings: GithubOAuthSettings;
  readonly log: (line: string) => void;
}

const oauthRequest = (request: FastifyRequest) => ({
  url: request.url,
  cookie: request.headers.cookie,
  // As the editor's browser reaches this server: behind a trusted proxy, the scheme it was reached by.
  origin: `${request.protocol}://${request.host}`,
});

const send = (reply: FastifyReply, answer: OAuthAnswer) =>
  reply.code(answer.status).headers(answer.headers).send(answer.body);

/** /api/auth and /api/auth/callback on the single server: the editors' GitHub sign-in (github-oauth.ts). */
// Async with nothing to await on purpose: Fastify waits for the promise a plugin returns.
// eslint-disable-next-line @typescript-eslint/require-await
export const signIn: FastifyPluginAsync<SignInPluginOptions> = async (app, { settings, log }) => {
  const oauth = createGithubOAuth({ settings, log });
  // GET only, and at most a sign-in every few seconds from one address: each callback can cost a token
  // exchange with GitHub under the site's secret, and an editor signs in a few times a day.
  const signInRoute = { exposeHeadRoute: false, config: { rateLimit: { max: 20, timeWindow: 60_000 } } };
  app.get(AUTH_PATH, signInRoute, (request, reply) => send(reply, oauth.begin(oauthRequest(request))));
  app.get(CALLBACK_PATH, signInRoute, async (request, reply) =>
    send(reply, await oauth.callback(oauthRequest(request))),
  );
};
