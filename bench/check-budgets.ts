// npm run check:budgets: fails when reports/bench.json (from npm run bench)
// breaks a budget in budgets.json.
import fs from "node:fs";
import path from "node:path";
import type { InquiryLoadFigures } from "./inquiry-load";
import type { PageFigures } from "./lighthouse";

const root = path.resolve(__dirname, "..");
type PageBudget = Pick<
  PageFigures,
  "performance" | "accessibility" | "bestPractices" | "seo" | "largestContentfulPaintMs" | "cumulativeLayoutShift"
>;
const budgets = JSON.parse(fs.readFileSync(path.join(root, "budgets.json"), "utf8")) as {
  pages: PageBudget;
  homeJavaScriptGzipKb: number;
  inquiryLoadP95Ms: number;
  refusedRssGrowthMb: number;
  refusedCpuMsPerRequest: number;
  homeDuringBurstP50Ms: number;
};
const reportPath = path.join(root, "reports", "bench.json");
if (!fs.existsSync(reportPath)) {
  console.error("No reports/bench.json: run npm run bench first.");
  process.exit(1);
}
const report = JSON.parse(fs.readFileSync(reportPath, "utf8")) as {
  date: string;
  pages: PageFigures[];
  inquiryLoad?: InquiryLoadFigures;
};

const checks: { what: string; actual: number; limit: number; ok: boolean }[] = [];
const atLeast = (what: string, actual: number, limit: number) =>
  checks.push({ what, actual, limit, ok: actual >= limit });
const atMost = (what: string, actual: number, limit: number) =>
  checks.push({ what, actual, limit, ok: actual <= limit });

for (const page of report.pages) {
  atLeast(`${page.path} performance`, page.performance, budgets.pages.performance);
  atLeast(`${page.path} accessibility`, page.accessibility, budgets.pages.accessibility);
  atLeast(`${page.path} best practices`, page.bestPractices, budgets.pages.bestPractices);
  atLeast(`${page.path} SEO`, page.seo, budgets.pages.seo);
  atMost(`${page.path} LCP (ms)`, page.largestContentfulPaintMs, budgets.pages.largestContentfulPaintMs);
  atMost(`${page.path} CLS`, page.cumulativeLayoutShift, budgets.pages.cumulativeLayoutShift);
}
const home = report.pages.find((page) => page.path === "/");
if (!home) {
  console.error("reports/bench.json has no figures for the home page.");
  process.exit(1);
}
atMost("/ JavaScript (KB gzip)", Number((home.javaScriptGzipBytes / 1024).toFixed(1)), budgets.homeJavaScriptGzipKb);

const load = report.inquiryLoad;
if (!load) {
  console.error("reports/bench.json has no inquiry load figures.");
  process.exit(1);
}
const { concurrent, refused, flood } = load;
const exactly = (what: string, actual: number, expected: number) =>
  checks.push({ what, actual, limit: expected, ok: actual === expected });
exactly("inquiry load: accepted", concurrent.accepted, concurrent.submissions);
exactly("inquiry load: records in the outbox", concurrent.recordsStored, concurrent.submissions);
exactly("inquiry load: submissions stored exactly once", concurrent.storedExactlyOnce, concurrent.submissions);
exactly("inquiry load: unique references", concurrent.uniqueReferences, concurrent.submissions);
exactly("inquiry load: damaged outbox lines", concurrent.damagedLines, 0);
exactly("inquiry load: webhook deliveries", concurrent.webhookDeliveries, concurrent.submissions);
exactly("inquiry load: email deliveries", concurrent.emailDeliveries, concurrent.submissions);
exactly("inquiry load: delivered exactly once by email and webhook", concurrent.deliveredOnceBoth, concurrent.submissions);
atMost("inquiry load: p95 latency (ms)", concurrent.p95Ms, budgets.inquiryLoadP95Ms);
exactly("refused requests: records stored", refused.recordsStored, 0);
exactly(
  "refused requests: answered 4xx",
  Object.entries(refused.statuses)
    .filter(([status]) => Number(status) >= 400 && Number(status) < 500)
    .reduce((sum, [, count]) => sum + count, 0),
  2 * refused.requests,
);
atMost("refused requests: RSS growth over the second round (MB)", refused.rssGrowthMb, budgets.refusedRssGrowthMb);
atMost("refused requests: CPU per request (ms)", refused.cpuMsPerRequest, budgets.refusedCpuMsPerRequest);
atMost("refused requests: GET / p50 meanwhile (ms)", refused.homeDuringBurstP50Ms, budgets.homeDuringBurstP50Ms);
exactly("rate limit flood: accepted", flood.accepted, flood.limit);
exactly("rate limit flood: refused with 429", flood.refused, flood.submissions - flood.limit);
exactly("rate limit flood: records in the outbox", flood.recordsStored, flood.limit);
atLeast("rate limit flood: Retry-After (s)", flood.retryAfterSeconds, 1);

for (const check of checks)
  console.log(`${check.ok ? "pass" : "FAIL"}  ${check.what}: ${check.actual} (budget ${check.limit})`);
const failed = checks.filter((check) => !check.ok);
console.log(`\n${checks.length - failed.length} passed, ${failed.length} failed`);
process.exit(failed.length > 0 ? 1 : 0);
