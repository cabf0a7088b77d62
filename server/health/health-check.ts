import { createHash, timingSafeEqual } from "node:crypto";
import type { WorkerStatus } from "../inquiries/delivery/delivery-worker";
import type { InquiryOutbox } from "../inquiries/store/sql-outbox";
import type { DeployStatus } from "../releases/release-store";
import type { ReleaseControl } from "../releases/worker-link";
import type { HealthReading } from "./probe";

type HealthStatus =
  | "ok"
  | "degraded: the newest push failed to deploy"
  | "degraded: the newest release failed in service and was rolled back"
  | "outbox not writable";

/** What anyone is told: the status alone. */
interface PublicHealth {
  readonly status: HealthStatus;
}

/** What waits for a person: how many inquiries are held as suspected spam, and for how long the oldest. */
interface HeldNow {
  readonly count: number;
  readonly oldestReceivedAt: string | null;
  readonly oldestAgeSeconds: number | null;
}

/** What the holder of the token is told besides. */
interface HealthDetails extends PublicHealth {
  readonly outboxWritable: boolean;
  readonly delivery: WorkerStatus;
  readonly held: HeldNow | null;
  readonly site?: SiteHealth;
}

export interface HealthAnswer {
  /** 503 while the store cannot take an inquiry; the site itself is served either way. */
  readonly statusCode: 200 | 503;
  readonly body: PublicHealth | HealthDetails;
}

export interface HealthCheckOptions {
  /** The store's writability and the deploys, probed at most once a second (probe.ts). */
  readonly reading: () => Promise<HealthReading>;
  /** The store in use, for the held inquiries the details count. */
  readonly openOutbox: () => InquiryOutbox;
  readonly releases: Pick<ReleaseControl, "status"> | null;
  /** The delivery worker's last pass. */
  readonly delivery: () => WorkerStatus;
  /** The release this server is (null: the checkout), with releases. */
  readonly served: string | null;
  /** HEALTH_TOKEN: the bearer token that the details take; null, they are never given. */
  readonly token: string | null;
  readonly now?: () => Date;
}

const degraded = ({ live, last }: DeployStatus): boolean =>
  last !== null && last.state === "failed" && (live === null || last.startedAt > live.startedAt);

const statusOf = (outboxWritable: boolean, deploys: DeployStatus | null): HealthStatus =>
  !outboxWritable
    ? "outbox not writable"
    : deploys && degraded(deploys)
      ? deploys.last?.failedStep === "service"
        ? "degraded: the newest release failed in service and was rolled back"
        : "degraded: the newest push failed to deploy"
      : "ok";

/**
 * What the details say of the releases: the live commit, and the last deploy's outcome; `degraded` while a
 * push newer than the live release has failed, so the site serves an older commit than the branch's.
 */
const siteHealth = (deploys: DeployStatus, served: string | null) => {
  const { live, last, running, queued } = deploys;
  return {
    degraded: degraded(deploys),
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

type SiteHealth = ReturnType<typeof siteHealth>;

const heldNow = async (outbox: InquiryOutbox, now: Date): Promise<HeldNow | null> => {
  try {
    const { count, oldestReceivedAt } = await outbox.heldSummary();
    const age = oldestReceivedAt === null ? null : Math.floor((now.getTime() - Date.parse(oldestReceivedAt)) / 1000);
    return { count, oldestReceivedAt, oldestAgeSeconds: age === null ? null : Math.max(0, age) };
  } catch {
    // A store that cannot be read now: the probe says so; nothing to count.
    return null;
  }
};

const digest = (text: string) => createHash("sha256").update(text).digest();

/**
 * Whether the Authorization header carries the token. Compared as digests, which are of equal length whatever was
 * sent, so the time taken tells nothing of the token, not even its length.
 */
const carriesToken = (authorization: string | undefined, token: string | null): boolean => {
  const scheme = "bearer ";
  if (token === null || authorization?.slice(0, scheme.length).toLowerCase() !== scheme) return false;
  return timingSafeEqual(digest(authorization.slice(scheme.length).trim()), digest(token));
};

/**
 * GET /healthz, free of any framework: the status to anyone, from a reading shared by every request of the
 * second, so a visitor learns that the site is up and nothing of its deploys or inquiries, and costs next to
 * nothing. With the token, the details: how delivery goes, how many inquiries are held and since when the
 * oldest, and the releases' state, read for this request (a deploy's progress is what an operator waits on).
 * A wrong token gets the status alone, as a missing one does: a monitor set up wrongly shows it, and learns nothing.
 */
export const createHealthCheck = (options: HealthCheckOptions) => {
  const now = options.now ?? (() => new Date());
  return async (authorization: string | undefined): Promise<HealthAnswer> => {
    const { outboxWritable, deploys } = await options.reading();
    const statusCode = outboxWritable ? 200 : 503;
    if (!carriesToken(authorization, options.token))
      return { statusCode, body: { status: statusOf(outboxWritable, deploys) } };
    const [current, held] = await Promise.all([
      options.releases ? options.releases.status() : null,
      heldNow(options.openOutbox(), now()),
    ]);
    return {
      statusCode,
      body: {
        status: statusOf(outboxWritable, current),
        outboxWritable,
        delivery: options.delivery(),
        held,
        ...(current ? { site: siteHealth(current, options.served) } : {}),
      },
    };
  };
};
