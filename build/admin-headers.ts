/**
 * The editing screen's headers (/admin/, Decap CMS from its own prebuilt bundle). Its needs differ
 * from the site's pages, so it has a policy of its own rather than the pages' hash-based one:
 * - script-src 'unsafe-eval': Decap validates its configuration with ajv, which compiles its checks
 *   with `new Function`; https://identity.netlify.com serves the sign-in widget of the CDN deploy.
 * - style-src 'unsafe-inline': Decap's components style themselves with emotion's <style> elements.
 * - img-src blob: and https:: an upload is previewed from a blob: URL; a logo may be an https address.
 * - connect-src blob: http://localhost:8081: Decap keeps drafts as blobs it reads back, and on an
 *   editor's own machine (`npm run edit`) it saves through decap-server on that port.
 * Nothing else is loaded from elsewhere, and no other page may frame it.
 */

/** The folder of public/ that holds the editing screen. */
export const ADMIN_FOLDER = "admin";

export const adminPolicy = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-eval' https://identity.netlify.com",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: https:",
  "font-src 'self' data:",
  "connect-src 'self' blob: http://localhost:8081",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * The editing screen's headers besides its policy. It keeps an editor's session, so a window of another
 * site that opened it is cut off from it (Cross-Origin-Opener-Policy). `-allow-popups` for the backend the
 * README offers instead of Git Gateway: GitHub signs in through a popup of the OAuth provider that reports
 * back through `window.opener`, which `same-origin` would cut too.
 */
export const adminPageHeaders: Readonly<Record<string, string>> = {
  "Content-Security-Policy": adminPolicy,
  "Cross-Origin-Opener-Policy": "same-origin-allow-popups",
};

/** For everything under /admin/: never in a search engine's index, whatever a crawler found it by. */
export const adminFolderHeaders: Readonly<Record<string, string>> = { "X-Robots-Tag": "noindex, nofollow" };
