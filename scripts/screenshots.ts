// Full-page screenshots of a running site at phone, tablet and desktop widths, for looking at a change.
// Usage: npm run screenshots -- [baseUrl] [outDir] [path...]
import { mkdirSync } from "node:fs";
import { launchBrowser, openPage, WIDTHS } from "../e2e/support/browser";

const [baseUrl = "http://localhost:9000", outDir = "screenshots", ...paths] = process.argv.slice(2);

const main = async () => {
  mkdirSync(outDir, { recursive: true });
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

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
