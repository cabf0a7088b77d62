import { useSyncExternalStore } from "react";

/** The year is read once per render; nothing announces its change. */
const subscribeToNothing = () => () => undefined;

/**
 * The year on the visitor's clock. The server HTML carries `fallbackYear`
 * (the build's) so the first client render matches it; the visitor's own
 * year replaces it once the page is running, however old the build is.
 */
export const useCurrentYear = (fallbackYear: number): number =>
  // React renders the server snapshot while hydrating and then re-renders with the client's.
  useSyncExternalStore(
    subscribeToNothing,
    () => new Date().getFullYear(),
    () => fallbackYear,
  );
