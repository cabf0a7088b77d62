import type { Request } from "@playwright/test";
import { pageScripts, policyDirectives } from "../build/security-headers";
import { atWidth, expect, expectHydrated, test } from "./support/fixtures";
import { controlsNeedingScript, countPrints, needingTheApp, printsOf, runnableScriptsIn } from "./support/page-scripts";
import { sitePaths } from "../testing/site-server";

// Every built page ships the script it needs and only that: none where nothing on it works by script, only
// their own few bytes where its controls carry them (Print), the app where something needs it; and its
// Content-Security-Policy allows exactly what it ships.
test.use(atWidth(375));

for (const path of sitePaths()) {
  test(`${path}: loads script only if a control on it needs one, and its policy allows exactly that`, async ({
    page,
    consoleErrors,
    cspViolations,
  }) => {
    await countPrints(page);
    const scriptRequests: Request[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "script") scriptRequests.push(request);
    });
    const response = await page.goto(path, { waitUntil: "networkidle" });
    expect(response?.status()).toBe(200);
    const html = (await response?.text()) ?? "";
    const controls = await controlsNeedingScript(page);
    const needingApp = needingTheApp(controls);
    const scriptBytes = (
      await Promise.all(scriptRequests.map(async (request) => (await request.response())?.body()))
    ).reduce((sum, body) => sum + (body?.length ?? 0), 0);
    const scriptSources = policyDirectives(response?.headers()["content-security-policy"] ?? "").get("script-src");
    const { inlineHashes, files } = pageScripts(html);

    if (needingApp.length === 0 && controls.length > 0) {
      // Controls that carry their own script: no script file, the policy allows those inline scripts alone,
      // and each control works (a Print button shown and printing once on a click, as no app runs).
      expect(scriptRequests.map((request) => request.url())).toEqual([]);
      expect(files).toEqual([]);
      expect(inlineHashes.length).toBeGreaterThan(0);
      expect(scriptSources).toEqual(inlineHashes.map((hash) => `'${hash}'`));
      expect(await page.locator("template#gatsby-app-scripts").count()).toBe(0);
      const buttons = page.locator('button[type="button"]');
      for (let index = 0; index < (await buttons.count()); index += 1) await buttons.nth(index).click();
      expect(await printsOf(page)).toBe(controls.length);
    } else if (controls.length === 0) {
      expect(scriptRequests.map((request) => request.url())).toEqual([]);
      expect(scriptBytes).toBe(0);
      expect(await runnableScriptsIn(page)).toBe(0);
      // policyDirectives reads 'none' as no source at all.
      expect(scriptSources).toEqual([]);
      expect(response?.headers()["content-security-policy"]).toMatch(/script-src 'none';/);
    } else {
      expect(scriptBytes, `${path} has ${needingApp.join(", ")}`).toBeGreaterThan(0);
      expect(files.length).toBeGreaterThan(0);
      expect(scriptSources).toEqual(["'self'", ...inlineHashes.map((hash) => `'${hash}'`)]);
      await expectHydrated(page);
    }
    // Whatever the page ships, the policy lets it run, and the page runs cleanly.
    expect(await cspViolations()).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
}
