// npm run bench: a clean production build (timed); Lighthouse's mobile preset on the pages in
// lighthouserc.js, as `lhci collect` runs it (in 5 rounds of one run of each; bench/lighthouse.ts), with the gzip
// weight of the JavaScript and CSS each page loads; then the inquiry endpoint under load
// (bench/inquiry-load.ts), and the CDN deploy's inquiry function under load on Netlify Database, a local
// Postgres started for it (bench/netlify-load.ts).
// Writes reports/bench.json, all of it: npm run check:budgets judges it, npm run bench:readme copies it
// into docs/performance.md.
// BENCH_RUNS sets another number of Lighthouse runs, for a quick look. `--clean-build-from <file>` takes the
// clean build's seconds from a build already made from nothing (CI's, reports/clean-build.json) instead of
// building again. `--plant-long-task <page>:<ms>` adds to that page, in the bench's copy of the build only, a
// script that blocks the main thread for <ms>, and `--lighthouse-only` stops after Lighthouse: together they
// show the blocking-time gate failing a page that gained a long task (docs/performance.md).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { readToolSetting } from "../testing/tool-settings";
import { enterRunTempRoot } from "../testing/run-temp-root";
import { measureInquiryLoad, printInquiryLoad } from "./inquiry-load";
import { collectInRounds, prepareBenchSite, readLighthouseRuns, type PlantedTask } from "./lighthouse";
import { measureNetlifyLoad, printNetlifyLoad } from "./netlify-load";
import { measurePageBytes, pageBytesTable } from "./page-bytes";
import { lighthouseTable } from "./readme";
import { reportPath, type BenchReport } from "./report";

const root = path.resolve(__dirname, "..");

const machine = () => `${process.platform} ${process.arch}, ${os.cpus().length} cores, node ${process.version}`;

const timedCleanBuild = () => {
  const gatsby = require.resolve("gatsby/cli.js");
  const env = { ...process.env, GATSBY_TELEMETRY_DISABLED: "1" };
  execFileSync(process.execPath, [gatsby, "clean"], { cwd: root, env, stdio: "ignore" });
  const started = performance.now();
  execFileSync(process.execPath, [gatsby, "build"], { cwd: root, env, stdio: "ignore" });
  return (performance.now() - started) / 1000;
};

/** The seconds of a clean build made before the bench, from `--clean-build-from <file>`; null without it. */
const cleanBuildMadeBefore = (): number | null => {
  const flag = process.argv.indexOf("--clean-build-from");
  if (flag === -1) return null;
  const file = process.argv[flag + 1];
  if (!file) throw new Error("--clean-build-from needs a file: the report of a build made from nothing");
  const { seconds } = JSON.parse(fs.readFileSync(file, "utf8")) as { seconds?: unknown };
  if (typeof seconds !== "number") throw new Error(`${file} has no "seconds"`);
  return seconds;
};

/** The long task `--plant-long-task <page>:<ms>` asks for; null without it. */
const plantedTask = (): PlantedTask | null => {
  const flag = process.argv.indexOf("--plant-long-task");
  if (flag === -1) return null;
  const match = /^(\/(?:[\w-]+\/)*):(\d+)$/.exec(process.argv[flag + 1] ?? "");
  if (!match?.[1] || !match[2]) throw new Error("--plant-long-task needs <page>:<ms>, such as /contact/:300");
  return { pagePath: match[1], ms: Number(match[2]) };
};

const main = async () => {
  const madeBefore = cleanBuildMadeBefore();
  if (madeBefore === null) console.log("Clean production build...");
  const buildSeconds = madeBefore ?? Number(timedCleanBuild().toFixed(1));
  console.log(`Clean build: ${buildSeconds} s${madeBefore === null ? "" : " (made before the bench)"}`);
  const plant = plantedTask();
  if (plant)
    console.log(`A long task of ${plant.ms} ms planted on ${plant.pagePath}, in the bench's copy of the build`);
  const benchSite = prepareBenchSite(path.join(root, "public"), plant);
  await collectInRounds(readToolSetting("BENCH_RUNS"), benchSite);
  const lighthouse = readLighthouseRuns(benchSite);
  if (process.argv.includes("--lighthouse-only")) {
    const report = { date: new Date().toISOString(), machine: machine(), buildSeconds, lighthouse };
    fs.mkdirSync(path.dirname(reportPath), { recursive: true });
    fs.writeFileSync(reportPath, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`\n${lighthouseTable(lighthouse.pages)}\n`);
    console.log(`Lighthouse only: written to ${path.relative(root, reportPath)}, which npm run check:budgets judges.`);
    return;
  }
  // Two loads of each page, a few seconds in all: what each page costs against itself without scripts.
  console.log("Page bytes against no scripts...");
  const pageBytes = await measurePageBytes();
  // After Lighthouse, so that its timings do not share the CPU with the load.
  console.log(`Inquiry load...`);
  const inquiryLoad = await measureInquiryLoad();
  // Last, on its own: the function's invocations and the local Postgres share no CPU with the rest.
  console.log(`Netlify Database outbox load...`);
  const netlifyLoad = await measureNetlifyLoad();
  const report: BenchReport = {
    date: new Date().toISOString(),
    machine: machine(),
    buildSeconds,
    lighthouse,
    pageBytes,
    inquiryLoad,
    netlifyLoad,
  };
  fs.mkdirSync(path.dirname(reportPath), { recursive: true });
  fs.writeFileSync(reportPath, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\n${lighthouseTable(lighthouse.pages)}\n`);
  console.log(`${pageBytesTable(pageBytes)}\n`);
  printInquiryLoad(inquiryLoad);
  printNetlifyLoad(netlifyLoad);
  console.log(
    `\nClean build ${buildSeconds} s. Figures written to ${path.relative(root, reportPath)}; ` +
      "npm run check:budgets judges them, npm run bench:readme writes them into docs/performance.md.",
  );
};

enterRunTempRoot("site-bench-");
main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
