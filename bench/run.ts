// npm run bench: a clean production build (timed), then Lighthouse's mobile
// preset three times on the home page, a product category page and the
// contact page, plus the gzip weight of the JavaScript and CSS each loads;
// then the inquiry function under load (bench/inquiry-load.ts).
// Prints a table and writes reports/bench.json; npm run check:budgets judges it.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { startSite } from "../e2e/support/server";
import { measureInquiryLoad, printInquiryLoad } from "./inquiry-load";
import { measurePage, type PageFigures } from "./lighthouse";

const root = path.resolve(__dirname, "..");
const reportPath = path.join(root, "reports", "bench.json");
const pages = ["/", "/products/tactical/", "/contact/"];
const runs = Number(process.env.BENCH_RUNS ?? 3);

const timedCleanBuild = () => {
  const gatsby = require.resolve("gatsby/cli.js");
  const env = { ...process.env, GATSBY_TELEMETRY_DISABLED: "1" };
  execFileSync(process.execPath, [gatsby, "clean"], { cwd: root, env, stdio: "ignore" });
  const started = performance.now();
  execFileSync(process.execPath, [gatsby, "build"], { cwd: root, env, stdio: "ignore" });
  return (performance.now() - started) / 1000;
};

const table = (figures: PageFigures[]) => {
  const columns: [string, (page: PageFigures) => string][] = [
    ["page", (page) => page.path],
    ["perf", (page) => String(page.performance)],
    ["a11y", (page) => String(page.accessibility)],
    ["best", (page) => String(page.bestPractices)],
    ["seo", (page) => String(page.seo)],
    ["LCP ms", (page) => String(page.largestContentfulPaintMs)],
    ["CLS", (page) => page.cumulativeLayoutShift.toFixed(3)],
    ["TBT ms", (page) => String(page.totalBlockingTimeMs)],
    ["JS KB gz", (page) => (page.javaScriptGzipBytes / 1024).toFixed(1)],
    ["CSS KB gz", (page) => (page.cssGzipBytes / 1024).toFixed(1)],
  ];
  const rows = [columns.map(([title]) => title), ...figures.map((page) => columns.map(([, cell]) => cell(page)))];
  const widths = columns.map((_, index) => Math.max(...rows.map((row) => row[index]!.length)));
  return rows.map((row) => row.map((cell, index) => cell.padEnd(widths[index]!)).join("  ")).join("\n");
};

const main = async () => {
  console.log("Clean production build...");
  const buildSeconds = timedCleanBuild();
  console.log(`Clean build: ${buildSeconds.toFixed(1)} s`);
  const site = await startSite();
  const figures: PageFigures[] = [];
  try {
    for (const page of pages) {
      console.log(`Lighthouse (mobile) x${runs}: ${page}`);
      figures.push(await measurePage(site.origin, page, path.join(root, "public"), runs));
    }
  } finally {
    await site.stop();
  }
  // After Lighthouse, so that its timings do not share the CPU with the load.
  console.log(`Inquiry load...`);
  const inquiryLoad = await measureInquiryLoad();
  const report = {
    date: new Date().toISOString(),
    machine: `${process.platform} ${process.arch}, node ${process.version}`,
    buildSeconds: Number(buildSeconds.toFixed(1)),
    pages: figures,
    inquiryLoad,
  };
  fs.mkdirSync(path.dirname(reportPath), { recursive: true });
  fs.writeFileSync(reportPath, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\n${table(figures)}`);
  printInquiryLoad(inquiryLoad);
  console.log(`\nClean build ${report.buildSeconds} s. Figures written to ${path.relative(root, reportPath)}.`);
};

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
