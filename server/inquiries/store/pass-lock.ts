import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { MaintenanceLease } from "./outbox";
import type { StoreDatabase } from "./database";
import type { Query } from "./jobs";
import { STATE } from "./schema";

export interface PassLockOptions {
  /** How long the lock lasts unless renewed (30 s), and how often it is renewed (5 s). */
  readonly leaseTtlMs?: number;
  readonly leaseRenewMs?: number;
}

/**
 * The store's maintenance lock (InquiryOutbox.whileMaintaining), which the daily retention run takes so that no two
 * overlap: a row of `store_state` taken by an upsert that succeeds only where it is free or its holder's time ran
 * out, renewed while the run lasts. A run whose lock another took (this process stalled past its expiry) is told
 * through `onLost`: its work goes on to its end, but its lease says the lock is no longer its.
 */
export const whileHoldingPassLock = async <T>(
  database: StoreDatabase,
  { leaseTtlMs = 30_000, leaseRenewMs = 5_000 }: PassLockOptions,
  work: (lease: MaintenanceLease) => Promise<T>,
  waitMs: number,
  onLost: (error: Error) => void,
): Promise<{ value: T } | null> => {
  await database.ready();
  const write = <R>(change: (q: Query) => Promise<R>) => database.db.transaction().execute(change);
  const holder = randomUUID();
  const deadline = Date.now() + waitMs;
  const take = async () => {
    const now = new Date();
    const until = new Date(now.getTime() + leaseTtlMs).toISOString();
    const row = await write((q) =>
      q
        .insertInto("store_state")
        .values({ name: STATE.maintenanceLock, value: holder, until })
        .onConflict((conflict) =>
          conflict
            .column("name")
            .doUpdateSet({ value: holder, until })
            .where("store_state.until", "<", now.toISOString()),
        )
        .returning("name")
        .executeTakeFirst(),
    );
    return row !== undefined;
  };
  while (!(await take())) {
    if (Date.now() + 100 > deadline) return null;
    await sleep(100);
  }
  let lost = false;
  const loseIt = (error: Error) => {
    if (lost) return;
    lost = true;
    onLost(error);
  };
  const renewal = setInterval(() => {
    const until = new Date(Date.now() + leaseTtlMs).toISOString();
    write((q) =>
      q
        .updateTable("store_state")
        .set({ until })
        .where("name", "=", STATE.maintenanceLock)
        .where("value", "=", holder)
        .executeTakeFirst(),
    )
      .then(({ numUpdatedRows }) => {
        if (numUpdatedRows === 0n) loseIt(new Error("the maintenance lock was taken over by another run"));
      })
      // A renewal that fails (a busy database) is tried again at the next, well before the lock expires.
      .catch((error: unknown) => {
        if (leaseRenewMs * 2 >= leaseTtlMs) loseIt(error as Error);
      });
  }, leaseRenewMs);
  renewal.unref();
  try {
    return { value: await work({ mayStart: () => !lost }) };
  } finally {
    clearInterval(renewal);
    // A lock that passed to another run is not ours to remove; one that cannot be removed now runs out.
    await write((q) =>
      q.deleteFrom("store_state").where("name", "=", STATE.maintenanceLock).where("value", "=", holder).execute(),
    ).catch((error: unknown) => onLost(error as Error));
  }
};
