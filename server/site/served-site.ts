import fs from "node:fs";
import path from "node:path";
import { liveReleaseId, publicDirOf } from "../releases/release-store";
import { readHeadersFile, type HeaderRules } from "./headers-file";

/**
 * The built site a request is answered from: its folder, the headers its build wrote for it, and its
 * 404 page. They go together: a page's policy lists the hashes of that build's inline scripts, so a page
 * of one release sent with another's headers would not run.
 */
export interface ServedSite {
  readonly publicDir: string;
  readonly headerRules: HeaderRules;
  /** The headers of every answer (`/*` in `_headers`, without its policy). */
  readonly siteHeaders: Readonly<Record<string, string>>;
  readonly notFoundPage: Buffer;
  /** The release it is (DEPLOY_DIR), or null for a folder served as it is (PUBLIC_DIR). */
  readonly release: string | null;
}

export const loadServedSite = (publicDir: string, release: string | null): ServedSite => {
  const headerRules = readHeadersFile(publicDir);
  // The rule for all paths, but for its policy: that one is for the CDN's answers that no page's rule
  // covers (build/security-headers.ts); here every HTML answer gets its page's policy, or the 404 page's.
  const { "Content-Security-Policy": _anyPagePolicy, ...siteHeaders } = headerRules.get("/*") ?? {};
  return {
    publicDir,
    headerRules,
    siteHeaders,
    notFoundPage: fs.readFileSync(path.join(publicDir, "404.html")),
    release,
  };
};

// Releases loaded at once: the live one and those a rollback or the next deploy may switch to.
const LOADED_RELEASES = 4;

/**
 * Which site to answer from, asked once per request. Without releases it is always the one folder; with
 * them it is whatever `live` points at when the request arrives (one readlink), so a switch made by this
 * process or by `npm run releases -- --rollback` takes effect at the next request, and a request that
 * began before it is answered wholly from the release it began with. Before the first release, the
 * fallback folder (the server's own public/) is served.
 */
export class SiteSource {
  private readonly loaded = new Map<string, ServedSite>();
  private fallbackSite: ServedSite | null = null;
  private lastServed: ServedSite | null = null;
  private lastLive: string | null;

  /**
   * `onSwitch` hears of every change of the live release this process sees, whoever made it (its own
   * deploy, or a rollback from the command line), at the first request after it.
   */
  constructor(
    private readonly fallbackPublicDir: string,
    private readonly deployDir: string | null,
    private readonly onSwitch: (from: string | null, to: string | null) => void = () => undefined,
  ) {
    this.lastLive = deployDir ? liveReleaseId(deployDir) : null;
  }

  current(): ServedSite {
    const release = this.deployDir ? liveReleaseId(this.deployDir) : null;
    if (release !== this.lastLive) {
      const from = this.lastLive;
      this.lastLive = release;
      this.onSwitch(from, release);
    }
    if (!this.deployDir || release === null) {
      this.fallbackSite ??= loadServedSite(this.fallbackPublicDir, null);
      return this.fallbackSite;
    }
    try {
      this.lastServed = this.release(release);
    } catch (error) {
      // A live release the server cannot read (a hand-made link, a folder removed under it): the site it
      // served last goes on being served, rather than an error for every request.
      if (!this.lastServed) throw error;
    }
    return this.lastServed;
  }

  /** A release's site, loaded once; a deploy loads the new release this way before it goes live (verify). */
  release(id: string): ServedSite {
    const known = this.loaded.get(id);
    if (known) return known;
    if (!this.deployDir) throw new Error("no releases are configured (DEPLOY_DIR)");
    const site = loadServedSite(publicDirOf(this.deployDir, id), id);
    this.loaded.set(id, site);
    for (const old of [...this.loaded.keys()].slice(0, Math.max(0, this.loaded.size - LOADED_RELEASES))) {
      this.loaded.delete(old);
    }
    return site;
  }
}
