import fs from "node:fs";
import path from "node:path";
import {
  addSafetyCategory,
  changedLines,
  checkContent,
  openEditingScreen,
  openSiteFile,
  publish,
  recordSaves,
  retype,
  savedJson,
  textField,
  writeLogo,
  useLocalBackend,
} from "./admin-support";
import { expect, test } from "./support/fixtures";
import { sitePaths } from "../testing/site-server";
import { adminPolicy } from "../build/admin-headers";

// The editing screen (/admin/) as the production build serves it, saving through decap-server on a
// temporary copy of content/ (docs/development.md, "Editing content on your own machine"): what the screen writes, field by field. The
// build's live policy names no http: source, so it refuses decap-server (http://localhost:8081) by design;
// these tests set it aside (bypassCSP) rather than serve the page some other way: a page Playwright
// fulfils itself loses its loopback address space, and Chromium's local network access rules then
// refuse decap-server too. The policy is tested where it applies: on the live path, sign-in to publish
// under the build's header (e2e/admin-github.test.ts), and as written (__tests__/admin-headers.test.ts).
// The develop server's side of it, a save showing on the site at once, is e2e/admin-develop.spec.ts.

const backend = useLocalBackend();

test("/admin/ opens the editing screen under its own live policy, out of search engines, with every collection", async ({
  page,
  consoleErrors,
}) => {
  const response = await openEditingScreen(page, backend().port);
  expect(response?.status()).toBe(200);
  expect(response?.headers()["content-security-policy"]).toBe(adminPolicy());
  expect(response?.headers()["content-security-policy"]).not.toContain("http:");
  await expect(page.locator('meta[name="robots"]')).toHaveAttribute("content", "noindex, nofollow");
  for (const collection of ["Site content", "Product categories", "Pages"]) {
    await expect(page.getByRole("link", { name: collection, exact: true })).toBeVisible();
  }
  await openSiteFile(page, "Home page");
  await expect(textField(page, "Headline")).toHaveValue(/\S/);
  expect(consoleErrors).toEqual([]);
});

test("the site's pages never load the editing screen, and the sitemap leaves it out", async ({ page }) => {
  const requested: string[] = [];
  page.on("request", (request) => requested.push(new URL(request.url()).pathname));
  for (const pagePath of ["/", "/products/", "/contact/"]) await page.goto(pagePath, { waitUntil: "networkidle" });
  expect(requested.filter((pathname) => pathname.startsWith("/admin/"))).toEqual([]);
  expect(sitePaths().filter((pathname) => pathname.startsWith("/admin"))).toEqual([]);
});

test("a new hero headline, published, changes exactly that line of content/home.json", async ({ page }) => {
  const before = backend().read("content/home.json");
  await openEditingScreen(page, backend().port);
  await openSiteFile(page, "Home page");
  await textField(page, "Headline").fill("Trusted Supplier to Government and Military");
  await publish(page);

  const after = await savedJson(path.join(backend().repoDir, "content/home.json"), before);
  expect(changedLines(before, after)).toEqual(['    "headline": "Trusted Supplier to Government and Military",']);
  expect(checkContent(path.join(backend().repoDir, "content"))).toMatch(/Content check passed/);
});

test("an invalid company email is refused with the contract's message, and no file changes", async ({ page }) => {
  const before = backend().read("content/company.json");
  const saves = recordSaves(page);
  await openEditingScreen(page, backend().port);
  await openSiteFile(page, "Company details");
  await textField(page, "Email").fill("sales at cardinalridgesupply");
  await publish(page);

  await expect(page.getByText("Email didn't match the pattern: must be an email address.")).toBeVisible();
  expect(saves).toEqual([]);
  expect(backend().read("content/company.json")).toBe(before);

  // The same steps with a valid address do save: the refusal above was the contract's, not a broken save.
  await retype(textField(page, "Email"), "orders@cardinalridgesupply.com");
  await publish(page);
  const after = await savedJson(path.join(backend().repoDir, "content/company.json"), before);
  expect(saves).toHaveLength(1);
  const company = JSON.parse(before) as { contact: object };
  expect(JSON.parse(after)).toEqual({
    ...company,
    contact: { ...company.contact, email: "orders@cardinalridgesupply.com" },
  });
});

test("an uploaded agency logo lands under content/images/agencies/ and the JSON keeps its relative path", async ({
  page,
}) => {
  const logo = writeLogo("energy-seal.svg");
  const agenciesBefore = backend().read("content/agencies.json");
  await openEditingScreen(page, backend().port);
  await openSiteFile(page, "Agencies served");
  await page.getByRole("button", { name: /^Add agency/ }).click();
  await textField(page, "Name").fill("U.S. Department of Energy");
  await textField(page, "Alt").fill("DOE seal");
  await page.getByRole("button", { name: "Choose an image" }).last().click();
  await page.locator('input[type="file"]').setInputFiles(logo);
  await page.getByRole("button", { name: "Choose selected" }).click();
  await publish(page);

  // Polled whole: like the JSON files (savedJson), the image is emptied before it is written.
  const saved = path.join(backend().repoDir, "content/images/agencies/energy-seal.svg");
  await expect
    .poll(() => fs.existsSync(saved) && fs.readFileSync(saved).equals(fs.readFileSync(logo)), {
      message: "the uploaded logo is saved byte for byte",
    })
    .toBe(true);
  const agencies = JSON.parse(
    await savedJson(path.join(backend().repoDir, "content/agencies.json"), agenciesBefore),
  ) as {
    agencies: Record<string, unknown>[];
  };
  expect(agencies.agencies.at(-1)).toEqual({
    name: "U.S. Department of Energy",
    logo: "images/agencies/energy-seal.svg",
    alt: "DOE seal",
    showLogo: false,
  });
  expect(checkContent(path.join(backend().repoDir, "content"))).toMatch(/Content check passed/);
});

test("a new product category is saved as content/products/<slug>.json, keys in the contract's order", async ({
  page,
}) => {
  await openEditingScreen(page, backend().port);
  await addSafetyCategory(page);

  const text = await savedJson(path.join(backend().repoDir, "content/products/safety-equipment.json"));
  expect(Object.keys(JSON.parse(text) as object)).toEqual([
    "slug",
    "order",
    "title",
    "shortTitle",
    "icon",
    "summary",
    "seo",
    "overview",
    "image",
    "imageAlt",
    "lines",
    "cta",
  ]);
  expect(text).toContain('\n  "image": "images/products/tactical.jpg",\n  "imageAlt": "",\n');
  expect(text).toContain('"compliance": ["taa"]');
  expect(text.endsWith("}\n")).toBe(true);
  expect(checkContent(path.join(backend().repoDir, "content"))).toMatch(/Content check passed/);
});
