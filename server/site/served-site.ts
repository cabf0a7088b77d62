import fs from "node:fs";
import path from "node:path";
import { readHeadersFile, type HeaderRules } from "./headers-file";

/**
 * The built site this server answers from: its folder, the headers its build wrote for it, and its 404 page.
 * They go together: a page's policy lists the hashes of that build's inline scripts. A server never switches
 * sites: with releases, each release runs its own server (server/releases/primary.ts), so the pages, their
 * headers, the content the inquiry rules come from and the code are always one release's.
 */
export interface ServedSite {
  readonly publicDir: string;
  readonly headerRules: HeaderRules;
  /** The headers of every answer (`/*` in `_headers`, without its policy). */
  readonly siteHeaders: Readonly<Record<string, string>>;
  readonly notFoundPage: Buffer;
}

/** Reads a built folder as the server serves it; a folder without a build stops the start. */
export const loadServedSite = (publicDir: string): ServedSite => {
  const headerRules = readHeadersFile(publicDir);
  // The rule for all paths, but for its policy: that one is for the CDN's answers that no page's rule
  // covers (build/security-headers.ts); here every HTML answer gets its page's policy, or the 404 page's.
  const { "Content-Security-Policy": _anyPagePolicy, ...siteHeaders } = headerRules.get("/*") ?? {};
  return {
    publicDir,
    headerRules,
    siteHeaders,
    notFoundPage: fs.readFileSync(path.join(publicDir, "404.html")),
  };
};
