// npm run bench:readme: writes the figures of reports/bench.json (npm run bench) into docs/performance.md,
// between its bench marker comments, so that the performance guide shows a run's figures as measured. Run the
// bench, then this, then commit the guide. (The script keeps its name; the figures left the README, which
// links to the guide, when the docs were split by reader.)
import fs from "node:fs";
import path from "node:path";
import { readReport, type BenchReport, type InquiryLoadFigures, type PageFigures } from "./report";

/** Where the latest figures are kept, relative to the repository's root. */
export const PERFORMANCE_GUIDE = "docs/performance.md";

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const count = (value: number) => value.toLocaleString("en-US");
const signed = (value: number) => `${value < 0 ? "−" : "+"}${Math.abs(value)}`;

export const lighthouseTable = (pages: PageFigures[]) =>
  [
    "| page | performance | accessibility | best practices | SEO | LCP | CLS | TBT | JS (gzip) | CSS (gzip) |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...pages
      .map((page) =>
        [
          `\`${page.path}\``,
          page.performance,
          page.accessibility,
          page.bestPractices,
          page.seo,
          `${(page.largestContentfulPaintMs / 1000).toFixed(2)} s`,
          page.cumulativeLayoutShift.toFixed(3),
          `${page.totalBlockingTimeMs} ms`,
          kb(page.javaScriptGzipBytes),
          kb(page.cssGzipBytes),
        ].join(" | "),
      )
      .map((row) => `| ${row} |`),
  ].join("\n");

const lighthouseBlock = ({ machine, buildSeconds, lighthouse }: BenchReport) => {
  const runs = [...new Set(lighthouse.pages.map((page) => page.runs))].join(" or ");
  return [
    `Measured with \`npm run bench\` (${machine}; Chromium ${lighthouse.chromeVersion}, ` +
      `Lighthouse ${lighthouse.lighthouseVersion} with lighthouserc.js's settings, mobile preset: emulated phone, simulated ` +
      `slow 4G, 4× CPU slowdown; median of ${runs} runs per page):`,
    "",
    lighthouseTable(lighthouse.pages),
    "",
    `Clean build: ${buildSeconds} s.`,
  ].join("\n");
};

const inquiryLoadBlock = ({ concurrent, refused, flood }: InquiryLoadFigures) =>
  `Inquiry load (the same run; production server on loopback, email to an SMTP server and a webhook receiver ` +
  `on loopback): ${count(concurrent.submissions)} concurrent valid submissions, ${count(concurrent.accepted)} ` +
  `accepted in ${concurrent.seconds} s, latency p50 ${concurrent.p50Ms} ms, p95 ${concurrent.p95Ms} ms; the ` +
  `outbox held ${count(concurrent.recordsStored)} records (${count(concurrent.storedExactlyOnce)} submissions ` +
  `stored exactly once, ${count(concurrent.uniqueReferences)} unique references); ` +
  `the worker delivered ${count(concurrent.emailDeliveries)} emails and ` +
  `${count(concurrent.webhookDeliveries)} webhook calls, ${count(concurrent.deliveredOnceBoth)} inquiries ` +
  `exactly once by both, all within ${concurrent.allDeliveredSeconds} s of the first submission. Two rounds of ` +
  `${count(refused.requests)} requests that must be refused (GETs, invalid fields, a wrong content type, ` +
  `malformed JSON): ${refused.cpuMsPerRequest} ms of server CPU each; memory held after a full ` +
  `collection ${refused.liveBeforeMb} → ${refused.liveAfterFirstMb} MB over the first round and ` +
  `${signed(refused.liveGrowthMb)} MB over the second (RSS ${refused.rssBeforeMb} → ${refused.rssAfterFirstMb} → ` +
  `${refused.rssAfterMb} MB); ` +
  `\`GET /\` p50 ${refused.homeDuringBurstP50Ms} ms meanwhile, ${count(refused.recordsStored)} stored. A flood ` +
  `of ${count(flood.submissions)} from one client at the default limit (${flood.limit} per ` +
  `${flood.windowSeconds} s): ${count(flood.accepted)} accepted and ${count(flood.recordsStored)} stored, ` +
  `${count(flood.refused)} refused with 429 and \`Retry-After: ${flood.retryAfterSeconds}\`.`;

/** Replaces what lies between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->`; both must be there, once. */
const replaceBlock = (text: string, name: string, content: string) => {
  const start = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from === -1 || to < from || text.includes(start, from + 1)) {
    throw new Error(`${PERFORMANCE_GUIDE} needs one ${start} … ${end} pair`);
  }
  return `${text.slice(0, from + start.length)}\n${content}\n${text.slice(to)}`;
};

/** The guide with the report's figures in its bench blocks; everything outside them is kept as it is. */
export const withBenchFigures = (guide: string, report: BenchReport) =>
  replaceBlock(
    replaceBlock(guide, "lighthouse", lighthouseBlock(report)),
    "inquiry-load",
    inquiryLoadBlock(report.inquiryLoad),
  );

if (require.main === module) {
  const guidePath = path.resolve(__dirname, "..", PERFORMANCE_GUIDE);
  fs.writeFileSync(guidePath, withBenchFigures(fs.readFileSync(guidePath, "utf8"), readReport()));
  console.log(`${PERFORMANCE_GUIDE}: figures written from reports/bench.json.`);
}
