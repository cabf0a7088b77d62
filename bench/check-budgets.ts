// npm run check:budgets: fails when the last npm run bench broke a budget in budgets.json.
// `lhci assert` (lighthouserc.js) judges the Lighthouse runs against budgets.json's "lighthouse" section;
// this script judges what Lighthouse CI does not measure, from reports/bench.json: the gzip weight of the
// home page's JavaScript (see bench/lighthouse.ts), the inquiry load (bench/inquiry-load.ts) and the CDN
// deploy's inquiry function on its Blobs outbox (bench/blobs-load.ts).
import fs from "node:fs";
import path from "node:path";
import { blobsLoadExpectations } from "./blobs-load";
import { assertLighthouseRuns, savedRuns } from "./lighthouse";
import { readReport } from "./report";

const root = path.resolve(__dirname, "..");
const budgets = JSON.parse(fs.readFileSync(path.join(root, "budgets.json"), "utf8")) as {
  homeJavaScriptGzipKb: number;
  inquiryLoadP95Ms: number;
  refusedRssGrowthMb: number;
  refusedCpuMsPerRequest: number;
  homeDuringBurstP50Ms: number;
  blobsLoad: { inquiries: number };
  /** lhci's assertions (lighthouserc.js), and a "$comment". */
  lighthouse: Record<string, unknown>;
};
const report = readReport();

// lhci assert passes when it finds no runs at all, so make sure they are the runs of this report.
const runsInReport = report.lighthouse.pages.reduce((sum, page) => sum + page.runs, 0);
if (runsInReport === 0 || savedRuns().length !== runsInReport) {
  console.error(
    `reports/.lighthouseci/ does not hold the ${runsInReport} Lighthouse runs of reports/bench.json: run npm run bench.`,
  );
  process.exit(1);
}
console.log("Lighthouse budgets (lhci assert, median of each page's runs):");
const lighthouse = assertLighthouseRuns();

/** limit: the budget with its comparison, such as "<= 1000". */
const checks: { what: string; actual: number; limit: string; ok: boolean }[] = [];
// lhci's report is long and comes first; a CI log is often read from its end, so each judgement is
// repeated among the others, with the runs its median was taken from.
const figure = (value: number) => (Math.abs(value) < 1 ? Number(value.toFixed(3)) : Math.round(value));
const lighthouseBudgets = Object.keys(budgets.lighthouse).filter((key) => key !== "$comment").length;
checks.push({
  what: "Lighthouse judgements written by lhci assert",
  actual: lighthouse.assertions.length,
  limit: `= ${report.lighthouse.pages.length * lighthouseBudgets}`,
  ok: lighthouse.assertions.length === report.lighthouse.pages.length * lighthouseBudgets,
});
for (const assertion of lighthouse.assertions) {
  const metric = assertion.auditId === "categories" ? `${assertion.auditProperty} score` : assertion.auditId;
  checks.push({
    what: `Lighthouse ${new URL(assertion.url).pathname} ${metric}, median of ${assertion.values.map(figure).join(", ")}`,
    actual: figure(assertion.actual),
    limit: `${assertion.operator} ${assertion.expected}`,
    ok: assertion.passed,
  });
}
const atLeast = (what: string, actual: number, limit: number) =>
  checks.push({ what, actual, limit: `>= ${limit}`, ok: actual >= limit });
const atMost = (what: string, actual: number, limit: number) =>
  checks.push({ what, actual, limit: `<= ${limit}`, ok: actual <= limit });

const home = report.lighthouse.pages.find((page) => page.path === "/");
if (!home) {
  console.error("reports/bench.json has no figures for the home page.");
  process.exit(1);
}
atMost("/ JavaScript (KB gzip)", Number((home.javaScriptGzipBytes / 1024).toFixed(1)), budgets.homeJavaScriptGzipKb);

const { concurrent, refused, flood } = report.inquiryLoad;
const exactly = (what: string, actual: number, expected: number) =>
  checks.push({ what, actual, limit: `= ${expected}`, ok: actual === expected });
exactly("inquiry load: accepted", concurrent.accepted, concurrent.submissions);
exactly("inquiry load: records in the outbox", concurrent.recordsStored, concurrent.submissions);
exactly("inquiry load: submissions stored exactly once", concurrent.storedExactlyOnce, concurrent.submissions);
exactly("inquiry load: unique references", concurrent.uniqueReferences, concurrent.submissions);
exactly("inquiry load: damaged outbox lines", concurrent.damagedLines, 0);
exactly("inquiry load: webhook deliveries", concurrent.webhookDeliveries, concurrent.submissions);
exactly("inquiry load: email deliveries", concurrent.emailDeliveries, concurrent.submissions);
exactly(
  "inquiry load: delivered exactly once by email and webhook",
  concurrent.deliveredOnceBoth,
  concurrent.submissions,
);
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

if (!report.blobs) {
  console.error("reports/bench.json has no Blobs load figures: run npm run bench.");
  process.exit(1);
}
for (const { what, actual, expected } of blobsLoadExpectations(report.blobs, budgets.blobsLoad.inquiries))
  exactly(what, actual, expected);

for (const check of checks)
  console.log(`${check.ok ? "pass" : "FAIL"}  ${check.what}: ${check.actual} (budget ${check.limit})`);
const failed = checks.filter((check) => !check.ok);
console.log(`\n${checks.length - failed.length} passed, ${failed.length} failed`);
for (const check of failed) console.log(`failed: ${check.what}: ${check.actual} (budget ${check.limit})`);
if (!lighthouse.passed) console.log("lhci assert failed: see its report above.");
process.exit(failed.length > 0 || !lighthouse.passed ? 1 : 0);
