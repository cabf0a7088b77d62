import type { FastifyPluginAsync } from "fastify";
import type { DeliveryWorker } from "../inquiries/delivery/delivery-worker";
import type { InquiryOutbox } from "../inquiries/store/sql-outbox";
import type { ReleaseControl } from "../releases/worker-link";
import { createHealthCheck } from "./health-check";
import { healthProbe } from "./probe";

export interface HealthOptions {
  /** The inquiry store in use, as the settings say now. */
  readonly openOutbox: () => InquiryOutbox;
  readonly worker: Pick<DeliveryWorker, "status">;
  readonly releases: Pick<ReleaseControl, "status"> | null;
  /** The release this server is (null: the checkout), with releases. */
  readonly served: string | null;
  /** HEALTH_TOKEN: without it, /healthz gives the status alone to everyone. */
  readonly token: string | null;
  /** The probe's clock (milliseconds, monotonic), for a test. */
  readonly clock?: () => number;
}

/** GET /healthz: the status to anyone, the details to the holder of the token (health-check.ts). */
// Async with nothing to await on purpose: Fastify waits for the promise a plugin returns.
// eslint-disable-next-line @typescript-eslint/require-await
export const health: FastifyPluginAsync<HealthOptions> = async (app, options) => {
  const { openOutbox, worker, releases, served, token, clock } = options;
  const check = createHealthCheck({
    reading: healthProbe({ openOutbox, releases, clock }),
    openOutbox,
    releases,
    delivery: () => worker.status(),
    served,
    token,
  });
  app.get("/healthz", async (request, reply) => {
    const { statusCode, body } = await check(request.headers.authorization);
    return reply.code(statusCode).header("Cache-Control", "no-store").send(body);
  });
};
