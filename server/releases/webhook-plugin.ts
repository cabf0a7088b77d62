import type { FastifyPluginAsync } from "fastify";
import type { ReleaseControl } from "./worker-link";
import { handleGithubWebhook, MAX_WEBHOOK_BODY_BYTES } from "./github-webhook";

/** GitHub's push webhook (DEPLOY_WEBHOOK_SECRET), which deploys the branch to this server. */
export const DEPLOY_WEBHOOK_PATH = "/api/deploy/github";

export interface DeployWebhookOptions {
  readonly releases: ReleaseControl;
  readonly secret: string;
  readonly branch: string;
  readonly log: (line: string, fields?: Readonly<Record<string, unknown>>) => void;
}

/** POST /api/deploy/github: a signed push to the branch starts a deploy (github-webhook.ts checks it). */
// Async with nothing to await on purpose: Fastify waits for the promise a plugin returns.
// eslint-disable-next-line @typescript-eslint/require-await
export const deployWebhook: FastifyPluginAsync<DeployWebhookOptions> = async (app, options) => {
  const { releases, secret, branch, log } = options;
  app.removeAllContentTypeParsers();
  // The exact bytes: the signature is over them, not over a parse of them.
  app.addContentTypeParser(
    "application/json",
    { parseAs: "buffer", bodyLimit: MAX_WEBHOOK_BODY_BYTES },
    (_req, body, done) => done(null, body),
  );
  app.post(DEPLOY_WEBHOOK_PATH, { bodyLimit: MAX_WEBHOOK_BODY_BYTES }, async (request, reply) => {
    const answer = await handleGithubWebhook(
      {
        headers: request.headers as Record<string, string | undefined>,
        // No body at all arrives as none: refused like any unsigned delivery.
        body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
      },
      { secret, branch },
    );
    reply.header("Cache-Control", "no-store");
    if (answer.deploy) {
      const fields = { commit: answer.deploy, branch, delivery: answer.delivery ?? null };
      const taken = await releases.request(answer.deploy, answer.delivery ?? null);
      if (!taken.accepted) {
        log(`deploy: push of ${answer.deploy.slice(0, 12)} to ${branch} not taken: ${taken.message}`, fields);
        // GitHub lists the delivery as failed, to be delivered again once the deploys can take it.
        return reply.code(503).send({ message: taken.message });
      }
      log(`deploy: push of ${answer.deploy.slice(0, 12)} to ${branch} received: ${taken.message}`, fields);
      return reply.code(answer.status).send({ ...answer.body, message: taken.message });
    }
    return reply.code(answer.status).send(answer.body);
  });
};
