import type { InquiryOutbox } from "../inquiries/store/sql-outbox";
import type { DeployStatus } from "../releases/release-store";
import type { ReleaseControl } from "../releases/worker-link";

/** What one probe found. */
export interface HealthReading {
  /** Whether the store in use took a synced write, as an inquiry's would be. */
  readonly outboxWritable: boolean;
  /** The deploys as the primary and the release records say; null without releases. */
  readonly deploys: DeployStatus | null;
}

/**
 * How long a reading is reused: anyone may ask /healthz as often as they like, and a flood of requests must cost
 * one write to the store and one question to the primary a second, not one each.
 */
export const READING_MAX_AGE_MS = 1_000;

export interface HealthProbeOptions {
  /** The store in use, opened for each probe: the inquiry settings it follows may change while the server runs. */
  readonly openOutbox: () => InquiryOutbox;
  readonly releases: Pick<ReleaseControl, "status"> | null;
  /** Milliseconds from a monotonic clock, which tells a reading's age (a wall clock set back would freeze it). */
  readonly clock?: () => number;
}

/**
 * A real write, synced as an inquiry is, to the store in use (SQLite or Postgres): not a permission
 * check, since root passes every access() test and a full disk only shows on a write. Settings that cannot be read
 * reject it: that is an error of the server, not an answer about the store.
 */
const probeOnce = async ({ openOutbox, releases }: HealthProbeOptions): Promise<HealthReading> => {
  const outbox = openOutbox();
  const [outboxWritable, deploys] = await Promise.all([
    outbox.probe().then(
      () => true,
      () => false,
    ),
    releases ? releases.status() : null,
  ]);
  return { outboxWritable, deploys };
};

/**
 * The latest reading: probed again once the last one settled more than READING_MAX_AGE_MS ago, and shared by every
 * request that asks while a probe is under way. A probe that failed is reused as long as one that succeeded, so a
 * broken setting cannot turn a flood into a probe per request either.
 */
export const healthProbe = (options: HealthProbeOptions): (() => Promise<HealthReading>) => {
  const clock = options.clock ?? (() => performance.now());
  let underWay: Promise<HealthReading> | null = null;
  let last: { readonly reading: Promise<HealthReading>; readonly settledAt: number } | null = null;
  return () => {
    if (underWay) return underWay;
    if (last && clock() - last.settledAt < READING_MAX_AGE_MS) return last.reading;
    const reading = probeOnce(options);
    underWay = reading;
    const settled = () => {
      last = { reading, settledAt: clock() };
      underWay = null;
    };
    reading.then(settled, settled);
    return reading;
  };
};
