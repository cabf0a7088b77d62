import { readEditingBackend, type EditingBackend } from "../src/admin/editing-backend";

/**
 * The editing screen's headers (/admin/, Decap CMS from its own prebuilt bundle). Its needs differ
 * from the site's pages, so it has a policy of its own rather than the pages' hash-based one:
 * - script-src 'unsafe-eval': Decap validates its configuration with ajv, which compiles its checks
 *   with `new Function`; with the deprecated Git Gateway, https://identity.netlify.com serves its sign-in widget.
 * - style-src 'unsafe-inline': Decap's components style themselves with emotion's <style> elements.
 * - img-src blob: and https:: an upload is previewed from a blob: URL; a logo may be an https address,
 *   and the signed-in editor's GitHub avatar is one.
 * - connect-src blob: and the backend's API: Decap keeps drafts as blobs it reads back, and reads and
 *   commits through GitHub's REST API (api.github.com, or a GitHub Enterprise Server's).
 * Nothing else is loaded from elsewhere, and no other page may frame it. The live policy names no http:
 * source (an HTTP Observatory grades a policy down for one): decap-server, the local backend at
 * http://localhost:8081, is added only where the screen is served on an editor's own machine.
 */

/** Decap's local backend (decap-server), where `npm run edit` runs it and the editing screen looks for it. */
export const LOCAL_BACKEND = "http://localhost:8081";

/**
 * Where the screen is served: `live` from the build's headers (both deploys), `editors-machine` by the
 * develop server of `npm run edit`, beside decap-server.
 */
export type AdminServedOn = "live" | "editors-machine";

/** The folder of public/ that holds the editing screen. */
export const ADMIN_FOLDER = "admin";

export const adminPolicy = (backend: EditingBackend = readEditingBackend(), servedOn: AdminServedOn = "live"): string =>
  [
    "default-src 'self'",
    ["script-src 'self' 'unsafe-eval'", ...backend.scriptOrigins].join(" "),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https:",
    "font-src 'self' data:",
    [
      "connect-src 'self' blob:",
      ...backend.connectOrigins,
      ...(servedOn === "editors-machine" ? [LOCAL_BACKEND] : []),
    ].join(" "),
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");

/**
 * The editing screen's headers besides its policy. It keeps an editor's session, so a window of another
 * site that opened it is cut off from it (Cross-Origin-Opener-Policy). `-allow-popups` for the live
 * screen's GitHub sign-in: a popup of the site's own handshake (/api/auth) reports back through
 * `window.opener`, which `same-origin` would cut too.
 */
export const adminPageHeaders = (
  backend: EditingBackend = readEditingBackend(),
  servedOn: AdminServedOn = "live",
): Readonly<Record<string, string>> => ({
  "Content-Security-Policy": adminPolicy(backend, servedOn),
  "Cross-Origin-Opener-Policy": "same-origin-allow-popups",
});

/** For everything under /admin/: never in a search engine's index, whatever a crawler found it by. */
export const adminFolderHeaders: Readonly<Record<string, string>> = { "X-Robots-Tag": "noindex, nofollow" };
