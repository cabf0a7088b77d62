/**
 * @jest-environment node
 */
import { createHash } from "node:crypto";
import { pageScripts, policyDirectives, policyForPage } from "../build/security-headers";

const sha256 = (text: string) => `sha256-${createHash("sha256").update(text, "utf8").digest("base64")}`;

/** A page as gatsby-ssr.tsx writes one that runs the app: its scripts in a template, the loader beside it. */
const appPage =
  '<!doctype html><html><head><script type="application/ld+json">{}</script></head><body><main></main>' +
  '<template id="gatsby-app-scripts"><script>window.a=1</script><script src="/app-1.js" async></script></template>' +
  "<script>start()</script></body></html>";

/** A page on which nothing needs script: its data block (JSON-LD) is no script to the browser. */
const scriptFreePage =
  '<!doctype html><html><head><script type="application/ld+json">{}</script></head><body><main></main></body></html>';

describe("a page's Content-Security-Policy", () => {
  it("allows a page that runs the app its script files and exactly its inline scripts", () => {
    expect(pageScripts(appPage)).toEqual({
      inlineHashes: [sha256("window.a=1"), sha256("start()")].sort(),
      files: ["/app-1.js"],
    });
    expect(policyDirectives(policyForPage(appPage)).get("script-src")).toEqual([
      "'self'",
      ...[sha256("window.a=1"), sha256("start()")].sort().map((hash) => `'${hash}'`),
    ]);
  });

  it("allows no script at all on a page that has none, and stays as strict on everything else", () => {
    const policy = policyForPage(scriptFreePage);
    expect(pageScripts(scriptFreePage)).toEqual({ inlineHashes: [], files: [] });
    expect(policy).toContain("script-src 'none';");
    expect(policy).not.toMatch(/script-src[^;]*('self'|sha256)/);
    // What Mozilla's Observatory grades a policy on stays as strict as on every other page.
    for (const directive of ["default-src 'self'", "object-src 'none'", "base-uri 'self'", "frame-ancestors 'none'"])
      expect(policy).toContain(directive);
  });
});
