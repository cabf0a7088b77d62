/**
 * The `type`s of a <script> that a browser runs (lower-cased, trimmed; "" is no type). Any other, such as
 * JSON-LD's application/ld+json, is a data block: no script to a Content-Security-Policy, and nothing a
 * page without script must lose. Shared by the build's policies (build/security-headers.ts), the pages'
 * rendering (gatsby-ssr.tsx) and the browser tests.
 */
export const RUNNABLE_SCRIPT_TYPES: ReadonlySet<string> = new Set([
  "",
  "text/javascript",
  "application/javascript",
  "module",
]);

/** Whether a <script> of this `type` attribute (absent: undefined) is run by a browser. */
export const isRunnableScriptType = (type: string | undefined): boolean =>
  RUNNABLE_SCRIPT_TYPES.has((type ?? "").trim().toLowerCase());
