import type { Page } from "@playwright/test";
import { atWidth, expect, expectHydratedIfItRuns, test } from "./support/fixtures";
import { sitePaths } from "../testing/site-server";

const paths = [...sitePaths(), "/this-page-does-not-exist/"];

/**
 * The running page once it is still: hydrated where it runs the app, and 200 ms more for what the app renders right after (the
 * carousel learns its slides per view from matchMedia, starts react-slick and marks the hidden slides
 * inert), so that axe and the keyboard see the page a visitor sees rather than one between two renders.
 * No element or attribute says "nothing more will change", so there is nothing to assert on instead.
 */
const settle = async (page: Page) => {
  await expectHydratedIfItRuns(page);
  await page.waitForTimeout(200);
};

for (const width of [375, 1280]) {
  test.describe(`axe-core at ${width}px`, () => {
    test.use(atWidth(width));

    for (const path of paths) {
      test(`${path} has no accessibility violation`, async ({ page, axe }) => {
        await page.goto(path, { waitUntil: "networkidle" });
        await settle(page);
        expect(await axe()).toEqual([]);
      });
    }
  });
}

test.describe(() => {
  test.use(atWidth(375));

  test("axe-core finds no violation with the mobile menu open", async ({ page, axe }) => {
    await page.goto("/", { waitUntil: "networkidle" });
    await settle(page);
    await page.locator("header summary", { hasText: "Menu" }).click();
    expect(await axe()).toEqual([]);
  });
});

/** Tabs through the page and records each element that takes focus, with whether its focus is visible. */
const tabThrough = async (page: Page, limit: number) => {
  const stops: { key: string; visibleFocus: boolean; inViewport: boolean }[] = [];
  for (let index = 0; index < limit; index += 1) {
    await page.keyboard.press("Tab");
    const stop = await page.evaluate(() => {
      const element = document.activeElement as HTMLElement | null;
      if (!element || element === document.body) return null;
      const style = getComputedStyle(element);
      const rect = element.getBoundingClientRect();
      const ringed =
        (style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== "none";
      // Indexed within <body>: scripts the page adds to <head> as it loads code must not renumber its controls.
      const all = [...document.body.querySelectorAll("*")];
      return {
        key: `${all.indexOf(element)}:${element.tagName.toLowerCase()}:${element.getAttribute("href") ?? element.getAttribute("name") ?? element.getAttribute("aria-label") ?? element.textContent.trim().slice(0, 30)}`,
        visibleFocus: ringed,
        inViewport: rect.bottom > 0 && rect.top < window.innerHeight && rect.width > 0,
      };
    });
    if (!stop) break;
    if (stops.some((seen) => seen.key === stop.key)) break;
    stops.push(stop);
  }
  return stops;
};

// A control is named by its address, its form name or its label, before its text: the carousel region's text
// changes while it is tabbed through (focus brings in the slider, which puts a clone of the last agency first).
for (const width of [375, 1280]) {
  test.describe(() => {
    // Reduced motion makes scrolling to the focused element instant, so where it lands can be measured at once.
    const options = { ...atWidth(width), reducedMotion: "reduce" as const };
    test.use(options);

    test(`keyboard alone reaches every control of the home page in document order at ${width}px, with visible focus`, async ({
      page,
      browser,
      baseURL,
    }) => {
      await page.goto("/", { waitUntil: "networkidle" });
      await settle(page);

      await page.keyboard.press("Tab");
      const skip = await page.evaluate(() => ({
        text: document.activeElement?.textContent,
        href: document.activeElement?.getAttribute("href"),
      }));
      expect(skip).toEqual({ text: "Skip to main content", href: "#main-content" });
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.getBoundingClientRect().top ?? -1), { timeout: 2000 })
        .toBeGreaterThanOrEqual(0);
      await page.keyboard.press("Enter");
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("main-content");

      // Then from the top of a fresh page (a context of its own: no cache, no storage), through every control.
      const fresh = await browser.newContext({ ...options, baseURL });
      const tabbed = await fresh.newPage();
      await tabbed.goto("/", { waitUntil: "networkidle" });
      await settle(tabbed);
      const stops = await tabThrough(tabbed, 200);
      const controls = await tabbed.evaluate(() => {
        // Indexed within <body>, as above.
        const all = [...document.body.querySelectorAll("*")];
        return [
          ...document.querySelectorAll<HTMLElement>(
            "a[href], button, summary, input, select, textarea, [tabindex='0']",
          ),
        ]
          .filter(
            (element) =>
              !element.closest("[inert]") &&
              // The form's honeypot: hidden from people on purpose (axe checks nothing there is focusable).
              !element.closest("[aria-hidden='true']") &&
              !(element as HTMLButtonElement).disabled &&
              element.getClientRects().length > 0 &&
              getComputedStyle(element).visibility !== "hidden",
          )
          .map(
            (element) =>
              `${all.indexOf(element)}:${element.tagName.toLowerCase()}:${element.getAttribute("href") ?? element.getAttribute("name") ?? element.getAttribute("aria-label") ?? element.textContent.trim().slice(0, 30)}`,
          );
      });
      expect(
        stops.map((stop) => stop.key),
        "the tab order is the document order and reaches every visible control",
      ).toEqual(controls);
      const unringed = stops.filter((stop) => !stop.visibleFocus).map((stop) => stop.key);
      expect(unringed, "every focused control shows a focus indicator").toEqual([]);
      expect(
        // The skip link's own appearance on focus is checked above.
        stops.filter((stop) => !stop.inViewport && !stop.key.endsWith(":#main-content")).map((stop) => stop.key),
        "focus scrolls into view",
      ).toEqual([]);
      await fresh.close();
    });
  });
}
