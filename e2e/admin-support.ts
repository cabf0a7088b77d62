import { execFileSync, spawn } from "node:child_process";
import { freeLoopbackPort } from "../server/free-port";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, type Frame, type Locator, type Page } from "@playwright/test";
import { LOCAL_BACKEND } from "../build/admin-headers";
import { test } from "./support/fixtures";

// What the editing screen's browser tests share: decap-server (Decap's local backend, as `npm run edit`
// starts it) on a temporary copy of the content, and the few steps an editor takes in Decap's screens.

const root = path.resolve(__dirname, "..");

export interface LocalBackend {
  /** The folder decap-server writes to; its content/ is a copy of the repository's. */
  readonly repoDir: string;
  readonly port: number;
  /** A file under repoDir, as it is now. */
  readonly read: (file: string) => string;
  readonly stop: () => Promise<void>;
}

/** decap-server in fs mode on a fresh copy of content/, removed again by stop(). */
export const startLocalBackend = async (): Promise<LocalBackend> => {
  const repoDir = fs.mkdtempSync(path.join(os.tmpdir(), "cms-repo-"));
  fs.cpSync(path.join(root, "content"), path.join(repoDir, "content"), { recursive: true });
  const port = await freeLoopbackPort();
  const child = spawn(process.execPath, [require.resolve("decap-server/dist/index.js")], {
    env: { ...process.env, PORT: String(port), BIND_HOST: "127.0.0.1", GIT_REPO_DIRECTORY: repoDir, MODE: "fs" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await expect.poll(() => output, { message: "decap-server starts", timeout: 15_000 }).toContain("listening on");
  return {
    repoDir,
    port,
    read: (file) => fs.readFileSync(path.join(repoDir, file), "utf8"),
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      fs.rmSync(repoDir, { recursive: true, force: true });
    },
  };
};

/**
 * For a test file whose every test edits through decap-server on the production build: a fresh backend
 * for each test, stopped after it. The build's live policy names no http: source, so it refuses
 * decap-server (http://localhost:8081) by design; these tests set it aside (bypassCSP), see admin.test.ts.
 * Returns the running test's backend.
 */
export const useLocalBackend = (): (() => LocalBackend) => {
  test.use({ bypassCSP: true });
  let backend: LocalBackend | undefined;
  test.beforeEach(async () => {
    backend = await startLocalBackend();
  });
  test.afterEach(async () => {
    await backend?.stop();
    backend = undefined;
  });
  return () => {
    if (!backend) throw new Error("the local backend runs only during a test");
    return backend;
  };
};

/**
 * The editing screen looks for its local backend at http://localhost:8081 (Decap's default, which
 * `npm run edit` uses); the tests run theirs on a free port and send the screen's requests there.
 */
const routeLocalBackend = (page: Page, port: number) =>
  page.route(`${LOCAL_BACKEND}/**`, (route) =>
    route.continue({ url: route.request().url().replace(`${LOCAL_BACKEND}/`, `http://127.0.0.1:${port}/`) }),
  );

/** The saves the editing screen sends to its backend from now on (decap-server's persistEntry action). */
export const recordSaves = (page: Page): string[] => {
  const saves: string[] = [];
  page.on("request", (request) => {
    const body = request.url().startsWith(`${LOCAL_BACKEND}/`) ? request.postData() : null;
    if (body?.includes('"action":"persistEntry"')) saves.push(body);
  });
  return saves;
};

/** Opens /admin/ and signs in to the local backend (Decap's "Login" button, no password). */
export const openEditingScreen = async (page: Page, port: number) => {
  await routeLocalBackend(page, port);
  const response = await page.goto("/admin/");
  await page.getByRole("button", { name: "Login" }).click();
  await expect(page.getByRole("heading", { name: "Collections" })).toBeVisible();
  return response;
};

/** Opens one of the single files ("Home page") from the Site content collection. */
export const openSiteFile = async (page: Page, label: string) => {
  await page.getByRole("link", { name: "Site content", exact: true }).click();
  await page.getByRole("link", { name: label, exact: true }).click();
};

/** A visible text box by its label; Decap keeps hidden copies of some fields, which roles leave out. */
export const textField = (page: Page, label: string) => page.getByRole("textbox", { name: label, exact: true });

/**
 * Replaces a text box's value as a person does: select all, type. Playwright's fill() on a box the
 * editor has already changed can leave Decap's own copy of the old text in front of the new one.
 */
export const retype = async (field: Locator, text: string) => {
  await field.click();
  await field.press("ControlOrMeta+a");
  await field.page().keyboard.insertText(text);
};

/** Publish → Publish now; the menu stays open after a refused attempt, so it is opened only when closed. */
export const publish = async (page: Page) => {
  const publishNow = page.getByText("Publish now", { exact: true });
  if (!(await publishNow.isVisible())) await page.getByRole("button", { name: "Publish", exact: true }).click();
  await publishNow.click();
};

/**
 * The text of a JSON file the editing screen has saved, once it differs from `previous` and is whole.
 * decap-server writes with fs.promises.writeFile, which empties the file before it writes, so a read in
 * between sees "" or a part of it (which failed CI once: a changed file of 1 line instead of 67).
 */
export const savedJson = async (file: string, previous?: string): Promise<string> => {
  let text = "";
  const saved = () => {
    text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
    if (text === previous) return false;
    try {
      JSON.parse(text);
      return true;
    } catch {
      return false;
    }
  };
  await expect.poll(saved, { message: `${path.basename(file)} is saved, whole` }).toBe(true);
  return text;
};

/** The lines of `after` that differ from `before`, when both have as many lines. */
export const changedLines = (before: string, after: string): string[] => {
  const old = before.split("\n");
  const now = after.split("\n");
  expect(now, "the file keeps its number of lines").toHaveLength(old.length);
  return now.filter((line, index) => line !== old[index]);
};

/**
 * Creates the product category "Safety Equipment" (safety-equipment) field by field, as an editor
 * would, and publishes it; its one product line carries the TAA mark.
 */
export const addSafetyCategory = async (page: Page) => {
  await page.getByRole("link", { name: "Product categories" }).click();
  await page.getByRole("link", { name: /Product category/ }).click();
  await textField(page, "Address").fill("safety-equipment");
  await page.getByRole("spinbutton", { name: "Position" }).fill("4");
  await textField(page, "Title").first().fill("Safety Equipment");
  await textField(page, "Short title").fill("Safety");
  await page.getByRole("combobox", { name: "Icon" }).click();
  await page.getByText("tactical", { exact: true }).click();
  await textField(page, "Summary").fill("High-visibility vests, first-aid kits and signage.");
  await textField(page, "Title").nth(1).fill("Safety Equipment for Agencies");
  await textField(page, "Description").fill("High-visibility vests, first-aid kits and signage for agencies.");
  await page.getByRole("button", { name: "Add overview" }).click();
  await textField(page, "Overview").fill("Everything a crew needs to be seen and stay safe.");
  await page.getByRole("button", { name: "Choose an image" }).click();
  await page.getByText("tactical.jpg").click();
  await page.getByRole("button", { name: "Choose selected" }).click();
  await page.getByRole("button", { name: /^Add product line/ }).click();
  await textField(page, "Name").fill("High-visibility vests");
  await textField(page, "Description").nth(1).fill("ANSI class 2 and 3 vests in agency colors.");
  await page.getByRole("combobox", { name: /Compliance marks/ }).click();
  await page.getByText("TAA compliant", { exact: true }).click();
  await textField(page, "Heading").fill("Outfit your crew");
  await textField(page, "Text").fill("Tell us what your crew needs.");
  await textField(page, "Label").fill("Request a quote");
  await publish(page);
};

/** `npm run check:content` on a content folder: its output, or the error that says what failed. */
export const checkContent = (contentDir: string): string =>
  execFileSync(
    process.execPath,
    ["--import", "tsx", path.join(root, "scripts", "check-content.ts"), "--dir", contentDir],
    {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    },
  );

/** A small SVG logo an editor might upload. */
export const writeLogo = (name: string): string => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "logo-")), name);
  fs.writeFileSync(
    file,
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 40"><circle cx="20" cy="20" r="18" fill="#1f3a5f"/></svg>\n',
  );
  return file;
};

/** Decap's preview frame, once the site's page is drawn in it. */
export const previewFrame = async (page: Page): Promise<Frame> => {
  const element = page.locator("iframe#preview-pane");
  await expect(element).toBeVisible();
  const frame = await (await element.elementHandle()).contentFrame();
  if (!frame) throw new Error("the preview pane has no frame");
  await expect(frame.locator("main h1")).toBeVisible();
  return frame;
};

/** What makes a heading look like the site's: its font, size, weight, line height and colour. */
export const headingStyle = (frame: Frame | Page) =>
  frame.locator("main h1").evaluate((heading) => {
    const style = getComputedStyle(heading);
    return [style.fontFamily, style.fontSize, style.fontWeight, style.lineHeight, style.color];
  });
