/**
 * GitHub's push webhook for the single server, free of any framework: the server's route hands it the
 * headers and the exact bytes of the body, and sends back what it returns. It decides; the deployer
 * builds. Only a push to the configured branch that leaves a commit on it starts a deploy; every other
 * delivery GitHub makes (the `ping` when the hook is added, pushes of tags or other branches, a branch
 * deleted) is acknowledged and ignored, so GitHub does not mark the hook as failing.
 */

export interface WebhookRequest {
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: Buffer;
}

export interface WebhookAnswer {
  readonly status: number;
  readonly body: { readonly message: string; readonly commit?: string };
  /** The commit to deploy, when the delivery asks for one. */
  readonly deploy?: string;
  /** GitHub's id of this delivery (X-GitHub-Delivery), the same when it is delivered again. */
  readonly delivery?: string | null;
}

/** The largest delivery read. GitHub caps a delivery at 25 MB, but a push lists at most 20 commits (a few KB each). */
export const MAX_WEBHOOK_BODY_BYTES = 1024 * 1024;

interface PushPayload {
  readonly ref?: unknown;
  readonly after?: unknown;
  readonly deleted?: unknown;
}

const ZERO_COMMIT = /^0{40}$/;

export const handleGithubWebhook = async (
  request: WebhookRequest,
  settings: { readonly secret: string; readonly branch: string },
): Promise<WebhookAnswer> => {
  const signature = request.headers["x-hub-signature-256"];
  // Compared in constant time over the exact bytes received (verify() uses timingSafeEqual). A body that
  // is not UTF-8 decodes to other bytes and so fails the check, as it should.
  // The package is ES modules only, without a form require() can load: imported when first needed.
  const { verify } = await import("@octokit/webhooks-methods");
  const signed =
    typeof signature === "string" && signature !== "" && request.body.length > 0
      ? await verify(settings.secret, request.body.toString("utf8"), signature)
      : false;
  if (!signed) return { status: 401, body: { message: "The signature does not match this hook's secret." } };

  const event = request.headers["x-github-event"];
  if (event === "ping") return { status: 200, body: { message: "pong: pushes to this branch will be deployed" } };
  if (event !== "push") return { status: 202, body: { message: `ignored: a ${String(event)} event is not a push` } };

  let payload: PushPayload;
  try {
    payload = JSON.parse(request.body.toString("utf8")) as PushPayload;
  } catch {
    return { status: 400, body: { message: "The body is not JSON: set the hook's content type to application/json." } };
  }
  if (payload.ref !== `refs/heads/${settings.branch}`) {
    return { status: 202, body: { message: `ignored: ${String(payload.ref)} is not refs/heads/${settings.branch}` } };
  }
  const after = typeof payload.after === "string" ? payload.after : "";
  if (payload.deleted === true || ZERO_COMMIT.test(after)) {
    return { status: 202, body: { message: "ignored: the branch was deleted; the live site stays" } };
  }
  if (!/^[0-9a-f]{40}$/.test(after)) return { status: 400, body: { message: "The push names no commit." } };
  const delivery = request.headers["x-github-delivery"];
  return {
    status: 202,
    body: { message: "deploying", commit: after },
    deploy: after,
    // GitHub's ids are GUIDs; anything else is not remembered rather than stored as it came.
    delivery: typeof delivery === "string" && /^[0-9a-f-]{8,64}$/i.test(delivery) ? delivery : null,
  };
};
