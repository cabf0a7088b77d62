import { test } from "node:test";
import assert from "node:assert/strict";
import { openPage, waitForHydration } from "./support/browser";
import { useSiteAndBrowser } from "./support/suite";
import { readContent } from "./support/server";

const text = readContent<{ notFound: { text: string; homeLabel: string; consoleMessage: string } }>(
  "system-pages.json",
).notFound;
const consoleLine = (path: string) => text.consoleMessage.replace("{path}", path);

const suite = useSiteAndBrowser();

test("an unknown path answers 404 with the text, a Return to Home link and the path in the console", async () => {
  const { page, consoleErrors, close } = await openPage(suite.browser, suite.site.origin, 375);
  const response = await page.goto(suite.site.url("/products/jetpacks/"));
  assert.equal(response?.status(), 404);
  assert.equal((await page.locator("h1").innerText()).trim(), "404");
  assert.equal(await page.getByText(text.text, { exact: true }).count(), 1);
  const home = page.getByRole("link", { name: text.homeLabel });
  assert.equal(await home.getAttribute("href"), "/");
  await page.waitForFunction(() => document.readyState === "complete");
  await page.waitForTimeout(300);
  assert.ok(consoleErrors.includes(consoleLine("/products/jetpacks/")), `console: ${consoleErrors.join(" | ")}`);
  await home.click();
  await page.waitForURL(suite.site.url("/"));
  await close();
});

test("client-side navigation to an unknown path shows the 404 page and logs the path", async () => {
  const { page, consoleErrors, close } = await openPage(suite.browser, suite.site.origin, 1280);
  await page.goto(suite.site.url("/"));
  await waitForHydration(page);
  await page.evaluate(() => (window as unknown as { ___navigate: (to: string) => void }).___navigate("/no-such-page/"));
  await page.getByText(text.text, { exact: true }).waitFor();
  assert.equal(new URL(page.url()).pathname, "/no-such-page/");
  await page.waitForTimeout(300);
  assert.ok(consoleErrors.includes(consoleLine("/no-such-page/")), `console: ${consoleErrors.join(" | ")}`);
  await close();
});
