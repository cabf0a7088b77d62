// npm run check:budgets: fails when the last npm run bench broke a budget in budgets.json, or did not
// measure a figure that a budget holds.
// `lhci assert` (lighthouserc.js) judges the Lighthouse runs against budgets.json's "lighthouse" section;
// bench/budget-checks.ts judges the rest from reports/bench.json: each page's blocking time, largest paint
// and score against the reference page's in the same rounds, the gzip weight of the home page's JavaScript
// (see bench/lighthouse.ts), the inquiry load (bench/inquiry-load.ts) and the CDN deploy's inquiry
// function on Netlify Database (bench/netlify-load.ts).
import { judgeBenchReport, type BudgetCheck } from "./budget-checks";
import { readBudgets } from "./budgets";
import { assertLighthouseRuns, savedRuns } from "./lighthouse";
import { readReportAsWritten } from "./report";

const budgets = readBudgets();
const report = readReportAsWritten();
const pages = report.lighthouse?.pages ?? [];

// lhci assert passes when it finds no runs at all, so make sure they are the runs of this report.
const runsInReport = pages.reduce((sum, page) => sum + (page.runs ?? 0), report.lighthouse?.reference?.runs ?? 0);
if (runsInReport === 0 || savedRuns().length !== runsInReport) {
  console.error(
    `reports/.lighthouseci/ does not hold the ${runsInReport} Lighthouse runs of reports/bench.json: run npm run bench.`,
  );
  process.exit(1);
}
console.log("Lighthouse budgets (lhci assert, median of each page's runs):");
const lighthouse = assertLighthouseRuns();

// lhci's report is long and comes first; a CI log is often read from its end, so each judgement is
// repeated among the others, with the runs its median was taken from.
const figure = (value: number) => (Math.abs(value) < 1 ? Number(value.toFixed(3)) : Math.round(value));
const lighthouseBudgets = Object.keys(budgets.lighthouse).filter((key) => key !== "$comment").length;
const checks: BudgetCheck[] = [
  {
    what: "Lighthouse judgements written by lhci assert",
    actual: String(lighthouse.assertions.length),
    limit: `= ${pages.length * lighthouseBudgets}`,
    ok: lighthouse.assertions.length === pages.length * lighthouseBudgets,
  },
  ...lighthouse.assertions.map((assertion): BudgetCheck => {
    const metric = assertion.auditId === "categories" ? `${assertion.auditProperty} score` : assertion.auditId;
    return {
      what: `Lighthouse ${new URL(assertion.url).pathname} ${metric}, median of ${assertion.values.map(figure).join(", ")}`,
      actual: String(figure(assertion.actual)),
      limit: `${assertion.operator} ${assertion.expected}`,
      ok: assertion.passed,
    };
  }),
  ...judgeBenchReport(report, budgets),
];

for (const check of checks)
  console.log(`${check.ok ? "pass" : "FAIL"}  ${check.what}: ${check.actual} (budget ${check.limit})`);
const failed = checks.filter((check) => !check.ok);
console.log(`\n${checks.length - failed.length} passed, ${failed.length} failed`);
for (const check of failed) console.log(`failed: ${check.what}: ${check.actual} (budget ${check.limit})`);
if (!lighthouse.passed) console.log("lhci assert failed: see its report above.");
process.exit(failed.length > 0 || !lighthouse.passed ? 1 : 0);
