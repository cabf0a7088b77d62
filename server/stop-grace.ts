/**
 * How long the single server may take to stop. At a stop it waits for the delivery attempts under way, each cut off
 * at the attempt timeout (INQUIRY_ATTEMPT_TIMEOUT_SECONDS), then a margin for recording their outcomes and closing.
 * systemd kills the service once its stop timeout has passed, so the whole wait must end before that; the attempt
 * timeout's range is derived from the unit's timeout, so no setting an operator can give makes the wait too long.
 * Free of imports: the inquiry settings read these numbers, and they are bundled into the Netlify functions.
 */

/** `TimeoutStopSec=` in deploy/cardinal-site.service (a test holds the two together). */
export const UNIT_STOP_TIMEOUT_SECONDS = 30;

/** Kept beyond the longest attempt for its outcome to be recorded and the server to close. */
export const STOP_MARGIN_SECONDS = 5;

/**
 * The longest attempt timeout an operator may set. Twice the margin is left, not once, so that even the longest wait
 * (this timeout and one margin) still ends a whole margin before systemd's deadline.
 */
export const MAX_ATTEMPT_TIMEOUT_SECONDS = UNIT_STOP_TIMEOUT_SECONDS - 2 * STOP_MARGIN_SECONDS;

/** How long a stop waits for what is in flight before it gives up: the attempt timeout and the margin. */
export const stopGraceMs = (attemptTimeoutMs: number): number => attemptTimeoutMs + STOP_MARGIN_SECONDS * 1000;
