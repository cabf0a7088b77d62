/**
 * What the primary does when the live release's server ends by itself (a crash, the OOM killer, a bug that
 * shows only in service), as a policy free of processes and clocks. The first end is met with a restart at
 * once: one crash is as likely the machine's as the release's, and visitors' connections wait in the
 * primary meanwhile. Ends that follow within the window back off (1 s, 2 s, 4 s … up to 30 s), so a server
 * that dies at every start is not forked in a tight loop. The third end within five minutes rolls the
 * release back to the one that served before it, once; with nothing to roll back to, it keeps restarting
 * with back-off (docs/architecture.md, "When a release fails in service").
 */

/** Ends within the window that make a release failed in service. */
const ENDS_TO_ROLL_BACK = 3;
/** How far back ends count: a server that ends once an hour is restarted, not rolled back. */
export const END_WINDOW_MS = 5 * 60_000;
const FIRST_BACK_OFF_MS = 1_000;
const MAX_BACK_OFF_MS = 30_000;

/** How a server ended: its exit code or signal, and when. */
export interface ServerEnd {
  readonly at: number;
  readonly code: number | null;
  readonly signal: string | null;
}

export type AfterEnd =
  | { readonly action: "restart"; readonly delayMs: number }
  | { readonly action: "roll back"; readonly ends: readonly ServerEnd[] };

/** The ends of one release's server within the window before `now`, oldest first. */
export const recentEnds = (ends: readonly ServerEnd[], now: number): ServerEnd[] =>
  ends.filter((end) => now - end.at < END_WINDOW_MS);

/**
 * After the live release's server ended (the last of `ends`, which are that release's ends in this primary):
 * restart it (at once, or after a pause), or roll back when there is a release to roll back to.
 */
export const afterEnd = (ends: readonly ServerEnd[], now: number, canRollBack: boolean): AfterEnd => {
  const recent = recentEnds(ends, now);
  if (canRollBack && recent.length >= ENDS_TO_ROLL_BACK) return { action: "roll back", ends: recent };
  if (recent.length <= 1) return { action: "restart", delayMs: 0 };
  return {
    action: "restart",
    delayMs: Math.min(MAX_BACK_OFF_MS, FIRST_BACK_OFF_MS * 2 ** (recent.length - 2)),
  };
};

/** How an end reads in a record and the log: `exit code 1`, `SIGKILL`. */
export const describeEnd = ({ code, signal }: Pick<ServerEnd, "code" | "signal">): string =>
  signal ?? `exit code ${code ?? "none"}`;
