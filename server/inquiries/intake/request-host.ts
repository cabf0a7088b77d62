/** A request's Host, as the hosts it is compared with are written: trimmed, lower case; "" when there is none. */
export const requestHost = (host: string | undefined): string => host?.trim().toLowerCase() ?? "";

/** The host of an origin (an Origin header, a setting), lower case; null when it is not a URL. */
export const hostOf = (origin: string): string | null => {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return null;
  }
};
