/**
 * The security headers of every response, pages, assets and API answers alike, on both deploys. A module
 * of its own, without the page parser of security-headers.ts (which writes them to `public/_headers`),
 * so the CDN deploy's function can carry them in its bundle: Netlify applies `_headers` to files only,
 * and the function adds them to its answers itself.
 *
 * No Cross-Origin-Opener-Policy for the site's pages. What it adds is cutting off a window of another site
 * that opened a page: without it that window keeps a handle with which it can later send the tab elsewhere
 * (a look-alike form, say) or probe it (count its frames). The pages have no sign-in or session to lose,
 * and what they keep, the inquiry draft in sessionStorage, only this origin can read, with or without
 * COOP. Against that, every value but the default makes the browser put the page in a browsing-context
 * group of its own on each arrival, which slows the page's commit and adds to its total blocking time.
 * The editing screen, which does hold a session, has one (admin-headers.ts).
 */
export const commonHeaders: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()",
  "X-Frame-Options": "DENY",
};
