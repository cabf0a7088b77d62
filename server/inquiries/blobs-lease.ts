import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { BlobsStore } from "./blobs-store";
import type { DeliveryLease } from "./outbox";

/**
 * The delivery lock of a Blobs outbox: one blob naming its holder and when its hold ends.
 *
 * Why two delivery runs (two scheduled invocations, a scheduled one and `npm run inquiries -- --retry`,
 * a function delivering the inquiry it just stored) never deliver one inquiry at the same time:
 * - Taking the lease is a conditional write, which the store performs atomically: it is created only
 *   if no lease blob exists (`onlyIfNew`), or it replaces an expired lease only if that lease is still
 *   the very version that was read (`onlyIfMatch` with its ETag). Of any number of runs trying at once,
 *   one write succeeds; the others see the condition fail and give up or wait.
 * - The holder extends the lease while it works, again only if the blob is still the version it wrote;
 *   if that fails, another run has taken it over, and the holder starts no further delivery.
 * - A delivery starts only while the lease has longer to run than one attempt may take plus a margin
 *   for clocks that disagree and for recording the outcome (`mayStart`). Every attempt is cut off at
 *   its deadline, so whatever was started ends, and is recorded, before any other run can take the
 *   lease; that run reads the outbox after it has the lease and sees the outcome.
 * - Releasing writes an expired lease, on the same condition: a lease that passed to another run is
 *   never released by the run that lost it. A run that dies holding it leaves it to expire.
 *
 * What it cannot prevent is a run stalled (frozen, paused) for longer than the margin between checking
 * `mayStart` and sending, or between sending and recording: a delivery is then made twice. Every
 * delivery carries the inquiry's reference (`X-Inquiry-Reference`), by which the receiver can tell.
 */
interface LeaseBody {
  readonly holder: string;
  readonly expiresAt: string;
}

export interface LeaseTiming {
  /** How long a lease lasts unless it is extended. */
  readonly ttlMs: number;
  /** How often the holder extends it. */
  readonly renewMs: number;
  /** How much time must be left on the lease for a delivery to start. */
  readonly marginMs: number;
}

const POLL_MS = 250;

const isLeaseBody = (value: unknown): value is LeaseBody =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as LeaseBody).holder === "string" &&
  typeof (value as LeaseBody).expiresAt === "string";

export class BlobsLease implements DeliveryLease {
  private lost = false;
  private readonly timer: NodeJS.Timeout;
  private renewing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly blobs: BlobsStore,
    private readonly key: string,
    private readonly holder: string,
    private etag: string | null,
    private expiresAt: number,
    private readonly timing: LeaseTiming,
    private readonly onLost: (error: Error) => void,
  ) {
    this.timer = setInterval(() => {
      this.renewing = this.renewing.then(() => this.renew());
    }, timing.renewMs);
    // A lease must not keep a process alive that has nothing else to do.
    this.timer.unref();
  }

  /** Takes the lease, waiting until `deadline` (a time) while another run holds it; null if it never came free. */
  static async acquire(
    blobs: BlobsStore,
    key: string,
    timing: LeaseTiming,
    deadline: number,
    onLost: (error: Error) => void,
  ): Promise<BlobsLease | null> {
    const holder = randomUUID();
    for (;;) {
      const expiresAt = Date.now() + timing.ttlMs;
      const body: LeaseBody = { holder, expiresAt: new Date(expiresAt).toISOString() };
      let taken = await blobs.write(key, body, { onlyIfNew: true });
      if (!taken.written) {
        const expired = await BlobsLease.expiredVersion(blobs, key);
        if (expired !== null) taken = await blobs.write(key, body, { onlyIfMatch: expired });
      }
      if (taken.written) return new BlobsLease(blobs, key, holder, taken.etag, expiresAt, timing, onLost);
      if (Date.now() + POLL_MS > deadline) return null;
      await sleep(POLL_MS);
    }
  }

  /**
   * The ETag of the lease blob when the lease in it has expired; null while it is held. The ETag is
   * read before the body: a body newer than that ETag makes the conditional write fail, never succeed.
   */
  private static async expiredVersion(blobs: BlobsStore, key: string): Promise<string | null> {
    const listed = (await blobs.list(key)).find((blob) => blob.key === key);
    const text = await blobs.get(key);
    if (!listed || text === null) return null;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      // Not a lease this code wrote: treat it as expired, so that it cannot block delivery forever.
      return listed.etag;
    }
    return isLeaseBody(body) && Date.parse(body.expiresAt) > Date.now() ? null : listed.etag;
  }

  mayStart(): boolean {
    return !this.lost && this.expiresAt - Date.now() > this.timing.marginMs;
  }

  private async renew(): Promise<void> {
    if (this.lost || this.etag === null) return;
    const expiresAt = Date.now() + this.timing.ttlMs;
    try {
      const renewed = await this.blobs.write(
        this.key,
        { holder: this.holder, expiresAt: new Date(expiresAt).toISOString() } satisfies LeaseBody,
        { onlyIfMatch: this.etag },
      );
      if (renewed.written) {
        this.etag = renewed.etag;
        this.expiresAt = expiresAt;
        return;
      }
      this.lost = true;
      this.onLost(new Error("the delivery lease was taken over by another run"));
    } catch {
      // The store could not be reached: the lease runs out on its own, and mayStart says so in time.
    }
  }

  /** Ends the hold; a lease that passed to another run meanwhile is left alone. */
  async release(): Promise<void> {
    clearInterval(this.timer);
    await this.renewing;
    if (this.lost || this.etag === null) return;
    try {
      await this.blobs.write(
        this.key,
        { holder: this.holder, expiresAt: new Date(0).toISOString() } satisfies LeaseBody,
        { onlyIfMatch: this.etag },
      );
    } catch {
      // Not released: it expires on its own, and the next run waits until then.
    }
  }
}
