// The gates npm run check:budgets (bench/check-budgets.ts) applies to reports/bench.json beside lhci's own:
// the gzip weight of the home page's JavaScript, the inquiry load and the CDN deploy's inquiry
// function on Netlify Database.
// A gate passes only on a figure that was measured. A figure the report lacks, or holds as null (JSON's
// NaN), fails as "not measured"; so does 0 where no real run can read 0 (a page's JavaScript, a latency,
// a server's memory or CPU), since 0 is what a source that was not read (an audit Lighthouse did not
// write, a /proc entry without its line) sums to, and 0 is under every budget.
import {
  allowedAgainstReference,
  fixedPhaseSeconds,
  IMAGE_PROCESSING_PHASE,
  p95AllowanceMs,
  isMeasured,
  pushOverFixedPhases,
  type Budgets,
  type Figure,
} from "./budgets";
import type { BenchReport, NetlifyLoadFigures, LighthouseFigures, ReadBack, ReferenceFigures } from "./report";

/**
 * A figure that must be exactly what it should be, for npm run check:budgets to judge: either may be
 * missing or NaN (null in the report) where the bench did not measure it, which never matches.
 */
export interface ExactFigure {
  readonly what: string;
  readonly actual: number | null | undefined;
  readonly expected: number;
}

/**
 * What the Netlify load must show, to the unit: every one of the `inquiries` sent (budgets.json), answered
 * 201 with its repeats, stored once under a reference of its own, none lost, each repeat answered with
 * the first one's reference, each inquiry delivered exactly once.
 */
export const netlifyLoadExpectations = (figures: ReadBack<NetlifyLoadFigures>, inquiries: number): ExactFigure[] => [
  { what: "Netlify load: inquiries sent", actual: figures.invocations, expected: inquiries },
  {
    what: "Netlify load: answered 201",
    actual: figures.answers?.["201"] ?? 0,
    expected: inquiries + (figures.repeats ?? Number.NaN),
  },
  { what: "Netlify load: records in the store", actual: figures.records, expected: inquiries },
  { what: "Netlify load: unique references", actual: figures.uniqueReferences, expected: inquiries },
  { what: "Netlify load: answered 201 but not stored", actual: figures.lost, expected: 0 },
  { what: "Netlify load: stored more than once", actual: figures.duplicated, expected: 0 },
  {
    what: "Netlify load: repeats answered with the first reference",
    actual: figures.repeatsWithFirstReference,
    expected: figures.repeats ?? Number.NaN,
  },
  { what: "Netlify load: delivered exactly once", actual: figures.deliveredExactlyOnce, expected: inquiries },
  { what: "Netlify load: webhook deliveries", actual: figures.webhookDeliveries, expected: inquiries },
];

/** One gate's judgement. `actual` as printed: the figure, or why it does not count as one. */
export interface BudgetCheck {
  readonly what: string;
  readonly actual: string;
  /** The budget with its comparison, such as "<= 1000". */
  readonly limit: string;
  readonly ok: boolean;
}

const notMeasured = "not measured";

/**
 * Judges one figure. `positive`: no real run reads it as 0 or less, so such a reading is a source that
 * was not read, and fails whatever the budget.
 */
const judge = (
  what: string,
  value: Figure,
  limit: string,
  within: (measured: number) => boolean,
  positive: boolean,
): BudgetCheck => {
  if (!isMeasured(value)) return { what, actual: notMeasured, limit, ok: false };
  if (positive && value <= 0) {
    return { what, actual: `${value} (${notMeasured}: a real run reads more than 0)`, limit, ok: false };
  }
  return { what, actual: String(value), limit, ok: within(value) };
};

/** The sum of figures, or NaN (not measured) if any of them is not a number. */
const sumOf = (values: Figure[]): number =>
  values.reduce<number>((sum, value) => sum + (isMeasured(value) ? value : Number.NaN), 0);

/**
 * Each page's blocking time, largest paint and performance score against the reference page's in the same
 * rounds (budgets.json "lighthouseAgainstReference"): a machine slow for the whole bench slows the reference
 * as much as the pages, while a page that gained a long task rises above it. A reference or page that was not
 * measured fails; so does a reference that blocked 0 ms, which would mean its script did not run. A report
 * without pages fails the home page's weight, and check-budgets.ts counts lhci's runs.
 */
export const judgeAgainstReference = (
  lighthouse: ReadBack<LighthouseFigures> | undefined,
  budget: Budgets["lighthouseAgainstReference"],
): BudgetCheck[] => {
  const reference = lighthouse?.reference;
  const pages = lighthouse?.pages ?? [];
  const runsOf = (figures: (number | null)[] | undefined) => (figures ?? []).map((value) => value ?? "?").join(", ");
  type Figures = ReadBack<ReferenceFigures>;
  /** A timing in ms, which no real run of the reference reads as 0. */
  const timing = (
    name: string,
    of: (figures: Figures) => number | null | undefined,
    runs: (figures: Figures) => (number | null)[] | undefined,
    { ratio, allowanceMs }: { ratio: number; allowanceMs: number },
  ) => ({ name, of, runs, ratio, allowance: allowanceMs, referencePositive: true });
  const shortOf100 = (score: number | null | undefined) => (isMeasured(score) ? 100 - score : score);
  const metrics = [
    timing(
      "total blocking time (ms)",
      (figures) => figures.totalBlockingTimeMs,
      (figures) => figures.totalBlockingTimeRunsMs,
      budget.totalBlockingTime,
    ),
    timing(
      "largest contentful paint (ms)",
      (figures) => figures.largestContentfulPaintMs,
      (figures) => figures.largestContentfulPaintRunsMs,
      budget.largestContentfulPaint,
    ),
    {
      name: "performance score, short of 100",
      of: (figures: Figures) => shortOf100(figures.performance),
      runs: (figures: Figures) => figures.performanceRuns?.map((score) => shortOf100(score) ?? null),
      ratio: budget.performanceShortfall.ratio,
      allowance: budget.performanceShortfall.allowance,
      referencePositive: false,
    },
  ];
  const checks: BudgetCheck[] = [];
  for (const metric of metrics) {
    const referenceValue = reference ? metric.of(reference) : undefined;
    const usable = isMeasured(referenceValue) && (!metric.referencePositive || referenceValue > 0);
    const what = `Lighthouse reference page ${metric.name}, median of ${runsOf(reference ? metric.runs(reference) : undefined)}`;
    checks.push(judge(what, referenceValue, "measured", () => true, metric.referencePositive));
    for (const page of pages) {
      const limit = usable ? allowedAgainstReference(referenceValue, metric.ratio, metric.allowance) : Number.NaN;
      const pageWhat = `Lighthouse ${page.path} ${metric.name}, median of ${runsOf(metric.runs(page))}`;
      const limitText = usable
        ? `<= ${Number(limit.toFixed(1))}: reference ${referenceValue} x ${metric.ratio} + ${metric.allowance}`
        : `<= reference x ${metric.ratio} + ${metric.allowance} (reference ${notMeasured})`;
      const value = metric.of(page);
      checks.push(
        usable
          ? judge(pageWhat, value, limitText, (measured) => measured <= limit, false)
          : { what: pageWhat, actual: isMeasured(value) ? String(value) : notMeasured, limit: limitText, ok: false },
      );
    }
  }
  return checks;
};

/** The gates on reports/bench.json other than lhci's, in the order npm run check:budgets prints them. */
export const judgeBenchReport = (report: ReadBack<BenchReport>, budgets: Budgets): BudgetCheck[] => {
  const checks: BudgetCheck[] = [];
  const atMost = (what: string, value: Figure, limit: number, { positive = false } = {}) =>
    checks.push(judge(what, value, `<= ${limit}`, (measured) => measured <= limit, positive));
  const atLeast = (what: string, value: Figure, limit: number) =>
    checks.push(judge(what, value, `>= ${limit}`, (measured) => measured >= limit, false));
  const exactly = (what: string, value: Figure, expected: Figure) =>
    checks.push(
      isMeasured(expected)
        ? judge(what, value, `= ${expected}`, (measured) => measured === expected, false)
        : { what, actual: isMeasured(value) ? String(value) : notMeasured, limit: `= ? (${notMeasured})`, ok: false },
    );
  const measured = (what: string, value: Figure) => checks.push(judge(what, value, "> 0", () => true, true));
  /** A part of the bench whose figures the report lacks altogether. */
  const unmeasured = (what: string) => checks.push({ what, actual: notMeasured, limit: "measured", ok: false });

  const home = report.lighthouse?.pages?.find((page) => page.path === "/");
  const homeBytes = home?.javaScriptGzipBytes;
  atMost(
    "/ JavaScript (KB gzip)",
    isMeasured(homeBytes) ? Number((homeBytes / 1024).toFixed(1)) : homeBytes,
    budgets.homeJavaScriptGzipKb,
    { positive: true },
  );
  checks.push(...judgeAgainstReference(report.lighthouse, budgets.lighthouseAgainstReference));

  // Every page of the build, against itself without scripts. A run that weighed no page, or a page as
  // nothing, has not measured it.
  const pageBytes = report.pageBytes ?? [];
  if (pageBytes.length === 0) {
    unmeasured("page bytes against no scripts (bench/page-bytes.ts)");
  }
  for (const page of pageBytes) {
    const scriptFree = page.scriptBytes === 0;
    const limit = scriptFree
      ? budgets.pageBytesRatio.scriptFree
      : (budgets.pageBytesRatio.withScriptByPage[page.path ?? ""] ?? budgets.pageBytesRatio.withScript);
    measured(`${page.path} transfer bytes without scripts`, page.noScriptBytes);
    atMost(
      `${page.path} transfer bytes against the page without scripts (x, ${scriptFree ? "no script" : "with script"})`,
      isMeasured(page.bytes) && isMeasured(page.noScriptBytes) && page.noScriptBytes > 0
        ? Number((page.bytes / page.noScriptBytes).toFixed(2))
        : null,
      limit,
      { positive: true },
    );
  }

  // Every count is held to budgets.json's, not to what the run says it sent: a run made with
  // LOAD_SUBMISSIONS=0 is exact in itself, and would pass every gate on nothing.
  const { concurrent, refused, flood } = report.inquiryLoad ?? {};
  const { submissions, refusedRequests } = budgets.inquiryLoad;
  exactly("inquiry load: concurrent submissions sent (LOAD_SUBMISSIONS)", concurrent?.submissions, submissions);
  exactly("inquiry load: accepted", concurrent?.accepted, submissions);
  exactly("inquiry load: records in the outbox", concurrent?.recordsStored, submissions);
  exactly("inquiry load: submissions stored exactly once", concurrent?.storedExactlyOnce, submissions);
  exactly("inquiry load: unique references", concurrent?.uniqueReferences, submissions);
  exactly("inquiry load: webhook deliveries", concurrent?.webhookDeliveries, submissions);
  exactly("inquiry load: email deliveries", concurrent?.emailDeliveries, submissions);
  exactly("inquiry load: delivered exactly once by email and webhook", concurrent?.deliveredOnceBoth, submissions);
  atMost("inquiry load: p95 latency (ms)", concurrent?.p95Ms, budgets.inquiryLoadP95Ms, { positive: true });

  exactly("refused requests: requests per round (LOAD_REFUSED)", refused?.requests, refusedRequests);
  exactly("refused requests: records stored", refused?.recordsStored, 0);
  const statuses = Object.entries(refused?.statuses ?? {});
  exactly(
    "refused requests: answered 4xx",
    statuses.length === 0
      ? undefined
      : sumOf(statuses.filter(([status]) => Number(status) >= 400 && Number(status) < 500).map(([, count]) => count)),
    2 * refusedRequests,
  );
  // The server's memory before, between and after the rounds: RSS read from /proc, and what it holds after
  // a full collection. The growth judged is a difference of two of the latter, and two unread figures
  // differ by 0 MB.
  measured("refused requests: server RSS before the rounds (MB)", refused?.rssBeforeMb);
  measured("refused requests: server RSS after the first round (MB)", refused?.rssAfterFirstMb);
  measured("refused requests: server RSS after the second round (MB)", refused?.rssAfterMb);
  measured("refused requests: memory held before the rounds (MB)", refused?.liveBeforeMb);
  measured("refused requests: memory held after the first round (MB)", refused?.liveAfterFirstMb);
  measured("refused requests: memory held after the second round (MB)", refused?.liveAfterMb);
  atMost(
    "refused requests: memory held, growth over the second round (MB)",
    refused?.liveGrowthMb,
    budgets.refusedLiveGrowthMb,
  );
  atMost("refused requests: CPU per request (ms)", refused?.cpuMsPerRequest, budgets.refusedCpuMsPerRequest, {
    positive: true,
  });
  atLeast("refused requests: GET / loads timed meanwhile", refused?.homeDuringBurstSamples, 1);
  atMost("refused requests: GET / p50 meanwhile (ms)", refused?.homeDuringBurstP50Ms, budgets.homeDuringBurstP50Ms, {
    positive: true,
  });

  const floodLimit = isMeasured(flood?.limit) && flood.limit > 0 ? flood.limit : undefined;
  exactly("rate limit flood: accepted", flood?.accepted, floodLimit);
  exactly(
    "rate limit flood: refused with 429",
    flood?.refused,
    isMeasured(flood?.submissions) && floodLimit !== undefined ? flood.submissions - floodLimit : undefined,
  );
  exactly("rate limit flood: records in the outbox", flood?.recordsStored, floodLimit);
  atLeast("rate limit flood: Retry-After (s)", flood?.retryAfterSeconds, 1);

  // A push deployed on the single server: what an editor waits for, and what visitors feel meanwhile.
  const { deploy } = report;
  if (deploy) {
    // What the editor waits for, in seconds, and judged against the same build's fixed phases.
    for (const [push, seconds, phases, ratio] of [
      [
        "a content-only push",
        deploy.webhookToLiveSeconds,
        deploy.contentPushPhases,
        budgets.deploy.contentPushOverFixedPhases,
      ],
      ["a push of server code", deploy.codePushSeconds, deploy.codePushPhases, budgets.deploy.codePushOverFixedPhases],
    ] as const) {
      measured(`deploy: webhook to live, ${push} (s)`, seconds);
      measured(`deploy: Gatsby's fixed phases in the build of ${push} (s)`, fixedPhaseSeconds(phases));
      atMost(
        `deploy: webhook to live, ${push}, against its build's fixed phases (x)`,
        pushOverFixedPhases(seconds, phases),
        ratio,
        { positive: true },
      );
      // Gatsby logs the phase only when there are jobs: a build without it processed no image.
      exactly(
        `deploy: images processed in the build of ${push} (s)`,
        phases === undefined ? null : (phases[IMAGE_PROCESSING_PHASE] ?? 0),
        budgets.deploy.imageProcessingSeconds,
      );
    }
    atMost("deploy: GET / p99 through a switch (ms)", deploy.throughSwitch?.p99Ms, budgets.deploy.switchP99Ms, {
      positive: true,
    });
    atMost(
      "deploy: GET / slowest answer through a switch (ms)",
      deploy.throughSwitch?.maxMs,
      budgets.deploy.slowestAnswerMs,
      {
        positive: true,
      },
    );
    measured("deploy: GET / p95 idle (ms)", deploy.idle?.p95Ms);
    const idleP95 = deploy.idle?.p95Ms;
    // What runs beside the server in a release, good or failed, is held to the same budgets. The short phases
    // give few answers, so their p95 may also exceed idle's by a floor (budgets.json says why).
    const { duringBuildP95Ratio: ratio, shortPhaseFloorMs: floorMs } = budgets.deploy;
    const idleMeasured = isMeasured(idleP95) && idleP95 > 0;
    atMost(
      "deploy: GET / p95 during the build, against idle (x)",
      idleMeasured && isMeasured(deploy.duringBuild?.p95Ms)
        ? Number((deploy.duringBuild.p95Ms / idleP95).toFixed(2))
        : null,
      ratio,
      { positive: true },
    );
    const shortPhases = [
      ["while a release fails and is removed", deploy.duringFailedRelease],
      ["while older releases are pruned", deploy.duringPrune],
    ] as const;
    const allowedMs = idleMeasured ? Number(p95AllowanceMs(idleP95, ratio, floorMs).toFixed(1)) : 0;
    for (const [when, latency] of shortPhases) {
      atMost(
        `deploy: GET / p95 ${when}, against ${ratio}x idle or idle + ${floorMs} ms (ms)`,
        idleMeasured ? latency?.p95Ms : null,
        allowedMs,
        { positive: true },
      );
    }
    for (const [when, latency] of [["during the build", deploy.duringBuild], ...shortPhases] as const) {
      atMost(`deploy: GET / slowest answer ${when} (ms)`, latency?.maxMs, budgets.deploy.slowestAnswerMs, {
        positive: true,
      });
    }
    atMost("deploy: the build's peak memory (MB)", deploy.buildPeakMemoryMb, budgets.deploy.buildPeakMemoryMb, {
      positive: true,
    });
  } else {
    unmeasured("deploy (npm run bench:deploy)");
  }

  if (report.netlifyLoad) {
    for (const { what, actual, expected } of netlifyLoadExpectations(report.netlifyLoad, budgets.netlifyLoad.inquiries))
      exactly(what, actual, expected);
  } else {
    unmeasured("Netlify load (npm run bench:netlify)");
  }
  return checks;
};
