/** How far an instant is from a test's starting one: negative before it. */
export interface Offset {
  readonly months?: number;
  readonly days?: number;
  readonly hours?: number;
  readonly minutes?: number;
  readonly seconds?: number;
}

/**
 * The instant `offset` from `start`, as the outbox writes one (ISO, UTC): months and days by the calendar,
 * so that "24 months before" is what retention counts as 24 months; hours, minutes and seconds by the clock.
 */
export const shifted = (start: string, { months = 0, days = 0, hours = 0, minutes = 0, seconds = 0 }: Offset) => {
  const at = new Date(start);
  at.setUTCMonth(at.getUTCMonth() + months, at.getUTCDate() + days);
  return new Date(at.getTime() + ((hours * 60 + minutes) * 60 + seconds) * 1000).toISOString();
};
