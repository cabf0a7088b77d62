import { atWidth, expect, test } from "./support/fixtures";

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
