import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { openPage, waitForHydration, WIDTHS } from "./support/browser";
import { useSiteAndBrowser } from "./support/suite";
import { readContent, sitePaths } from "./support/server";

const paths = sitePaths();
const agencyNames = readContent<{ agencies: { name: string }[] }>("agencies.json").agencies.map(
  (agency) => agency.name,
);

const suite = useSiteAndBrowser();

test("the sitemap lists every page of the site", () => {
  for (const path of [
    "/",
    "/products/",
    "/products/uniforms/",
    "/services/",
    "/about/",
    "/contact/",
    "/certifications/",
    "/capability-statement/",
    "/clients/",
    "/privacy/",
    "/terms/",
    "/accessibility/",
  ]) {
    assert.ok(paths.includes(path), `${path} is in the sitemap`);
  }
});

for (const width of WIDTHS) {
  describe(`every page at ${width}px`, () => {
    for (const path of paths) {
      test(`${path}: loads with no console error, no failed request, no CSP violation${width === 375 ? " and no horizontal scroll" : ""}`, async () => {
        const { page, consoleErrors, failedRequests, close } = await openPage(suite.browser, suite.site.origin, width);
        await page.addInitScript(() => {
          const seen: string[] = [];
          Object.assign(window, { cspViolations: seen });
          document.addEventListener("securitypolicyviolation", (event) => {
            seen.push(`${event.effectiveDirective} blocked ${event.blockedURI || "inline"} at ${event.sourceFile}:${event.lineNumber}`);
          });
        });
        const response = await page.goto(suite.site.url(path), { waitUntil: "networkidle" });
        assert.equal(response?.status(), 200);
        const policy = response?.headers()["content-security-policy"] ?? "";
        assert.match(policy, /script-src 'self'( 'sha256-[A-Za-z0-9+/=]+')*;/);
        assert.doesNotMatch(policy, /script-src[^;]*'unsafe-inline'/);
        assert.match(policy, /frame-ancestors 'none'/);
        await waitForHydration(page);
        assert.deepEqual(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations), []);
        assert.deepEqual(consoleErrors, []);
        assert.deepEqual(failedRequests, []);
        if (width === 375) {
          const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
          assert.ok(scrollWidth <= 375, `page is ${scrollWidth}px wide`);
        }
        await close();
      });
    }
  });
}

describe("with JavaScript disabled", () => {
  for (const path of paths) {
    test(`${path}: the main content is in the HTML`, async () => {
      const withScript = await openPage(suite.browser, suite.site.origin, 1280);
      await withScript.page.goto(suite.site.url(path), { waitUntil: "networkidle" });
      const expected = await withScript.page.locator("main").innerText();
      await withScript.close();

      const { page, close } = await openPage(suite.browser, suite.site.origin, 1280, { javaScriptEnabled: false });
      await page.goto(suite.site.url(path));
      const heading = await page.locator("main h1").innerText();
      const main = await page.locator("main").innerText();
      assert.ok(heading.length > 0);
      assert.ok(main.length > 200, `main has ${main.length} characters`);
      // Every line the running page shows is already there without scripts, except the carousel's
      // agencies past the first view: they are in the HTML, but hidden until the carousel can move.
      const missing = expected
        .split("\n")
        .map((line) => line.trim())
        .filter((line) => line && !main.includes(line) && !agencyNames.includes(line));
      assert.deepEqual(missing, []);
      await close();
    });
  }
});
