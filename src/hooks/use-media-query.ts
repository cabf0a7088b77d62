import { startTransition, useEffect, useState } from "react";

/**
 * Whether a media query matches, or null before the page is running (on the
 * server and during hydration), so callers can keep the server's CSS layout
 * until they know. The answer arrives as a transition: the server's layout is
 * already right, so the re-render it causes may yield to the visitor's input
 * instead of adding a long task to the page's start.
 */
export const useMediaQuery = (query: string): boolean | null => {
  const [matches, setMatches] = useState<boolean | null>(null);
  useEffect(() => {
    const list = window.matchMedia(query);
    const update = () => startTransition(() => setMatches(list.matches));
    update();
    list.addEventListener("change", update);
    return () => list.removeEventListener("change", update);
  }, [query]);
  return matches;
};
