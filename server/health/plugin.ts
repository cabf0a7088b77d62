import type { FastifyPluginAsync } from "fastify";
import type { InquiryConfig } from "../inquiries/config";
import type { DeliveryWorker } from "../inquiries/delivery-worker";
import { openOutbox } from "../inquiries/open-outbox";
import { isDigesting } from "../inquiries/outbox";
import type { DeployStatus } from "../releases/release-store";
import type { ReleaseControl } from "../releases/worker-link";

export interface HealthOptions {
  readonly readConfig: () => InquiryConfig;
  readonly worker: DeliveryWorker;
  readonly releases: ReleaseControl | null;
  /** The release this server is (null: the checkout), with releases. */
  readonly served?: string | null;
}

/**
 * What /healthz says of the releases: the live commit, and the last deploy's outcome; `degraded` while a
 * push newer than the live release has failed, so the site serves an older commit than the branch's.
 */
const siteHealth = ({ live, last, running, queued }: DeployStatus, served: string | null) => {
  return {
    degraded: last !== null && last.state === "failed" && (live === null || last.startedAt > live.startedAt),
    liveCommit: live?.commit ?? null,
    liveRelease: live?.id ?? null,
    // The release whose server answered this request: the live one, but for a moment during a switch.
    servedRelease: served,
    deploying: running,
    queuedCommit: queued,
    lastDeploy: last
      ? {
          commit: last.commit,
          state: last.state,
          finishedAt: last.finishedAt ?? null,
          // The first line only: the build's output (npm run releases, the release's build.log) is for the operator.
          failedStep: last.failedStep ?? null,
          reason: last.reason?.split("\n")[0] ?? null,
        }
      : null,
  };
};

/**
 * GET /healthz: whether an inquiry can be stored now, how delivery goes, how many inquiries are held as
 * suspected spam and since when the oldest, and the releases' state.
 */
// Async with nothing to await on purpose: Fastify waits for the promise a plugin returns.
// eslint-disable-next-line @typescript-eslint/require-await
export const health: FastifyPluginAsync<HealthOptions> = async (app, { readConfig, worker, releases, served }) => {
  app.get("/healthz", async (_request, reply) => {
    const outbox = openOutbox(readConfig());
    const site = releases ? siteHealth(await releases.status(), served ?? null) : null;
    let writable = true;
    // A real write, synced as an inquiry is, to the store in use (the database, or the Blobs store): not
    // a permission check, since root passes every access() test and a full disk only shows on a write.
    try {
      await outbox.probe();
    } catch {
      writable = false;
    }
    // What waits for a person: how many are held as suspected spam, and for how long the oldest.
    let held: { count: number; oldestReceivedAt: string | null; oldestAgeSeconds: number | null } | null = null;
    if (isDigesting(outbox)) {
      try {
        const { count, oldestReceivedAt } = await outbox.heldSummary();
        const age = oldestReceivedAt === null ? null : Math.floor((Date.now() - Date.parse(oldestReceivedAt)) / 1000);
        held = { count, oldestReceivedAt, oldestAgeSeconds: age === null ? null : Math.max(0, age) };
      } catch {
        // A store that cannot be read now: the probe above says so; nothing to count.
      }
    }
    return reply
      .code(writable ? 200 : 503)
      .header("Cache-Control", "no-store")
      .send({
        status: !writable
          ? "outbox not writable"
          : site?.degraded
            ? "degraded: the newest push failed to deploy"
            : "ok",
        outboxWritable: writable,
        delivery: worker.status(),
        held,
        ...(site ? { site } : {}),
      });
  });
};
