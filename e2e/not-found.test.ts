import { atWidth, expect, expectHydrated, test } from "./support/fixtures";
import { readContent } from "../testing/site-server";

const text = readContent("system-pages.json").notFound;
const consoleLine = (path: string) => text.consoleMessage.replace("{path}", path);

test.describe(() => {
  test.use(atWidth(375));

  test("an unknown path answers 404 with the text, a Return to Home link and the path in the console", async ({
    page,
    consoleErrors,
  }) => {
    const response = await page.goto("/products/jetpacks/");
    expect(response?.status()).toBe(404);
    await expect(page.locator("h1")).toHaveText("404");
    await expect(page.getByText(text.text, { exact: true })).toHaveCount(1);
    const home = page.getByRole("link", { name: text.homeLabel });
    await expect(home).toHaveAttribute("href", "/");
    await expect.poll(() => consoleErrors).toContain(consoleLine("/products/jetpacks/"));
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
    await page.goto("/");
    await expectHydrated(page);
    await page.evaluate(() =>
      (window as unknown as { ___navigate: (to: string) => void }).___navigate("/no-such-page/"),
    );
    await expect(page.getByText(text.text, { exact: true })).toBeVisible();
    expect(new URL(page.url()).pathname).toBe("/no-such-page/");
    await expect.poll(() => consoleErrors).toContain(consoleLine("/no-such-page/"));
  });
});
