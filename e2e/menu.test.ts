import type { Page, Route } from "@playwright/test";
import { atWidth, expect, expectHydrated, test } from "./support/fixtures";
import { readContent, sitePaths } from "../testing/site-server";

// The header's menu at a phone's width: as served, a <details> disclosure that the browser opens and closes
// itself, so that it works without JavaScript and before the app has started; where the app runs, a real
// button in its place (NavBar.tsx).
const navigation = readContent("navigation.json");
const headerLinks = [...navigation.main, navigation.quoteAction];

/** The served disclosure's summary: the control of a page without script, and of any page until its app runs. */
const menuSummary = (page: Page) => page.locator("header summary", { hasText: navigation.menuLabel });
/** The button the app puts in its place, found by its role as assistive technology finds it. */
const menuButton = (page: Page) => page.getByRole("button", { name: navigation.menuLabel });
const menu = (page: Page) => page.getByRole("navigation", { name: navigation.primaryLabel });

test.use(atWidth(375));

test.describe("with JavaScript off", () => {
  test.use({ javaScriptEnabled: false });

  for (const path of sitePaths()) {
    test(`${path}: the menu opens and closes, and every header link is reached and followed`, async ({ page }) => {
      await page.goto(path);
      await expect(menu(page)).toBeHidden();
      await menuSummary(page).click();
      await expect(menu(page)).toBeVisible();
      for (const { label } of headerLinks) await expect(menu(page).getByRole("link", { name: label })).toBeVisible();
      await menuSummary(page).click();
      await expect(menu(page)).toBeHidden();

      for (const link of headerLinks) {
        await page.goto(path);
        await expect(menu(page)).toBeHidden();
        // Opened by keyboard as well: the summary takes focus and Enter opens it; then the link is followed.
        await menuSummary(page).focus();
        await page.keyboard.press("Enter");
        await expect(menu(page)).toBeVisible();
        await menu(page).getByRole("link", { name: link.label }).click();
        await expect(page).toHaveURL(link.to);
        await expect(page.locator("main h1")).toBeVisible();
      }
    });
  }
});

test.describe("with JavaScript on", () => {
  /** Holds the app's script files until released, as a slow phone does before the app starts. */
  const holdAppScripts = async (page: Page) => {
    const held: Route[] = [];
    let release: (() => void) | undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(
      (url) => url.pathname.endsWith(".js"),
      async (route) => {
        held.push(route);
        await released;
        await route.continue();
      },
    );
    return { held, release: () => release?.() };
  };

  test("the menu works as soon as the page is parsed, before the app has started", async ({ page, consoleErrors }) => {
    const scripts = await holdAppScripts(page);
    await page.goto("/", { waitUntil: "domcontentloaded" });
    // The app's scripts were asked for and are held: the app has not started.
    await expect.poll(() => scripts.held.length).toBeGreaterThan(0);
    await expect(page.locator("html[data-hydrated]")).not.toBeAttached();

    await menuSummary(page).click();
    await expect(menu(page)).toBeVisible();
    await menuSummary(page).click();
    await expect(menu(page)).toBeHidden();
    await menuSummary(page).click();
    await expect(menuSummary(page)).toBeFocused();
    // Before the app, no button: the summary is a disclosure triangle to assistive technology.
    await expect(menuButton(page)).toHaveCount(0);

    // Once the app runs, a button takes the summary's place, open as the visitor left the menu and with its
    // focus; what it adds: Escape closes the menu and gives focus back to its button.
    scripts.release();
    await expectHydrated(page);
    await expect(menuSummary(page)).toHaveCount(0);
    await expect(menuButton(page)).toHaveAttribute("aria-expanded", "true");
    await expect(menuButton(page)).toHaveAttribute("aria-controls", (await menu(page).getAttribute("id"))!);
    await expect(menuButton(page)).toBeFocused();
    await expect(menu(page)).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(menu(page)).toBeHidden();
    await expect(menuButton(page)).toHaveAttribute("aria-expanded", "false");
    await expect(menuButton(page)).toBeFocused();
    // A click outside closes it, and following a link does.
    await menuButton(page).click();
    // Below the open menu's panel, on the page.
    await page.mouse.click(10, 890);
    await expect(menu(page)).toBeHidden();
    await menuButton(page).click();
    await menu(page).getByRole("link", { name: navigation.quoteAction.label }).click();
    await expect(page).toHaveURL(navigation.quoteAction.to);
    await expect(menu(page)).toBeHidden();
    expect(consoleErrors).toEqual([]);
  });

  test("the button takes the summary's place where it stood, at its size, with no layout shift", async ({ page }) => {
    await page.addInitScript(() => {
      const shifts: number[] = [];
      Object.assign(window, { shifts });
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as (PerformanceEntry & { value: number })[]) shifts.push(entry.value);
      }).observe({ type: "layout-shift", buffered: true });
    });
    const scripts = await holdAppScripts(page);
    await page.goto("/", { waitUntil: "domcontentloaded" });
    await expect.poll(() => scripts.held.length).toBeGreaterThan(0);
    const served = await menuSummary(page).boundingBox();
    const servedBar = await page.getByRole("banner").boundingBox();
    scripts.release();
    await expectHydrated(page);
    await expect(menuButton(page)).toBeVisible();
    expect(await menuButton(page).boundingBox()).toEqual(served);
    expect(await page.getByRole("banner").boundingBox()).toEqual(servedBar);
    expect(await page.evaluate(() => (window as unknown as { shifts: number[] }).shifts)).toEqual([]);
  });
});
