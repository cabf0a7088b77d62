import { test } from "node:test";
import assert from "node:assert/strict";
import { openPage, WIDTHS } from "./support/browser";
import { useSiteAndBrowser } from "./support/suite";

/** The gate: cumulative layout shift while the home page loads must stay at or below this. */
const MAX_CLS = 0.01;

const suite = useSiteAndBrowser();

// The home page, and the quote page opened from a product page: the form's category is chosen after hydration.
const pages = ["/", "/contact/quote/?category=tactical"];

for (const pathname of pages)
  for (const width of WIDTHS) {
    test(`${pathname} loads without layout shift at ${width}px`, async () => {
      const { page, close } = await openPage(suite.browser, suite.site.origin, width);
      await page.addInitScript(() => {
        const record = window as unknown as { __cls: number };
        record.__cls = 0;
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[]) {
            if (!entry.hadRecentInput) record.__cls += entry.value;
          }
        }).observe({ type: "layout-shift", buffered: true });
      });
      await page.goto(suite.site.url(pathname), { waitUntil: "networkidle" });
      if (pathname === "/") await page.waitForSelector(".slick-initialized");
      await page.waitForTimeout(1000);
      const cls = await page.evaluate(() => (window as unknown as { __cls: number }).__cls);
      console.log(`CLS of ${pathname} at ${width}px: ${cls.toFixed(4)}`);
      assert.ok(cls <= MAX_CLS, `CLS ${cls.toFixed(4)} is above ${MAX_CLS}`);
      await close();
    });
  }
