import { useEffect, useState } from "react";

/**
 * The year on the visitor's clock. The server HTML carries `fallbackYear`
 * (the build's) so the first client render matches it; the visitor's own
 * year replaces it once the page is running, however old the build is.
 */
export const useCurrentYear = (fallbackYear: number): number => {
  const [year, setYear] = useState(fallbackYear);
  useEffect(() => setYear(new Date().getFullYear()), []);
  return year;
};
