import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { openPage, waitForHydration } from "./support/browser";
import { useSiteAndBrowser } from "./support/suite";
import { axeViolations } from "./support/axe";
import { sitePaths } from "./support/server";

const paths = [...sitePaths(), "/this-page-does-not-exist/"];

const suite = useSiteAndBrowser();

const settle = (page: Page) => waitForHydration(page).then(() => page.waitForTimeout(200));

for (const width of [375, 1280]) {
  describe(`axe-core at ${width}px`, () => {
    for (const path of paths) {
      test(`${path} has no accessibility violation`, async () => {
        const { page, close } = await openPage(suite.browser, suite.site.origin, width);
        await page.goto(suite.site.url(path), { waitUntil: "networkidle" });
        await settle(page);
        assert.deepEqual(await axeViolations(page), []);
        await close();
      });
    }
  });
}

test("axe-core finds no violation with the mobile menu open", async () => {
  const { page, close } = await openPage(suite.browser, suite.site.origin, 375);
  await page.goto(suite.site.url("/"), { waitUntil: "networkidle" });
  await settle(page);
  await page.getByRole("button", { name: "Menu" }).click();
  assert.deepEqual(await axeViolations(page), []);
  await close();
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
      const all = [...document.querySelectorAll("*")];
      return {
        key: `${all.indexOf(element)}:${element.tagName.toLowerCase()}:${element.getAttribute("href") ?? element.getAttribute("name") ?? element.textContent?.trim().slice(0, 30)}`,
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

for (const width of [375, 1280]) {
  test(`keyboard alone reaches every control of the home page in document order at ${width}px, with visible focus`, async () => {
    // Reduced motion makes scrolling to the focused element instant, so where it lands can be measured at once.
    const { page, close } = await openPage(suite.browser, suite.site.origin, width, { reducedMotion: "reduce" });
    await page.goto(suite.site.url("/"), { waitUntil: "networkidle" });
    await settle(page);

    await page.keyboard.press("Tab");
    const skip = await page.evaluate(() => ({
      text: document.activeElement?.textContent,
      href: document.activeElement?.getAttribute("href"),
    }));
    assert.deepEqual(skip, { text: "Skip to main content", href: "#main-content" });
    await page.waitForFunction(() => (document.activeElement?.getBoundingClientRect().top ?? -1) >= 0, undefined, {
      timeout: 2000,
    });
    await page.keyboard.press("Enter");
    assert.equal(await page.evaluate(() => document.activeElement?.id), "main-content");

    await close();

    // Then from the top of a fresh page, through every control.
    const fresh = await openPage(suite.browser, suite.site.origin, width, { reducedMotion: "reduce" });
    const { page: tabbed } = fresh;
    await tabbed.goto(suite.site.url("/"), { waitUntil: "networkidle" });
    await settle(tabbed);
    const stops = await tabThrough(tabbed, 200);
    const controls = await tabbed.evaluate(() => {
      const all = [...document.querySelectorAll("*")];
      return [...document.querySelectorAll<HTMLElement>("a[href], button, input, select, textarea, [tabindex='0']")]
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
            `${all.indexOf(element)}:${element.tagName.toLowerCase()}:${element.getAttribute("href") ?? element.getAttribute("name") ?? element.textContent?.trim().slice(0, 30)}`,
        );
    });
    assert.deepEqual(
      stops.map((stop) => stop.key),
      controls,
      "the tab order is the document order and reaches every visible control",
    );
    const unringed = stops.filter((stop) => !stop.visibleFocus).map((stop) => stop.key);
    assert.deepEqual(unringed, [], "every focused control shows a focus indicator");
    assert.deepEqual(
      // The skip link's own appearance on focus is checked above.
      stops.filter((stop) => !stop.inViewport && !stop.key.endsWith(":#main-content")).map((stop) => stop.key),
      [],
      "focus scrolls into view",
    );
    await fresh.close();
  });
}
