// Takes full-page screenshots of a running site at phone, tablet and desktop widths.
// Usage: node scripts/screenshots.mjs [baseUrl] [outDir] [path...]
import { mkdirSync } from "node:fs";
import { launchBrowser } from "../e2e/browser.mjs";

const [baseUrl = "http://localhost:9000", outDir = "screenshots", ...paths] = process.argv.slice(2);
const widths = [375, 800, 1280];
mkdirSync(outDir, { recursive: true });
const browser = await launchBrowser();
for (const path of paths.length ? paths : ["/"]) {
  for (const width of widths) {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    page.on("console", (message) => {
      if (message.type() === "error") console.log(`[${width}] console error on ${path}: ${message.text()}`);
    });
    await page.goto(new URL(path, baseUrl).href, { waitUntil: "networkidle" });
    const name = path.replace(/[^a-z0-9]+/gi, "-").replace(/^-|-$/g, "") || "home";
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    await page.screenshot({ path: `${outDir}/${name}-${width}.png`, fullPage: true });
    console.log(`${name} at ${width}px: scrollWidth ${scrollWidth}`);
    await page.close();
  }
}
await browser.close();
