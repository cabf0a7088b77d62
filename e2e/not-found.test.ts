import type { Page } from "@playwright/test";
import { atWidth, expect, expectHydrated, test } from "./support/fixtures";
import { readContent } from "../testing/site-server";

const text = readContent("system-pages.json").notFound;
const consoleLine = (path: string) => text.consoleMessage.replace("{path}", path);

/** What the page writes to the console log (console.log and console.info), from now on. */
const consoleLog = (page: Page) => {
  const lines: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "log" || message.type() === "info") lines.push(message.text());
  });
  return lines;
};

test.describe(() => {
  test.use(atWidth(375));

  test("an unknown path answers 404 with the text, a Return to Home link and the path in the console", async ({
    page,
    consoleErrors,
  }) => {
    const logged = consoleLog(page);
    const response = await page.goto("/products/jetpacks/");
    expect(response?.status()).toBe(404);
    // Out of search engines, with nothing that says otherwise.
    await expect(page.locator('meta[name="robots"]')).toHaveAttribute("content", "noindex");
    await expect(page.locator('link[rel="canonical"], meta[property="og:url"]')).toHaveCount(0);
    await expect(page.locator("h1")).toHaveText("404");
    await expect(page.getByText(text.text, { exact: true })).toHaveCount(1);
    const home = page.getByRole("link", { name: text.homeLabel });
    await expect(home).toHaveAttribute("href", "/");
    await expect.poll(() => logged).toContain(consoleLine("/products/jetpacks/"));
    expect(consoleErrors).not.toContain(consoleLine("/products/jetpacks/"));
    await home.click();
    await expect(page).toHaveURL("/");
  });
});

test.describe(() => {
  test.use(atWidth(1280));

  test("client-side navigation to an unknown path shows the 404 page and logs the path", async ({
    page,
    consoleErrors,
  }) => {
    const logged = consoleLog(page);
    await page.goto("/");
    await expectHydrated(page);
    await page.evaluate(() =>
      (window as unknown as { ___navigate: (to: string) => void }).___navigate("/no-such-page/"),
    );
    await expect(page.getByText(text.text, { exact: true })).toBeVisible();
    expect(new URL(page.url()).pathname).toBe("/no-such-page/");
    await expect.poll(() => logged).toContain(consoleLine("/no-such-page/"));
    expect(consoleErrors).not.toContain(consoleLine("/no-such-page/"));
  });
});
