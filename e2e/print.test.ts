import { atWidth, expect, expectHydrated, test } from "./support/fixtures";
import { countPrints, printsOf } from "./support/page-scripts";
import { readContent } from "../testing/site-server";

const sheet = readContent("certifications.json").capability;

test.use(atWidth(1280));

test("the capability statement prints on one US Letter page, without the site's navigation and footer", async ({
  page,
}) => {
  await page.goto("/capability-statement/", { waitUntil: "networkidle" });
  await page.emulateMedia({ media: "print" });
  await expect(page.locator("body > div header").first()).toBeHidden();
  await expect(page.locator("footer")).toBeHidden();
  await expect(page.getByRole("button", { name: "Print / Save as PDF" })).toBeHidden();
  const pdf = await page.pdf({ format: "Letter", preferCSSPageSize: true });
  const pages = pdf.toString("latin1").match(/\/Type\s*\/Page[^s]/g) ?? [];
  expect(pages.length, `printed on ${pages.length} pages`).toBe(1);
});

test("the Print button prints with no app on its page, and once where the app renders the page itself", async ({
  page,
  consoleErrors,
  cspViolations,
}) => {
  await countPrints(page);
  const print = page.getByRole("button", { name: sheet.printLabel });

  // As served: the button's own inline script, run as the page is parsed; no app.
  await page.goto("/capability-statement/", { waitUntil: "networkidle" });
  expect(await page.locator("template#gatsby-app-scripts, script[src]").count()).toBe(0);
  await expect(print).toBeVisible();
  await print.click();
  expect(await printsOf(page)).toBe(1);

  // Reached by a link from a page that runs the app: the app renders the page, and the component makes
  // the button work (the inline script, inserted as markup, does not run), once.
  await page.goto("/contact/", { waitUntil: "networkidle" });
  await expectHydrated(page);
  await page.evaluate(() => {
    (window as unknown as { samePage: boolean }).samePage = true;
  });
  await page.locator("footer").getByRole("link", { name: "Capability Statement" }).click();
  await expect(page.locator("main h1")).toHaveText(sheet.heading);
  expect(await page.evaluate(() => (window as unknown as { samePage?: boolean }).samePage)).toBe(true);
  await expect(print).toBeVisible();
  await print.click();
  expect(await printsOf(page)).toBe(1);
  expect(await cspViolations()).toEqual([]);
  expect(consoleErrors).toEqual([]);
});
