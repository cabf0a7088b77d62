import { useEffect, useState } from "react";

/**
 * Whether a media query matches, or null before the page is running (on the
 * server and during hydration), so callers can keep the server's CSS layout
 * until they know.
 */
export const useMediaQuery = (query: string): boolean | null => {
  const [matches, setMatches] = useState<boolean | null>(null);
  useEffect(() => {
    const list = window.matchMedia(query);
    const update = () => setMatches(list.matches);
    update();
    list.addEventListener("change", update);
    return () => list.removeEventListener("change", update);
  }, [query]);
  return matches;
};
