// The bytes each built page costs a visitor, against the same page with every script removed, measured in
// the same run: every page of the sitemap is loaded in Chromium at a phone's width twice, once
// as it is and once with every script request refused, and the transfer sizes (bodies as sent, compressed,
// and headers) of all its requests are summed.
//
// Why this and not Lighthouse with JavaScript off: Chromium loads every loading="lazy" image at once when
// JavaScript is off (so a page with JavaScript off cannot track visitors by what they scroll to), which
// would weigh the home page's agency logos into its copy without scripts and flatter the ratio; with script
// requests refused the page loads as a visitor's would. What stays in the copy without scripts is the
// inline script text of the page's HTML, where there is any: under 2 KB before compression, on pages that
// need script only.
import type { Browser, Request } from "playwright-core";
import { launchBrowser } from "../testing/browser";
import { sitePaths, startSite } from "../testing/site-server";
import type { PageBytes } from "./report";

/** The width Lighthouse's mobile preset emulates, so the figures describe the same phone. */
const phone = { width: 412, height: 823 };

/** Loads `url` in a fresh context and sums what its requests transferred, scripts apart. */
const transferred = async (browser: Browser, url: string, { scripts }: { scripts: boolean }) => {
  const context = await browser.newContext({ viewport: phone });
  try {
    const page = await context.newPage();
    if (!scripts)
      await page.route("**/*", (route) =>
        route.request().resourceType() === "script" ? route.abort("blockedbyclient") : route.continue(),
      );
    const finished: Request[] = [];
    page.on("requestfinished", (request) => finished.push(request));
    // networkidle: the app starts after the first paint, and what it asks for then counts too.
    await page.goto(url, { waitUntil: "networkidle" });
    const sizes = await Promise.all(
      finished.map(async (request) => {
        const { responseBodySize, responseHeadersSize } = await request.sizes();
        return { script: request.resourceType() === "script", bytes: responseBodySize + responseHeadersSize };
      }),
    );
    const sum = (list: typeof sizes) => list.reduce((total, size) => total + size.bytes, 0);
    return { bytes: sum(sizes), scriptBytes: sum(sizes.filter((size) => size.script)) };
  } finally {
    await context.close();
  }
};

/** Every page of the sitemap, as built and without scripts, one after the other on the production server. */
export const measurePageBytes = async (): Promise<PageBytes[]> => {
  const site = await startSite();
  const browser = await launchBrowser();
  try {
    const figures: PageBytes[] = [];
    for (const path of sitePaths()) {
      const built = await transferred(browser, site.url(path), { scripts: true });
      const bare = await transferred(browser, site.url(path), { scripts: false });
      figures.push({
        path,
        bytes: built.bytes,
        scriptBytes: built.scriptBytes,
        noScriptBytes: bare.bytes,
        ratio: Number((built.bytes / bare.bytes).toFixed(2)),
      });
    }
    return figures;
  } finally {
    await browser.close();
    await site.stop();
  }
};

const kb = (bytes: number) => (bytes / 1024).toFixed(1);

export const pageBytesTable = (figures: readonly PageBytes[]) =>
  [
    "| page | transfer KB | of which script KB | without scripts KB | ratio |",
    "|---|---|---|---|---|",
    ...figures.map(
      (page) =>
        `| \`${page.path}\` | ${kb(page.bytes)} | ${kb(page.scriptBytes)} | ${kb(page.noScriptBytes)} | ${page.ratio}× |`,
    ),
  ].join("\n");

// Run alone (npx tsx bench/page-bytes.ts) for the table without the rest of the bench.
if (require.main === module) {
  measurePageBytes().then(
    (figures) => console.log(pageBytesTable(figures)),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
