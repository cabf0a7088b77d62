import { WIDTHS } from "../testing/browser";
import { atWidth, expect, expectHydrated, test } from "./support/fixtures";
import { controlsNeedingScript, needingTheApp } from "./support/page-scripts";
import { readContent, sitePaths } from "../testing/site-server";

const paths = sitePaths();
const agencyNames = readContent("agencies.json").agencies.map((agency) => agency.name);
/** Shown once a click prints (PrintButton.tsx): in the HTML, but hidden until then, and so without script. */
const printLabel = readContent("certifications.json").capability.printLabel;

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
    expect(paths, `${path} is in the sitemap`).toContain(path);
  }
});

for (const width of WIDTHS) {
  test.describe(`every page at ${width}px`, () => {
    test.use(atWidth(width));

    for (const path of paths) {
      test(`${path}: loads with no console error, no failed request, no CSP violation${width === 375 ? " and no horizontal scroll" : ""}`, async ({
        page,
        consoleErrors,
        failedRequests,
        cspViolations,
      }) => {
        // Every request of the page has ended, so that a failed one is on the list below.
        const response = await page.goto(path, { waitUntil: "networkidle" });
        expect(response?.status()).toBe(200);
        const policy = response?.headers()["content-security-policy"] ?? "";
        // The app's files and inline scripts by hash where a control needs the app, inline scripts alone by
        // hash where its controls carry their own, no script at all elsewhere (e2e/page-scripts.test.ts holds
        // each page to exactly its own).
        expect(policy).toMatch(/script-src ('none'|('self'|'sha256-[A-Za-z0-9+/=]+')( 'sha256-[A-Za-z0-9+/=]+')*);/);
        expect(policy).not.toMatch(/script-src[^;]*'unsafe-inline'/);
        expect(policy).toMatch(/frame-ancestors 'none'/);
        if (needingTheApp(await controlsNeedingScript(page)).length > 0) await expectHydrated(page);
        expect(await cspViolations()).toEqual([]);
        expect(consoleErrors).toEqual([]);
        expect(failedRequests).toEqual([]);
        if (width === 375) {
          const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
          expect(scrollWidth, `page is ${scrollWidth}px wide`).toBeLessThanOrEqual(375);
        }
      });
    }
  });
}

test.describe("with JavaScript disabled", () => {
  test.use({ ...atWidth(1280), javaScriptEnabled: false });

  for (const path of paths) {
    test(`${path}: the main content is in the HTML`, async ({ page, browser, baseURL }) => {
      // What the running page shows, from a context of its own with JavaScript on.
      const withScript = await browser.newContext({ ...atWidth(1280), baseURL });
      const running = await withScript.newPage();
      await running.goto(path, { waitUntil: "networkidle" });
      const expected = await running.locator("main").innerText();
      await withScript.close();

      await page.goto(path);
      // The head as served: one theme colour (the manifest plugin's copy is turned off), one canonical address.
      await expect(page.locator('meta[name="theme-color"]')).toHaveCount(1);
      await expect(page.locator('link[rel="canonical"]')).toHaveCount(1);
      const heading = await page.locator("main h1").innerText();
      const main = await page.locator("main").innerText();
      expect(heading.length).toBeGreaterThan(0);
      expect(main.length, `main has ${main.length} characters`).toBeGreaterThan(200);
      // Every line the running page shows is already there without scripts, except the carousel's
      // agencies past the first view: they are in the HTML, but hidden until the carousel can move; and
      // the Print button, hidden until it can print.
      const missing = expected
        .split("\n")
        .map((line) => line.trim())
        .filter((line) => line && !main.includes(line) && !agencyNames.includes(line) && line !== printLabel);
      expect(missing).toEqual([]);
    });
  }

  test("every form control is set in the page's font, not the browser's own", async ({ page }) => {
    // A control in the browser's 13.33px Arial costs Chromium a font lookup of its own while it lays out
    // the page (GlobalStyles.tsx); this names any control that would.
    for (const path of paths) {
      await page.goto(path);
      const offFont = await page.evaluate(() => {
        const body = getComputedStyle(document.body);
        return [...document.querySelectorAll("button, input, select, textarea")]
          .filter((control) => {
            const style = getComputedStyle(control);
            return style.fontFamily !== body.fontFamily || style.fontSize !== body.fontSize;
          })
          .map((control) => control.outerHTML.slice(0, 80));
      });
      expect(offFont, path).toEqual([]);
    }
  });
});
