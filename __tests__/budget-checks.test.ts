/**
 * @jest-environment node
 */
import { judgeAgainstReference, judgeBenchReport, type BudgetCheck } from "../bench/budget-checks";
import { readBudgets } from "../bench/budgets";
import { siteFilesLoaded, type LighthouseResult } from "../bench/lighthouse";
import type { BenchReport, ReadBack } from "../bench/report";
import { measuredBenchReport, plantedLighthouse } from "./fixtures/bench-report";

// The gates npm run check:budgets applies to reports/bench.json besides lhci's, with budgets.json as it is.
const budgets = readBudgets();

const measured = measuredBenchReport;

const failed = (report: ReadBack<BenchReport>): Pick<BudgetCheck, "what" | "actual">[] =>
  judgeBenchReport(report, budgets)
    .filter((check) => !check.ok)
    .map(({ what, actual }) => ({ what, actual }));

const withHome = (javaScriptGzipBytes: number | null | undefined): ReadBack<BenchReport> => ({
  ...measured,
  lighthouse: {
    ...measured.lighthouse,
    pages: measured.lighthouse.pages.map((figures) =>
      figures.path === "/" ? { ...figures, javaScriptGzipBytes } : figures,
    ),
  },
});

const withRefused = (figures: Partial<ReadBack<BenchReport["inquiryLoad"]["refused"]>>): ReadBack<BenchReport> => ({
  ...measured,
  inquiryLoad: { ...measured.inquiryLoad, refused: { ...measured.inquiryLoad.refused, ...figures } },
});

describe("the gates of npm run check:budgets on reports/bench.json", () => {
  it("pass a run that measured every figure within its budget", () => {
    const checks = judgeBenchReport(measured, budgets);
    expect(checks.length).toBeGreaterThan(30);
    expect(checks.filter((check) => !check.ok)).toEqual([]);
    expect(checks[0]).toEqual({ what: "/ JavaScript (KB gzip)", actual: "97", limit: "<= 100", ok: true });
  });

  it("fail the home page's JavaScript weight when it was not measured, instead of passing 0 KB", () => {
    const notMeasured = [{ what: "/ JavaScript (KB gzip)", actual: "not measured" }];
    expect(failed(withHome(undefined))).toEqual(notMeasured);
    expect(failed(withHome(null))).toEqual(notMeasured);
    expect(failed(withHome(Number.NaN))).toEqual(notMeasured);
    expect(failed(withHome(0))).toEqual([
      { what: "/ JavaScript (KB gzip)", actual: "0 (not measured: a real run reads more than 0)" },
    ]);
    expect(failed({ ...measured, lighthouse: { ...measured.lighthouse, pages: [] } })).toEqual(notMeasured);
  });

  it("fail memory and CPU read as 0 or not at all from /proc, whatever their budgets", () => {
    expect(failed(withRefused({ rssAfterFirstMb: 0, rssAfterMb: 0, liveAfterMb: 0, liveGrowthMb: 0 }))).toEqual([
      {
        what: "refused requests: server RSS after the first round (MB)",
        actual: "0 (not measured: a real run reads more than 0)",
      },
      {
        what: "refused requests: server RSS after the second round (MB)",
        actual: "0 (not measured: a real run reads more than 0)",
      },
      {
        what: "refused requests: memory held after the second round (MB)",
        actual: "0 (not measured: a real run reads more than 0)",
      },
    ]);
    expect(failed(withRefused({ rssBeforeMb: null, liveGrowthMb: null, cpuMsPerRequest: null }))).toEqual([
      { what: "refused requests: server RSS before the rounds (MB)", actual: "not measured" },
      { what: "refused requests: memory held, growth over the second round (MB)", actual: "not measured" },
      { what: "refused requests: CPU per request (ms)", actual: "not measured" },
    ]);
    expect(failed(withRefused({ cpuMsPerRequest: 0 }))).toEqual([
      { what: "refused requests: CPU per request (ms)", actual: "0 (not measured: a real run reads more than 0)" },
    ]);
    expect(failed(withRefused({ homeDuringBurstSamples: 0, homeDuringBurstP50Ms: null }))).toEqual([
      { what: "refused requests: GET / loads timed meanwhile", actual: "0" },
      { what: "refused requests: GET / p50 meanwhile (ms)", actual: "not measured" },
    ]);
  });

  it("fail memory held that grew over the second round of refused requests, whatever RSS did", () => {
    expect(failed(withRefused({ liveAfterMb: 37.5, liveGrowthMb: 1.16, rssAfterMb: 159.3 }))).toEqual([
      { what: "refused requests: memory held, growth over the second round (MB)", actual: "1.16" },
    ]);
    expect(failed(withRefused({ rssAfterMb: 185.7 }))).toEqual([]);
  });

  it("hold the inquiry load to budgets.json's counts, so a smaller run exact in itself fails", () => {
    expect(budgets.inquiryLoad).toMatchObject({ submissions: 200, refusedRequests: 2000 });
    // What LOAD_SUBMISSIONS=0 LOAD_REFUSED=0 writes: every count agrees with the others, and nothing was timed.
    const nothing: ReadBack<BenchReport> = {
      ...measured,
      inquiryLoad: {
        ...measured.inquiryLoad,
        concurrent: {
          ...measured.inquiryLoad.concurrent,
          submissions: 0,
          accepted: 0,
          recordsStored: 0,
          storedExactlyOnce: 0,
          uniqueReferences: 0,
          webhookDeliveries: 0,
          emailDeliveries: 0,
          deliveredOnceBoth: 0,
          p95Ms: null,
        },
        refused: { ...measured.inquiryLoad.refused, requests: 0, statuses: {} },
      },
    };
    expect(failed(nothing).map(({ what }) => what)).toEqual([
      "inquiry load: concurrent submissions sent (LOAD_SUBMISSIONS)",
      "inquiry load: accepted",
      "inquiry load: records in the outbox",
      "inquiry load: submissions stored exactly once",
      "inquiry load: unique references",
      "inquiry load: webhook deliveries",
      "inquiry load: email deliveries",
      "inquiry load: delivered exactly once by email and webhook",
      "inquiry load: p95 latency (ms)",
      "refused requests: requests per round (LOAD_REFUSED)",
      "refused requests: answered 4xx",
    ]);
    expect(failed(withRefused({ statuses: { "400": 1000, "405": null, "415": 1000, "422": 1000 } }))).toEqual([
      { what: "refused requests: answered 4xx", actual: "not measured" },
    ]);
  });

  it("fail every gate of a part the report does not hold", () => {
    const { netlifyLoad: _netlifyLoad, ...withoutNetlifyLoad } = measured;
    expect(failed(withoutNetlifyLoad)).toEqual([
      { what: "Netlify load (npm run bench:netlify)", actual: "not measured" },
    ]);
    const inquiryGates = judgeBenchReport(measured, budgets)
      .map(({ what }) => what)
      .filter((what) => /^(inquiry load|refused requests|rate limit flood):/.test(what));
    expect(inquiryGates).toHaveLength(26);
    expect(failed({ ...measured, inquiryLoad: undefined })).toEqual(
      inquiryGates.map((what) => ({ what, actual: "not measured" })),
    );
    expect(failed({ ...measured, inquiryLoad: { ...measured.inquiryLoad, flood: { limit: null } } })).toEqual([
      { what: "rate limit flood: accepted", actual: "not measured" },
      { what: "rate limit flood: refused with 429", actual: "not measured" },
      { what: "rate limit flood: records in the outbox", actual: "not measured" },
      { what: "rate limit flood: Retry-After (s)", actual: "not measured" },
    ]);
  });
});

describe("the page-bytes gates of npm run check:budgets", () => {
  const withPage = (path: string, bytes: number, scriptBytes: number, noScriptBytes: number) => ({
    ...measured,
    pageBytes: [
      ...measured.pageBytes.filter((page) => page.path !== path),
      { path, bytes, scriptBytes, noScriptBytes, ratio: 0 },
    ],
  });

  it("hold a page that ships no script to 1.2x the page without scripts", () => {
    expect(failed(withPage("/about/", 20_400, 0, 17_000))).toEqual([]);
    expect(failed(withPage("/about/", 20_500, 0, 17_000))).toEqual([
      { what: "/about/ transfer bytes against the page without scripts (x, no script)", actual: "1.21" },
    ]);
  });

  it("hold a page that runs the app to 2x, or to the figure budgets.json records for it", () => {
    expect(failed(withPage("/services/", 34_000, 17_000, 17_000))).toEqual([]);
    expect(failed(withPage("/services/", 35_000, 18_000, 17_000))).toEqual([
      { what: "/services/ transfer bytes against the page without scripts (x, with script)", actual: "2.06" },
    ]);
    const homeLimit = budgets.pageBytesRatio.withScriptByPage["/"]!;
    expect(failed(withPage("/", Math.round(30_000 * homeLimit), 90_000, 30_000))).toEqual([]);
    expect(failed(withPage("/", Math.round(30_000 * homeLimit) + 600, 90_000, 30_000))).toHaveLength(1);
  });

  it("fail a run that weighed no page, or a page as nothing", () => {
    expect(failed({ ...measured, pageBytes: [] })).toEqual([
      { what: "page bytes against no scripts (bench/page-bytes.ts)", actual: "not measured" },
    ]);
    expect(failed(withPage("/about/", 17_000, 0, 0))).toEqual([
      { what: "/about/ transfer bytes without scripts", actual: "0 (not measured: a real run reads more than 0)" },
      { what: "/about/ transfer bytes against the page without scripts (x, no script)", actual: "not measured" },
    ]);
  });
});

describe("the weight of a page's JavaScript, from Lighthouse's network-requests audit", () => {
  const run = (items?: { url: string; resourceType?: string }[]): LighthouseResult => ({
    finalUrl: "http://localhost:9000/",
    lighthouseVersion: "12.6.1",
    environment: { hostUserAgent: "Chrome/156" },
    categories: {
      performance: { score: 1 },
      accessibility: { score: 1 },
      "best-practices": { score: 1 },
      seo: { score: 1 },
    },
    audits: items ? { "network-requests": { details: { items } } } : {},
  });

  it("counts the site's own scripts and style sheets, not other origins'", () => {
    expect(
      siteFilesLoaded(
        run([
          { url: "http://localhost:9000/", resourceType: "Document" },
          { url: "http://localhost:9000/app-1.js", resourceType: "Script" },
          { url: "http://localhost:9000/styles.css", resourceType: "Stylesheet" },
          { url: "http://elsewhere.example/tracker.js", resourceType: "Script" },
        ]),
      ),
    ).toEqual({ scripts: ["http://localhost:9000/app-1.js"], stylesheets: ["http://localhost:9000/styles.css"] });
  });

  it("refuses a run without the audit, or whose resource types no longer say Script, instead of weighing 0 KB", () => {
    expect(() => siteFilesLoaded(run())).toThrow(
      "Lighthouse's run of http://localhost:9000/ has no network-requests audit: its JavaScript cannot be weighed.",
    );
    expect(() =>
      siteFilesLoaded(
        run([
          { url: "http://localhost:9000/", resourceType: "Document" },
          { url: "http://localhost:9000/app-1.js", resourceType: "JavaScript" },
        ]),
      ),
    ).toThrow(
      "Lighthouse's run of http://localhost:9000/ lists no request of resourceType Script from http://localhost:9000 " +
        "(its 2 requests from there are of the types Document, JavaScript): its JavaScript cannot be weighed.",
    );
  });

  it("weighs no script for a page that ships none, and still its style sheets", () => {
    expect(
      siteFilesLoaded(
        run([
          { url: "http://localhost:9000/", resourceType: "Document" },
          { url: "http://localhost:9000/styles.css", resourceType: "Stylesheet" },
        ]),
        { shipsScripts: false },
      ),
    ).toEqual({ scripts: [], stylesheets: ["http://localhost:9000/styles.css"] });
  });
});

describe("the deploy gates of npm run check:budgets", () => {
  const deployChecks = (deploy: unknown) =>
    judgeBenchReport({ ...measured, deploy } as typeof measured, budgets).filter((check) =>
      check.what.startsWith("deploy"),
    );

  it("pass a deploy within its budgets, and fail one whose site slowed down more than 3x during the build", () => {
    expect(deployChecks(measured.deploy).every((check) => check.ok)).toBe(true);
    const slow = deployChecks({
      ...measured.deploy,
      duringBuild: { p50Ms: 9, p95Ms: 30, p99Ms: 40, maxMs: 50, requests: 1000 },
    });
    expect(slow.filter((check) => !check.ok)).toEqual([
      { what: "deploy: GET / p95 during the build, against idle (x)", actual: "4.62", limit: "<= 3", ok: false },
    ]);
  });

  it("judge a push's webhook to live against its own build's fixed phases, so the images processed again fail it", () => {
    const { deploy: measuredDeploy } = measured;
    if (!measuredDeploy) throw new Error("the fixture has no deploy figures");
    const failed = (deploy: object) =>
      deployChecks({ ...measured.deploy, ...deploy })
        .filter((check) => !check.ok)
        .map(({ what, actual, limit }) => [what, actual, limit]);
    // A machine half as fast for the whole run: every phase and the wait twice as long.
    const doubled = (phases: Readonly<Record<string, number>>) =>
      Object.fromEntries(Object.entries(phases).map(([phase, seconds]) => [phase, seconds * 2]));
    expect(
      failed({
        webhookToLiveSeconds: 42,
        codePushSeconds: 59.4,
        contentPushPhases: doubled(measuredDeploy.contentPushPhases),
        codePushPhases: doubled(measuredDeploy.codePushPhases),
      }),
    ).toEqual([]);
    // The content push that spent 33 s processing the site's images again, on the same machine.
    expect(
      failed({
        webhookToLiveSeconds: 54,
        contentPushPhases: {
          ...measuredDeploy.contentPushPhases,
          "Running gatsby-plugin-sharp.IMAGE_PROCESSING jobs": 33,
        },
      }),
    ).toEqual([
      ["deploy: webhook to live, a content-only push, against its build's fixed phases (x)", "5.35", "<= 3"],
      ["deploy: images processed in the build of a content-only push (s)", "33", "= 0"],
    ]);
    // The code push that processed images again for 9.9 s: its ratio (2.54 here, 3.06 on that run) hides it.
    expect(
      failed({
        codePushSeconds: 29.7,
        codePushPhases: { ...measuredDeploy.codePushPhases, "Running gatsby-plugin-sharp.IMAGE_PROCESSING jobs": 9.9 },
      }),
    ).toEqual([["deploy: images processed in the build of a push of server code (s)", "9.9", "= 0"]]);
    // A phase renamed by a Gatsby upgrade is a sum that cannot be taken, not a smaller one.
    const { "Building HTML renderer": renamed, ...withoutOne } = measuredDeploy.codePushPhases;
    expect(renamed).toBeGreaterThan(0);
    expect(failed({ codePushPhases: withoutOne })).toEqual([
      ["deploy: Gatsby's fixed phases in the build of a push of server code (s)", "not measured", "> 0"],
      ["deploy: webhook to live, a push of server code, against its build's fixed phases (x)", "not measured", "<= 3"],
    ]);
  });

  it("allow a short phase's p95 idle's plus the floor, where one hiccup sets it, and no more", () => {
    const idle = { p50Ms: 4.6, p95Ms: 8.5, p99Ms: 18.7, maxMs: 22.3, requests: 180 };
    const failing = (p95Ms: number) =>
      deployChecks({
        ...measured.deploy,
        idle,
        duringFailedRelease: { p50Ms: 6.2, p95Ms, p99Ms: 38.1, maxMs: 38.1, requests: 79 },
      }).filter((check) => !check.ok);
    expect(failing(31.5)).toEqual([]);
    expect(failing(60)).toEqual([
      {
        what: "deploy: GET / p95 while a release fails and is removed, against 3x idle or idle + 50 ms (ms)",
        actual: "60",
        limit: "<= 58.5",
        ok: false,
      },
    ]);
  });

  it("fail a deploy whose failed release or pruning made one visitor wait, however fast the rest were", () => {
    const stalled = deployChecks({
      ...measured.deploy,
      duringFailedRelease: { p50Ms: 3.9, p95Ms: 9.8, p99Ms: 17.6, maxMs: 2812.5, requests: 214 },
      duringPrune: { p50Ms: 3.6, p95Ms: 8.4, p99Ms: 12.2, maxMs: 1450, requests: 96 },
    });
    expect(stalled.filter((check) => !check.ok).map((check) => [check.what, check.actual])).toEqual([
      ["deploy: GET / slowest answer while a release fails and is removed (ms)", "2812.5"],
      ["deploy: GET / slowest answer while older releases are pruned (ms)", "1450"],
    ]);
  });

  it("fail a deploy that was not measured, or whose idle figure is missing, instead of a ratio of nothing", () => {
    expect(deployChecks(undefined)).toEqual([
      { what: "deploy (npm run bench:deploy)", actual: "not measured", limit: "measured", ok: false },
    ]);
    const noIdle = deployChecks({ ...measured.deploy, idle: { p50Ms: null, p95Ms: null, requests: 0 } });
    expect(noIdle.filter((check) => !check.ok).map((check) => check.what)).toEqual([
      "deploy: GET / p95 idle (ms)",
      "deploy: GET / p95 during the build, against idle (x)",
      "deploy: GET / p95 while a release fails and is removed, against 3x idle or idle + 50 ms (ms)",
      "deploy: GET / p95 while older releases are pruned, against 3x idle or idle + 50 ms (ms)",
    ]);
  });
});

describe("the Lighthouse gates against the reference page, measured in the same rounds", () => {
  const against = budgets.lighthouseAgainstReference;
  const verdicts = (lighthouse: ReadBack<BenchReport["lighthouse"]> | undefined) =>
    judgeAgainstReference(lighthouse, against).map((check) => [check.what.replace(/, median of .*/, ""), check.ok]);
  const failing = (lighthouse: ReadBack<BenchReport["lighthouse"]> | undefined) =>
    judgeAgainstReference(lighthouse, against)
      .filter((check) => !check.ok)
      .map((check) => `${check.what.replace(/, median of .*/, "")}: ${check.actual}`);

  it("pass the pages of a real run, each judged against the reference's median of the same rounds", () => {
    expect(failing(measured.lighthouse)).toEqual([]);
    expect(verdicts(measured.lighthouse)).toHaveLength(3 * (1 + measured.lighthouse.pages.length));
  });

  it("fail the page of a real run that had a 300 ms busy loop planted, and no other page", () => {
    expect(failing(plantedLighthouse)).toEqual([
      "Lighthouse /contact/ total blocking time (ms): 1496",
      "Lighthouse /contact/ largest contentful paint (ms): 2089",
      "Lighthouse /contact/ performance score, short of 100: 26",
    ]);
    // The same page without the loop, in the run before, passed with room to spare.
    const contact = judgeAgainstReference(measured.lighthouse, against).find((check) =>
      check.what.startsWith("Lighthouse /contact/ total blocking time"),
    );
    expect(contact).toMatchObject({ actual: "285", limit: "<= 544.5: reference 889 x 0.5 + 100", ok: true });
  });

  it("allow a page at most the reference times the ratio plus the allowance, and not one millisecond more", () => {
    const reference = measured.lighthouse.reference!;
    const limit =
      reference.totalBlockingTimeMs * against.totalBlockingTime.ratio + against.totalBlockingTime.allowanceMs;
    const contactAt = (totalBlockingTimeMs: number) => ({
      ...measured.lighthouse,
      pages: measured.lighthouse.pages.map((page) =>
        page.path === "/contact/" ? { ...page, totalBlockingTimeMs } : page,
      ),
    });
    expect(failing(contactAt(limit))).toEqual([]);
    expect(failing(contactAt(limit + 1))).toEqual([`Lighthouse /contact/ total blocking time (ms): ${limit + 1}`]);
  });

  it("fail every page when the reference was not measured, or blocked 0 ms, which only a script that did not run gives", () => {
    const pages = measured.lighthouse.pages.length;
    expect(failing({ ...measured.lighthouse, reference: null })).toHaveLength(3 + 3 * pages);
    expect(failing(undefined)).toHaveLength(3);
    const idle = { ...measured.lighthouse.reference!, totalBlockingTimeMs: 0 };
    expect(failing({ ...measured.lighthouse, reference: idle })).toEqual([
      "Lighthouse reference page total blocking time (ms): 0 (not measured: a real run reads more than 0)",
      ...measured.lighthouse.pages.map(
        (page) => `Lighthouse ${page.path} total blocking time (ms): ${page.totalBlockingTimeMs}`,
      ),
    ]);
  });
});
