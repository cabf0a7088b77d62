import fs from "node:fs";
import path from "node:path";
import {
  headingStyle,
  openEditingScreen,
  openSiteFile,
  previewFrame,
  retype,
  textField,
  useLocalBackend,
} from "./admin-support";
import { expect, test } from "./support/fixtures";

// The editing screen's preview pane on the production build (src/admin/preview/): the entry being edited,
// drawn by the site's own components in the site's own styles, following the editor's keystrokes. Saves go
// to decap-server on a copy of content/, as in admin.test.ts.

const publicDir = path.resolve(__dirname, "..", "public");

// The build's live policy refuses decap-server by design; as in admin.test.ts, these tests set it aside.
// The preview under the live policy is checked on the GitHub path (e2e/admin-github.test.ts).
const backend = useLocalBackend();

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

test("the home page's preview shows a new hero headline in the site's heading style as it is typed", async ({
  page,
  browser,
  consoleErrors,
}) => {
  await openEditingScreen(page, backend().port);
  await openSiteFile(page, "Home page");
  const headline = textField(page, "Headline");
  const frame = await previewFrame(page);
  await expect(frame.locator("main h1")).toHaveText(await headline.inputValue());

  await retype(headline, "Outfitting the agencies that serve");
  await expect(frame.locator("main h1")).toHaveText("Outfitting the agencies that serve");
  // The rest of the page around it: the site's sections, with the repository's menus and footer.
  await expect(frame.getByRole("heading", { level: 2, name: "Our Specialized Solutions" })).toBeVisible();
  await expect(frame.locator("footer")).toContainText("Cardinal Ridge Supply");

  // The live home page at the preview's width (the site's type scales with the viewport) has the same heading.
  const frameSize = await page.locator("iframe#preview-pane").boundingBox();
  const live = await browser.newPage({ viewport: { width: Math.round(frameSize!.width), height: 900 } });
  await live.goto("/");
  expect(await headingStyle(frame)).toEqual(await headingStyle(live));
  await live.close();

  // How long the preview takes to follow a keystroke: from the key's event in the editing screen to the
  // heading's new text in the frame, both timed in the page (one clock: the frame shares its parent's origin).
  await headline.press("End");
  await page.evaluate(() => {
    const record = window as unknown as { keyTimes: number[]; textTimes: [number, string][] };
    record.keyTimes = [];
    record.textTimes = [];
    document.addEventListener("keydown", () => record.keyTimes.push(performance.now()), { capture: true });
    const frameDocument = document.querySelector<HTMLIFrameElement>("iframe#preview-pane")!.contentDocument!;
    new MutationObserver(() => {
      record.textTimes.push([performance.now(), frameDocument.querySelector("main h1")?.textContent ?? ""]);
    }).observe(frameDocument.body, { subtree: true, childList: true, characterData: true });
  });
  const typed = " today";
  await page.keyboard.type(typed, { delay: 300 });
  await expect(frame.locator("main h1")).toHaveText(`Outfitting the agencies that serve${typed}`);
  const { keyTimes, textTimes } = await page.evaluate(() => {
    const record = window as unknown as { keyTimes: number[]; textTimes: [number, string][] };
    return { keyTimes: record.keyTimes, textTimes: record.textTimes };
  });
  expect(keyTimes).toHaveLength(typed.length);
  const latencies = keyTimes.map((keyTime, index) => {
    const expected = `Outfitting the agencies that serve${typed.slice(0, index + 1)}`;
    const shown = textTimes.find(([time, text]) => time >= keyTime && text === expected);
    if (!shown) throw new Error(`the preview never showed "${expected}"`);
    return shown[0] - keyTime;
  });
  const medianMs = Math.round(median(latencies));
  test.info().annotations.push({ type: "preview latency (median ms)", description: String(medianMs) });
  console.log(`preview follows a keystroke in ${medianMs} ms (median of ${latencies.length})`);
  // Generous: the point is that it follows as the editor types, on a shared two-core machine.
  expect(medianMs).toBeLessThan(500);

  // No policy check here: these tests set the live policy aside to reach decap-server, so no violation could be
  // reported. The preview under the build's live policy is checked on the GitHub path (e2e/admin-github.test.ts).
  expect(consoleErrors).toEqual([]);
});

test("the company's details preview in the footer and the contact panel", async ({ page }) => {
  await openEditingScreen(page, backend().port);
  await openSiteFile(page, "Company details");
  const frame = await previewFrame(page);
  await retype(textField(page, "Email"), "editors@example.com");
  await expect(frame.locator("footer")).toContainText("editors@example.com");
  await expect(frame.locator("main")).toContainText("editors@example.com");
});

test("no visitor page's HTML or JavaScript names the preview bundle", () => {
  const visitorFiles = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((item) => {
      const file = path.join(dir, item.name);
      if (item.isDirectory()) return file === path.join(publicDir, "admin") ? [] : visitorFiles(file);
      return /\.(html|js)$/.test(item.name) ? [file] : [];
    });
  const files = visitorFiles(publicDir);
  expect(files.filter((file) => file.endsWith(".html")).length).toBeGreaterThan(5);
  const naming = files.filter((file) =>
    /preview\/preview\.js|registerSitePreviews/.test(fs.readFileSync(file, "utf8")),
  );
  expect(naming).toEqual([]);
});
