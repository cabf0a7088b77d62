/** @jest-environment node */
import { median } from "../bench/lighthouse";
import fs from "node:fs";
import path from "node:path";
import { PERFORMANCE_GUIDE, withBenchFigures } from "../bench/readme";
import type { BenchReport } from "../bench/report";
import { measuredBenchReport } from "./fixtures/bench-report";

const report: BenchReport = {
  date: "2026-11-23T09:15:00.000Z",
  machine: "linux x64, 2 cores, node v20.19.0",
  buildSeconds: 54.3,
  pageBytes: measuredBenchReport.pageBytes,
  lighthouse: {
    lighthouseVersion: "12.6.1",
    chromeVersion: "156",
    pages: [
      {
        path: "/",
        runs: 5,
        performance: 99,
        accessibility: 100,
        bestPractices: 100,
        seo: 100,
        largestContentfulPaintMs: 771,
        cumulativeLayoutShift: 0,
        totalBlockingTimeMs: 94,
        performanceRuns: [99, 99, 98, 100, 99],
        largestContentfulPaintRunsMs: [771, 760, 790, 771, 772],
        totalBlockingTimeRunsMs: [94, 80, 120, 94, 101],
        javaScriptGzipBytes: 101_478,
        cssGzipBytes: 3_686,
      },
      {
        path: "/contact/",
        runs: 5,
        performance: 100,
        accessibility: 100,
        bestPractices: 96,
        seo: 100,
        largestContentfulPaintMs: 1_207,
        cumulativeLayoutShift: 0.0123,
        totalBlockingTimeMs: 88,
        performanceRuns: [100, 100, 100, 100, 100],
        largestContentfulPaintRunsMs: [1_207, 1_190, 1_250, 1_207, 1_220],
        totalBlockingTimeRunsMs: [88, 70, 88, 95, 90],
        javaScriptGzipBytes: 99_328,
        cssGzipBytes: 3_072,
      },
    ],
    reference: measuredBenchReport.lighthouse.reference,
  },
  inquiryLoad: {
    concurrent: {
      submissions: 200,
      accepted: 200,
      seconds: 0.69,
      requestsPerSecond: 291,
      p50Ms: 486,
      p95Ms: 608,
      maxMs: 611,
      recordsStored: 200,
      storedExactlyOnce: 200,
      uniqueReferences: 199,
      webhookDeliveries: 200,
      emailDeliveries: 198,
      deliveredOnceBoth: 198,
      allDeliveredSeconds: 6.27,
    },
    // The memory, CPU and flood figures of a passing run.
    refused: measuredBenchReport.inquiryLoad.refused,
    flood: measuredBenchReport.inquiryLoad.flood,
  },
};

const guide = `# Performance

<!-- bench:lighthouse -->
old table
<!-- /bench:lighthouse -->

Budgets: written by hand.

<!-- bench:inquiry-load -->
old paragraph
<!-- /bench:inquiry-load -->

Before: written by hand.
`;

const expected = `# Performance

<!-- bench:lighthouse -->
Measured with \`npm run bench\` (linux x64, 2 cores, node v20.19.0; Chromium 156, Lighthouse 12.6.1 with lighthouserc.js's settings, mobile preset: emulated phone, simulated slow 4G, 4× CPU slowdown; median of 5 runs per page):

| page | performance | accessibility | best practices | SEO | LCP | CLS | TBT | JS (gzip) | CSS (gzip) |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
| \`/\` | 99 | 100 | 100 | 100 | 0.77 s | 0.000 | 94 ms | 99.1 KB | 3.6 KB |
| \`/contact/\` | 100 | 100 | 96 | 100 | 1.21 s | 0.012 | 88 ms | 97.0 KB | 3.0 KB |

Clean build: 54.3 s.
<!-- /bench:lighthouse -->

Budgets: written by hand.

<!-- bench:inquiry-load -->
Inquiry load (the same run; production server on loopback, email to an SMTP server and a webhook receiver on loopback): 200 concurrent valid submissions, 200 accepted in 0.69 s, latency p50 486 ms, p95 608 ms; the outbox held 200 records (200 submissions stored exactly once, 199 unique references); the worker delivered 198 emails and 200 webhook calls, 198 inquiries exactly once by both, all within 6.27 s of the first submission. Two rounds of 2,000 requests that must be refused (GETs, invalid fields, a wrong content type, malformed JSON): 0.79 ms of server CPU each; memory held after a full collection 34.85 → 36.34 MB over the first round and −0.36 MB over the second (RSS 115.1 → 159.3 → 153.6 MB); \`GET /\` p50 62.9 ms meanwhile, 0 stored. A flood of 30 from one client at the default limit (5 per 600 s): 5 accepted and 5 stored, 25 refused with 429 and \`Retry-After: 600\`.
<!-- /bench:inquiry-load -->

Before: written by hand.
`;

describe("the performance guide's figures from reports/bench.json", () => {
  it("writes the Lighthouse table and the inquiry load figures between the markers, and nothing else", () => {
    expect(withBenchFigures(guide, report)).toBe(expected);
  });

  it("gives the same guide when run twice on the same report", () => {
    expect(withBenchFigures(withBenchFigures(guide, report), report)).toBe(expected);
  });

  it("writes memory growth with its sign", () => {
    const growing = { ...report.inquiryLoad, refused: { ...report.inquiryLoad.refused, liveGrowthMb: 1.5 } };
    expect(withBenchFigures(guide, { ...report, inquiryLoad: growing })).toContain(
      "36.34 MB over the first round and +1.5 MB over the second",
    );
  });

  it("refuses a guide without a marker pair, or with a marker twice", () => {
    expect(() => withBenchFigures(guide.replace("<!-- /bench:inquiry-load -->", ""), report)).toThrow(
      "docs/performance.md needs one <!-- bench:inquiry-load --> … <!-- /bench:inquiry-load --> pair",
    );
    expect(() => withBenchFigures(`${guide}\n<!-- bench:lighthouse -->\n`, report)).toThrow(
      "<!-- bench:lighthouse -->",
    );
  });
});

describe("where npm run bench:readme writes", () => {
  it("is docs/performance.md, which has both marker pairs, and no longer the README", () => {
    const root = path.join(__dirname, "..");
    expect(PERFORMANCE_GUIDE).toBe("docs/performance.md");
    const performanceGuide = fs.readFileSync(path.join(root, PERFORMANCE_GUIDE), "utf8");
    for (const name of ["lighthouse", "inquiry-load"]) {
      expect(performanceGuide).toContain(`<!-- bench:${name} -->`);
      expect(performanceGuide).toContain(`<!-- /bench:${name} -->`);
    }
    expect(fs.readFileSync(path.join(root, "README.md"), "utf8")).not.toContain("<!-- bench:");
  });
});

describe("median", () => {
  it("takes the middle run of an odd count and, as lhci assert does, the mean of the middle two of an even count", () => {
    expect(median([310, 94, 88, 128, 101])).toBe(101);
    expect(median([94, 128, 88, 101])).toBe(97.5);
  });
});
