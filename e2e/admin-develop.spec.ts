import fs from "node:fs";
import path from "node:path";
import { addSafetyCategory, openEditingScreen, openSiteFile, publish, textField, writeLogo } from "./admin-support";
import { expect, expectHydrated, test } from "./support/fixtures";
import { contentPageRoute, fixedRoutes, productRoute } from "../src/content-contract/validate";

// `npm run edit` as an editor uses it (e2e/admin-develop.config.ts starts it in a copy of the project):
// the develop server's pages run without an error, and a save in the editing screen shows on them at once.

const projectDir = process.env.E2E_DEVELOP_DIR ?? "";
const decapPort = Number(process.env.E2E_DEVELOP_DECAP_PORT);

const slugsIn = (folder: string) =>
  fs
    .readdirSync(path.join(projectDir, "content", folder))
    .map(
      (file) =>
        (JSON.parse(fs.readFileSync(path.join(projectDir, "content", folder, file), "utf8")) as { slug: string }).slug,
    );

const sitePages = [
  ...fixedRoutes(path.join(projectDir, "src", "pages")),
  ...slugsIn("products").map(productRoute),
  ...slugsIn("pages").map(contentPageRoute),
].sort();

// One develop server for all: later tests see what earlier ones saved, as an editor's session would.
test.describe.configure({ mode: "serial" });

for (const pagePath of sitePages) {
  test(`develop serves ${pagePath} with no console error and no error overlay`, async ({ page, consoleErrors }) => {
    const response = await page.goto(pagePath, { waitUntil: "networkidle" });
    expect(response?.status()).toBe(200);
    await expectHydrated(page);
    // Gatsby's overlay for runtime and build errors: an element of its own around a shadow root.
    await expect(page.locator("gatsby-fast-refresh")).toHaveCount(0);
    await expect(page.locator("[data-gatsby-overlay]")).toHaveCount(0);
    expect(consoleErrors).toEqual([]);
  });
}

test("a headline published in the editing screen shows on the open home page at once", async ({ page, context }) => {
  const site = await context.newPage();
  await site.goto("/");
  await expectHydrated(site);

  const screen = await openEditingScreen(page, decapPort);
  // On an editor's machine, and only there, the screen's policy lets it reach decap-server.
  expect(screen?.headers()["content-security-policy"]).toMatch(/connect-src [^;]*http:\/\/localhost:8081/);
  await openSiteFile(page, "Home page");
  await textField(page, "Headline").fill("Edited on the editing screen");
  await publish(page);

  // The editor's loop: the open page shows a save within 10 s of Publish now, on a loaded machine too.
  await expect(site.getByRole("heading", { level: 1 })).toHaveText("Edited on the editing screen", {
    timeout: 10_000,
  });
  expect(fs.readFileSync(path.join(projectDir, "content", "home.json"), "utf8")).toContain(
    '"headline": "Edited on the editing screen",',
  );
});

test("an agency logo uploaded in the editing screen shows on the clients page", async ({ page }) => {
  await openEditingScreen(page, decapPort);
  await openSiteFile(page, "Agencies served");
  await page.getByRole("button", { name: /^Add agency/ }).click();
  await textField(page, "Name").fill("U.S. Department of Energy");
  await textField(page, "Alt").fill("DOE seal");
  await page.getByRole("button", { name: "Choose an image" }).last().click();
  await page.locator('input[type="file"]').setInputFiles(writeLogo("energy-seal.svg"));
  await page.getByRole("button", { name: "Choose selected" }).click();
  await page
    .getByRole("switch", { name: /Show logo/ })
    .last()
    .click();
  await publish(page);
  await expect.poll(() => fs.existsSync(path.join(projectDir, "content/images/agencies/energy-seal.svg"))).toBe(true);

  await expect(async () => {
    await page.goto("/clients/");
    const logo = page.getByRole("img", { name: "DOE seal" });
    await expect(logo).toHaveAttribute("src", /energy-seal\.svg$/, { timeout: 2_000 });
    expect(await logo.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0)).toBe(true);
  }).toPass({ timeout: 60_000 });
});

test("a product category added in the editing screen gets its page, linked from /products/", async ({ page }) => {
  await openEditingScreen(page, decapPort);
  await addSafetyCategory(page);
  await expect.poll(() => fs.existsSync(path.join(projectDir, "content/products/safety-equipment.json"))).toBe(true);

  // The develop server picks the new file up within a few seconds; each try loads the list afresh.
  await expect(async () => {
    await page.goto("/products/");
    await page.getByRole("link", { name: "View Safety Equipment" }).click({ timeout: 3_000 });
    await expect(page).toHaveURL(/\/products\/safety-equipment\/$/, { timeout: 5_000 });
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Safety Equipment", { timeout: 5_000 });
  }).toPass({ timeout: 60_000 });
});
