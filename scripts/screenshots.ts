// Screenshots, for looking at a change and for the editors' guide.
// Usage: npm run screenshots -- [baseUrl] [outDir] [path...]
//   Full-page screenshots of a running site at phone, tablet and desktop widths.
// Usage: npm run screenshots:editor
//   The editing screen at each step CONTENT.md describes, taken from the real screen (no build needed): the
//   screen as the build writes it (src/admin/editing-screen.ts), served on loopback, with decap-server, as
//   `npm run edit` runs it, on a temporary copy of content/; written to docs/images/editor-*.png.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fastifyStatic from "@fastify/static";
import Fastify from "fastify";
import { chromium, type Page } from "playwright-core";
import { openEditingScreen, openSiteFile, publish, startLocalBackend, textField } from "../e2e/admin-support";
import { chromeFlags, chromePath, launchBrowser, openPage, WIDTHS } from "../testing/browser";
import { freeLoopbackPort } from "../server/free-port";
import { writeEditingScreen } from "../src/admin/editing-screen";

const siteScreenshots = async (args: readonly string[]) => {
  const [baseUrl = "http://localhost:9000", outDir = "screenshots", ...paths] = args;
  fs.mkdirSync(outDir, { recursive: true });
  const browser = await launchBrowser();
  for (const pathname of paths.length ? paths : ["/"]) {
    for (const width of WIDTHS) {
      const { page, consoleErrors, close } = await openPage(browser, new URL(baseUrl).origin, width);
      await page.goto(new URL(pathname, baseUrl).href, { waitUntil: "networkidle" });
      const name = pathname.replace(/[^a-z0-9]+/gi, "-").replace(/^-|-$/g, "") || "home";
      const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      await page.screenshot({ path: `${outDir}/${name}-${width}.png`, fullPage: true });
      console.log(
        `${outDir}/${name}-${width}.png: page ${scrollWidth}px wide${consoleErrors.length ? `, console errors: ${consoleErrors.join(" | ")}` : ""}`,
      );
      await close();
    }
  }
  await browser.close();
};

const EDITOR_IMAGES = path.resolve(__dirname, "..", "docs", "images");
/** A name the browser resolves to loopback: served from there, the screen behaves as on the live site (admin.js). */
const LIVE_HOST = "www.cardinal-site.example";

/** The pictures of docs/images/editor-*.png, each step as an editor takes it. */
const takeEditorShots = async (page: Page, port: number, backendPort: number) => {
  const shot = async (name: string) => {
    // Decap animates its menus and notices in; a picture mid-animation would be blurred.
    await page.waitForTimeout(400);
    const file = path.join(EDITOR_IMAGES, `editor-${name}.png`);
    await page.screenshot({ path: file });
    console.log(path.relative(process.cwd(), file));
  };
  // 1. On the live site: the sign-in.
  await page.goto(`http://${LIVE_HOST}:${port}/admin/`);
  await page.getByRole("button", { name: /Login with GitHub/i }).waitFor();
  await shot("1-sign-in");

  // 2. Signed in: the collections. (From here on, the local backend: the same screen, with files it may write.)
  await openEditingScreen(page, backendPort);
  await shot("2-collections");

  // 3. A file open, a field changed.
  await openSiteFile(page, "Home page");
  const headline = textField(page, "Headline");
  await headline.fill("Uniforms, gear and furniture for every agency");
  await headline.blur();
  await shot("3-edit");

  // 4. The publish menu.
  await page.getByRole("button", { name: "Publish", exact: true }).click();
  await page.getByText("Publish now", { exact: true }).waitFor();
  await shot("4-publish");
  await page.getByText("Publish now", { exact: true }).click();
  await page.getByText(/changes saved/i).waitFor();
  await page.getByText("Published", { exact: true }).waitFor();
  await shot("5-published");

  // 6. A value the contract refuses, with its message next to the field (once the last notice has gone).
  await page.getByText("Entry saved").waitFor({ state: "hidden" });
  await page.getByText("Writing in Site content collection").click();
  await openSiteFile(page, "Company details");
  const email = textField(page, "Email");
  await email.waitFor();
  await email.fill("sales at cardinalridgesupply");
  await publish(page);
  await page.getByText("Email didn't match the pattern: must be an email address.").waitFor();
  await email.evaluate((field) => field.scrollIntoView({ block: "center" }));
  await shot("6-error");
};

const editorScreenshots = async () => {
  fs.mkdirSync(EDITOR_IMAGES, { recursive: true });
  // The live site's screen is built with the repository it commits to; any name does for a picture of its sign-in.
  process.env.CMS_GITHUB_REPO ??= "cardinal-ridge/site";
  const publicDir = fs.mkdtempSync(path.join(os.tmpdir(), "editor-screen-"));
  await writeEditingScreen(publicDir, fs.mkdtempSync(path.join(os.tmpdir(), "editor-screen-cache-")));
  const server = Fastify();
  await server.register(fastifyStatic, { root: publicDir });
  const port = await freeLoopbackPort();
  await server.listen({ port, host: "127.0.0.1" });
  const backend = await startLocalBackend();
  const browser = await chromium.launch({
    executablePath: chromePath,
    args: [
      ...chromeFlags,
      `--host-resolver-rules=MAP ${LIVE_HOST} 127.0.0.1`,
      // The live site is served over HTTPS, a secure context, which Decap needs (crypto.randomUUID).
      `--unsafely-treat-insecure-origin-as-secure=http://${LIVE_HOST}:${port}`,
    ],
  });
  // The local backend's screen is served on loopback itself (openEditingScreen opens /admin/ there).
  const context = await browser.newContext({
    baseURL: `http://127.0.0.1:${port}`,
    viewport: { width: 1280, height: 800 },
    deviceScaleFactor: 1,
  });
  const page = await context.newPage();
  try {
    await takeEditorShots(page, port, backend.port);
  } finally {
    await browser.close();
    await backend.stop();
    await server.close();
    fs.rmSync(publicDir, { recursive: true, force: true });
  }
};

const main = async () => {
  const args = process.argv.slice(2);
  if (args[0] === "--editor") await editorScreenshots();
  else await siteScreenshots(args);
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
