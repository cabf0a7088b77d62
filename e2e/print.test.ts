import { test } from "node:test";
import assert from "node:assert/strict";
import { openPage } from "./support/browser";
import { useSiteAndBrowser } from "./support/suite";

const suite = useSiteAndBrowser();

test("the capability statement prints on one US Letter page, without the site's navigation and footer", async () => {
  const { page, close } = await openPage(suite.browser, suite.site.origin, 1280);
  await page.goto(suite.site.url("/capability-statement/"), { waitUntil: "networkidle" });
  await page.emulateMedia({ media: "print" });
  assert.equal(await page.locator("body > div header").first().isVisible(), false);
  assert.equal(await page.locator("footer").isVisible(), false);
  assert.equal(await page.getByRole("button", { name: "Print / Save as PDF" }).isVisible(), false);
  const pdf = await page.pdf({ format: "Letter", preferCSSPageSize: true });
  const pages = pdf.toString("latin1").match(/\/Type\s*\/Page[^s]/g) ?? [];
  assert.equal(pages.length, 1, `printed on ${pages.length} pages`);
  await close();
});
