// Lighthouse as Lighthouse CI runs it (lighthouserc.js): the production server, Lighthouse on each page in rounds
// (collectInRounds), each run saved where `lhci collect` saves it, and `lhci assert` holding the runs to the
// budgets. Then the runs read into the report's figures, and the gzip weight of each page's JavaScript and CSS.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import vm from "node:vm";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { pageScripts } from "../build/security-headers";
import { startSite } from "../testing/site-server";
import type { LighthouseFigures, PageFigures, ReferenceFigures } from "./report";

const root = path.resolve(__dirname, "..");
/** lhci keeps its runs in .lighthouseci/ under the folder it runs in; reports/ is ignored by git. */
const lhciCwd = path.join(root, "reports");
const runsDir = path.join(lhciCwd, ".lighthouseci");

/**
 * The reference page (lighthouserc.js measures it in every round beside the site's pages): React hydrating a
 * server-rendered list, a fixed amount of script that does not change with the site's code, so that the
 * budgets can judge a page's blocking time, largest paint and score against what the same machine gave it in
 * the same rounds (bench/budget-checks.ts). It lives only in the bench's copy of the build, never in public/.
 */
const REFERENCE_PATH = "/bench-reference/";
/** The rows the reference hydrates: enough for a long task of its own on the simulated slow phone. */
const REFERENCE_ROWS = 3000;
/**
 * The reference's tree, as source that both the bench (to render it) and the page (to hydrate it) run, so the
 * two cannot differ. React's UMD build is the page's `React`.
 */
const referenceTreeSource = `(React, rows) =>
  React.createElement("main", null,
    React.createElement("h1", null, "Reference page of the bench"),
    React.createElement("ul", null,
      Array.from({ length: rows }, (_, row) =>
        React.createElement("li", { key: row }, "Row " + row + ": ",
          React.createElement("strong", null, String((row * 7) % 13))))))`;

/** The bench's copy of the build, which lhci's server serves (PUBLIC_DIR); reports/ is ignored by git. */
const benchSiteDir = path.join(lhciCwd, "bench-site");

/** A long task planted in a page for the bench's run (`npm run bench -- --plant-long-task /contact/:300`). */
export interface PlantedTask {
  readonly pagePath: string;
  readonly ms: number;
}

/** Writes a file of the bench's copy with the brotli and gzip copies the server sends in its place. */
const writeServed = (file: string, content: string | Buffer) => {
  for (const suffix of ["", ".br", ".gz"]) fs.rmSync(`${file}${suffix}`, { force: true });
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  fs.writeFileSync(`${file}.br`, brotliCompressSync(content));
  fs.writeFileSync(`${file}.gz`, gzipSync(content, { level: 9 }));
};

/**
 * Copies public/ to the bench's folder and adds the reference page; with `plant`, that page of the copy also
 * loads a script that keeps the main thread busy for `plant.ms`, to show that the gate catches a long task.
 */
export const prepareBenchSite = (publicDir: string, plant: PlantedTask | null = null) => {
  fs.rmSync(benchSiteDir, { recursive: true, force: true });
  fs.cpSync(publicDir, benchSiteDir, { recursive: true });
  const referenceDir = path.join(benchSiteDir, REFERENCE_PATH);
  const tree = vm.runInNewContext(referenceTreeSource) as (
    react: { createElement: typeof createElement },
    rows: number,
  ) => Parameters<typeof renderToString>[0];
  // The packages export no umd/ path, so the files are read beside their package.json.
  const umd = (pkg: string, file: string) =>
    fs.readFileSync(path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "umd", file));
  writeServed(path.join(referenceDir, "react.js"), umd("react", "react.production.min.js"));
  writeServed(path.join(referenceDir, "react-dom.js"), umd("react-dom", "react-dom.production.min.js"));
  writeServed(
    path.join(referenceDir, "hydrate.js"),
    `ReactDOM.hydrateRoot(document.getElementById("root"), (${referenceTreeSource})(React, ${REFERENCE_ROWS}));\n`,
  );
  // The scripts are files of the site's origin, as the built pages' policy (the 404 page's, for a path the
  // build did not write) allows; noindex, though no one but the bench is told this page exists.
  writeServed(
    path.join(referenceDir, "index.html"),
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
      `<meta name="viewport" content="width=device-width, initial-scale=1">` +
      `<meta name="robots" content="noindex"><meta name="description" content="The bench's reference page.">` +
      `<link rel="icon" href="data:,"><title>Reference page of the bench</title></head><body><div id="root">` +
      renderToString(tree({ createElement }, REFERENCE_ROWS)) +
      `</div><script src="react.js" defer></script><script src="react-dom.js" defer></script>` +
      `<script src="hydrate.js" defer></script></body></html>`,
  );
  if (plant) {
    const html = path.join(benchSiteDir, plant.pagePath, "index.html");
    if (!fs.existsSync(html)) throw new Error(`--plant-long-task: the build has no page ${plant.pagePath}`);
    writeServed(
      path.join(benchSiteDir, "bench-long-task.js"),
      `{ const end = performance.now() + ${plant.ms}; while (performance.now() < end); }\n`,
    );
    const page = fs.readFileSync(html, "utf8");
    if (!page.includes("</body>"))
      throw new Error(`--plant-long-task: ${plant.pagePath} has no </body> to plant before`);
    writeServed(html, page.replace("</body>", `<script src="/bench-long-task.js" defer></script></body>`));
  }
  return benchSiteDir;
};

/** Runs `lhci assert` with lighthouserc.js; true when it succeeds. */
const lhciAssert = (args: string[]) => {
  fs.mkdirSync(lhciCwd, { recursive: true });
  const cli = require.resolve("@lhci/cli/src/cli.js");
  const { status } = spawnSync(
    process.execPath,
    [cli, "assert", `--config=${path.join(root, "lighthouserc.js")}`, ...args],
    { cwd: lhciCwd, stdio: "inherit" },
  );
  return status === 0;
};

/** What lighthouserc.js tells `lhci collect`, and the bench's rounds follow: the pages, the runs, the browser. */
interface CollectSettings {
  readonly url: readonly string[];
  readonly numberOfRuns: number;
  readonly chromePath: string;
  /** Lighthouse's flags, as lhci hands them on, and the browser's as one string. */
  readonly settings: { readonly chromeFlags: string } & Record<string, unknown>;
}

/** The tries a run gets, as `lhci collect` gives each: a browser that did not start, or a page load Lighthouse could not finish. */
const TRIES_PER_RUN = 3;

/**
 * Lighthouse in rounds, each page once a round, the reference first (lighthouserc.js's pages, browser and flags),
 * where `lhci collect` runs one page's every run and then the next page's: a slow spell of a shared machine then
 * costs each page a run or two, which the median absorbs, instead of every run of the one page it fell on.
 * Lighthouse runs in this process, each run in a Chrome of its own as `lhci collect` launches one, against one
 * server for every round: lhci started Node and loaded Lighthouse again for each run, about 5 s a run. Each run is
 * saved as `lhci collect` saves it (`.lighthouseci/lhr-<time>.json`), where `lhci assert` reads it. `runs` null is
 * lighthouserc.js's count.
 */
export const collectInRounds = async (runs: number | null, publicDir: string) => {
  const config = (await import(path.join(root, "lighthouserc.js"))) as {
    default: { ci: { collect: CollectSettings } };
  };
  const collect = config.default.ci.collect;
  const rounds = runs ?? collect.numberOfRuns;
  const pagePaths = collect.url.map((url) => new URL(url).pathname);
  const { chromeFlags, ...flags } = collect.settings;
  const [{ default: lighthouse }, { Launcher }] = await Promise.all([import("lighthouse"), import("chrome-launcher")]);
  /** One run in a Chrome of its own, killed however the run ends. */
  const measure = async (url: string) => {
    const chrome = new Launcher({ chromePath: collect.chromePath, chromeFlags: chromeFlags.trim().split(/\s+/) });
    try {
      await chrome.launch();
      const result = await lighthouse(url, { ...flags, port: chrome.port, output: "json", logLevel: "error" });
      if (!result) throw new Error(`Lighthouse gave no result for ${url}`);
      const { runtimeError } = result.lhr;
      if (runtimeError) throw new Error(`Lighthouse could not measure ${url}: ${runtimeError.message}`);
      return result.lhr;
    } finally {
      chrome.kill();
    }
  };
  /** A run with the tries `lhci collect` gives it, saved as `lhci collect` saves it. */
  const measureAndSave = async (url: string) => {
    const failures: unknown[] = [];
    while (failures.length < TRIES_PER_RUN) {
      try {
        fs.writeFileSync(path.join(runsDir, `lhr-${Date.now()}.json`), JSON.stringify(await measure(url)));
        return;
      } catch (error) {
        failures.push(error);
        console.warn(`Lighthouse on ${url}, try ${failures.length} of ${TRIES_PER_RUN}: ${String(error)}`);
      }
    }
    throw failures[0];
  };
  fs.rmSync(runsDir, { recursive: true, force: true });
  fs.mkdirSync(runsDir, { recursive: true });
  const site = await startSite({ env: { PUBLIC_DIR: publicDir } });
  try {
    for (let round = 1; round <= rounds; round += 1) {
      console.log(`Lighthouse, round ${round} of ${rounds}...`);
      for (const pagePath of pagePaths) await measureAndSave(site.url(pagePath));
    }
  } finally {
    await site.stop();
  }
};

/** The parts of a Lighthouse result (lhr-<time>.json) the bench reads. */
export interface LighthouseResult {
  finalUrl?: string;
  requestedUrl?: string;
  lighthouseVersion: string;
  environment: { hostUserAgent: string };
  categories: Record<"performance" | "accessibility" | "best-practices" | "seo", { score: number | null }>;
  audits: Record<string, { numericValue?: number; details?: { items?: { url: string; resourceType?: string }[] } }>;
}

/** The median as `lhci assert` takes it (aggregationMethod "median"): the mean of the middle two of an even count. */
export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.slice(Math.floor((sorted.length - 1) / 2), Math.floor(sorted.length / 2) + 1);
  return middle.reduce((sum, value) => sum + value, 0) / middle.length;
};

const gzipBytes = (content: string | Buffer) => gzipSync(content, { level: 9 }).length;

/**
 * The gzip -9 size of every same-origin script a run loaded, and of the page's CSS (linked sheets and inline
 * <style>), read from the build. Lighthouse only reports transfer sizes: what our server sent (brotli at
 * quality 4 to Chromium, plus headers), so its resource-summary and lhci's resource budgets cannot state the
 * gzip weight that budgets.json's homeJavaScriptGzipKb and docs/performance.md compare against a bare Gatsby page.
 */
const pageWeight = (publicDir: string, pagePath: string, result: LighthouseResult) => {
  const local = (url: string) => path.join(publicDir, decodeURIComponent(new URL(url).pathname));
  const html = fs.readFileSync(path.join(publicDir, pagePath, "index.html"), "utf8");
  const { scripts, stylesheets } = siteFilesLoaded(result, { shipsScripts: pageScripts(html).files.length > 0 });
  const inlineCss = [...html.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/g)].map((match) => match[1]).join("\n");
  const sum = (urls: string[]) => urls.reduce((total, url) => total + gzipBytes(fs.readFileSync(local(url))), 0);
  return { javaScript: sum(scripts), css: gzipBytes(inlineCss) + sum(stylesheets) };
};

/**
 * The addresses of the site's own scripts and style sheets that one run loaded, from Lighthouse's
 * network-requests audit. A run without that audit is refused, and so is a run of a page that ships the
 * app's scripts (`shipsScripts`, read from its HTML) with no script of the site among its requests
 * (Lighthouse renamed its resource types): summed as it stands, it would weigh 0 KB, under every budget.
 * A page that ships no script (gatsby-ssr.tsx) weighs 0 KB of it, rightly.
 */
export const siteFilesLoaded = (
  result: LighthouseResult,
  { shipsScripts = true } = {},
): { scripts: string[]; stylesheets: string[] } => {
  const page = result.finalUrl ?? result.requestedUrl ?? "";
  const items = result.audits["network-requests"]?.details?.items;
  if (!items)
    throw new Error(`Lighthouse's run of ${page} has no network-requests audit: its JavaScript cannot be weighed.`);
  const origin = new URL(page).origin;
  const requests = items.filter((request) => request.url.startsWith(origin));
  const urlsOf = (type: string) =>
    requests.filter((request) => request.resourceType === type).map((request) => request.url);
  const scripts = urlsOf("Script");
  if (scripts.length === 0 && shipsScripts) {
    const types = [...new Set(requests.map((request) => request.resourceType ?? "none"))].join(", ");
    throw new Error(
      `Lighthouse's run of ${page} lists no request of resourceType Script from ${origin} ` +
        `(its ${requests.length} requests from there are of the types ${types || "none"}): its JavaScript cannot be weighed.`,
    );
  }
  return { scripts, stylesheets: urlsOf("Stylesheet") };
};

/** One of the judgements `lhci assert` writes to .lighthouseci/assertion-results.json. */
export interface LighthouseAssertion {
  url: string;
  auditId: string;
  /** The category, where auditId is "categories". */
  auditProperty?: string;
  operator: string;
  expected: number;
  actual: number;
  values: number[];
  passed: boolean;
}

const assertionResultsPath = path.join(runsDir, "assertion-results.json");

/**
 * Runs `lhci assert` on the saved runs and returns its judgements, passed ones included, so that a
 * caller can state them again where a log's last lines are all that is read.
 */
export const assertLighthouseRuns = () => {
  fs.rmSync(assertionResultsPath, { force: true });
  const passed = lhciAssert(["--includePassedAssertions"]);
  const assertions = fs.existsSync(assertionResultsPath)
    ? (JSON.parse(fs.readFileSync(assertionResultsPath, "utf8")) as LighthouseAssertion[])
    : [];
  return { passed, assertions };
};

/** The runs saved, lhr-<time>.json: sorted by name, in the order they ran. */
export const savedRuns = () =>
  fs.existsSync(runsDir)
    ? fs
        .readdirSync(runsDir)
        .filter((name) => /^lhr-\d+\.json$/.test(name))
        .sort()
    : [];

/** The figures of the runs saved: per page (in lighthouserc.js's order), the median of each over its runs. */
export const readLighthouseRuns = (publicDir: string): LighthouseFigures => {
  const results = savedRuns().map(
    (name) => JSON.parse(fs.readFileSync(path.join(runsDir, name), "utf8")) as LighthouseResult,
  );
  const [first] = results;
  if (!first) throw new Error(`No Lighthouse run was saved in ${path.relative(root, runsDir)}`);
  const byPath = new Map<string, LighthouseResult[]>();
  for (const result of results) {
    const pagePath = new URL(result.finalUrl ?? result.requestedUrl ?? "").pathname;
    byPath.set(pagePath, [...(byPath.get(pagePath) ?? []), result]);
  }
  /** The figures the gates judge against the reference, with each run's, in the order they ran. */
  const timings = (pagePath: string, runs: LighthouseResult[]): ReferenceFigures => {
    const each = (figure: (result: LighthouseResult) => number) => runs.map((result) => Math.round(figure(result)));
    const audit = (id: string) => (result: LighthouseResult) => result.audits[id]?.numericValue ?? Number.NaN;
    const performanceRuns = each((result) => (result.categories.performance.score ?? Number.NaN) * 100);
    const largestContentfulPaintRunsMs = each(audit("largest-contentful-paint"));
    const totalBlockingTimeRunsMs = each(audit("total-blocking-time"));
    return {
      path: pagePath,
      runs: runs.length,
      performance: median(performanceRuns),
      largestContentfulPaintMs: median(largestContentfulPaintRunsMs),
      totalBlockingTimeMs: median(totalBlockingTimeRunsMs),
      performanceRuns,
      largestContentfulPaintRunsMs,
      totalBlockingTimeRunsMs,
    };
  };
  const pages = [...byPath]
    .filter(([pagePath]) => pagePath !== REFERENCE_PATH)
    .map(([pagePath, runs]): PageFigures => {
      const of = (figure: (result: LighthouseResult) => number) => median(runs.map(figure));
      const score = (category: keyof LighthouseResult["categories"]) =>
        of((result) => Math.round((result.categories[category].score ?? 0) * 100));
      const audit = (id: string) => of((result) => result.audits[id]?.numericValue ?? Number.NaN);
      const weights = runs.map((result) => pageWeight(publicDir, pagePath, result));
      return {
        ...timings(pagePath, runs),
        accessibility: score("accessibility"),
        bestPractices: score("best-practices"),
        seo: score("seo"),
        cumulativeLayoutShift: Number(audit("cumulative-layout-shift").toFixed(4)),
        javaScriptGzipBytes: median(weights.map((weight) => weight.javaScript)),
        cssGzipBytes: median(weights.map((weight) => weight.css)),
      };
    });
  const referenceRuns = byPath.get(REFERENCE_PATH);
  return {
    lighthouseVersion: first.lighthouseVersion,
    chromeVersion: /Chrome\/(\d+)/.exec(first.environment.hostUserAgent)?.[1] ?? "unknown",
    pages,
    reference: referenceRuns ? timings(REFERENCE_PATH, referenceRuns) : null,
  };
};
