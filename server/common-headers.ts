/**
 * The security headers of every response, pages, assets and API answers alike, on both deploys. A module
 * of its own, without the page parser of security-headers.ts (which writes them to `public/_headers`),
 * so the CDN deploy's function can carry them in its bundle: Netlify applies `_headers` to files only,
 * and the function adds them to its answers itself.
 */
export const commonHeaders: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Opener-Policy": "same-origin",
};
