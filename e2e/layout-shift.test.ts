import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { launchBrowser, openPage, WIDTHS } from "./support/browser";
import { startSite, type RunningSite } from "./support/server";

/** The gate: cumulative layout shift while the home page loads must stay at or below this. */
const MAX_CLS = 0.01;

let site: RunningSite;
let browser: Browser;
before(async () => {
  [site, browser] = await Promise.all([startSite(), launchBrowser()]);
});
after(async () => {
  await browser?.close();
  await site?.stop();
});

for (const width of WIDTHS) {
  test(`the home page loads without layout shift at ${width}px`, async () => {
    const { page, close } = await openPage(browser, site.origin, width);
    await page.addInitScript(() => {
      const record = window as unknown as { __cls: number };
      record.__cls = 0;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[]) {
          if (!entry.hadRecentInput) record.__cls += entry.value;
        }
      }).observe({ type: "layout-shift", buffered: true });
    });
    await page.goto(site.url("/"), { waitUntil: "networkidle" });
    await page.waitForSelector(".slick-initialized");
    await page.waitForTimeout(1000);
    const cls = await page.evaluate(() => (window as unknown as { __cls: number }).__cls);
    console.log(`CLS at ${width}px: ${cls.toFixed(4)}`);
    assert.ok(cls <= MAX_CLS, `CLS ${cls.toFixed(4)} is above ${MAX_CLS}`);
    await close();
  });
}
