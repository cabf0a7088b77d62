// reports/bench.json: its shape, which each bench imports from here to fill its part, and its reading and
// writing. npm run check:budgets judges it and npm run bench:readme copies it into docs/performance.md.
import fs from "node:fs";
import path from "node:path";

export const reportPath = path.resolve(__dirname, "..", "reports", "bench.json");

/**
 * The Lighthouse figures judged against the reference page's (bench/budget-checks.ts): the median of the
 * runs, and each run's, in the order of the rounds.
 */
export interface ReferenceFigures {
  path: string;
  runs: number;
  performance: number;
  largestContentfulPaintMs: number;
  totalBlockingTimeMs: number;
  performanceRuns: number[];
  largestContentfulPaintRunsMs: number[];
  totalBlockingTimeRunsMs: number[];
}

export interface PageFigures extends ReferenceFigures {
  accessibility: number;
  bestPractices: number;
  seo: number;
  cumulativeLayoutShift: number;
  javaScriptGzipBytes: number;
  cssGzipBytes: number;
}

export interface LighthouseFigures {
  lighthouseVersion: string;
  /** The browser's major version, from its user agent. */
  chromeVersion: string;
  pages: PageFigures[];
  /** The reference page (bench/lighthouse.ts), measured in the same rounds; null when lhci saved no run of it. */
  reference: ReferenceFigures | null;
}

export interface InquiryLoadFigures {
  concurrent: {
    submissions: number;
    accepted: number;
    seconds: number;
    requestsPerSecond: number;
    p50Ms: number;
    p95Ms: number;
    maxMs: number;
    /** Records in the outbox, and submissions found in it exactly once. */
    recordsStored: number;
    storedExactlyOnce: number;
    uniqueReferences: number;
    /** Deliveries the sinks received, and references each sink received exactly once. */
    webhookDeliveries: number;
    emailDeliveries: number;
    deliveredOnceBoth: number;
    /** From the first submission until the worker had delivered every inquiry. */
    allDeliveredSeconds: number;
  };
  refused: {
    requests: number;
    /** Answers by status: 405 for GETs, 422/415/400 for invalid posts. */
    statuses: Record<string, number>;
    /**
     * Resident memory of the server in MB: after warming up, after the first round of requests and after
     * a second, equal round. It follows how much heap V8 keeps reserved after the last load as much as what
     * the server holds, so it is reported, not judged.
     */
    rssBeforeMb: number;
    rssAfterFirstMb: number;
    rssAfterMb: number;
    /**
     * The memory the server still holds after a full garbage collection (bench/server-live-memory.ts), in
     * MB, at the same three moments. The first round loads and compiles what refusing needs; a leak shows
     * as growth over the second.
     */
    liveBeforeMb: number;
    liveAfterFirstMb: number;
    liveAfterMb: number;
    liveGrowthMb: number;
    /** CPU time the server spent per refused request, user + system. */
    cpuMsPerRequest: number;
    /** A visitor loading the home page during the burst. */
    homeDuringBurstP50Ms: number;
    homeDuringBurstSamples: number;
    recordsStored: number;
  };
  flood: {
    limit: number;
    windowSeconds: number;
    submissions: number;
    accepted: number;
    refused: number;
    retryAfterSeconds: number;
    recordsStored: number;
  };
}

export interface PageBytes {
  path: string;
  /** Transfer bytes of the page as built. */
  bytes: number;
  /** Of those, the scripts'. */
  scriptBytes: number;
  /** Transfer bytes of the same page with every script request refused. */
  noScriptBytes: number;
  /** bytes / noScriptBytes. */
  ratio: number;
}

export interface NetlifyLoadFigures {
  /** Different inquiries sent at once, and how many of them were sent a second time alongside. */
  invocations: number;
  repeats: number;
  /** Answers by status, repeats included. */
  answers: Record<string, number>;
  seconds: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /** Inquiries in the database, and references among them. */
  records: number;
  uniqueReferences: number;
  /** Inquiries answered 201 whose reference has no record (any other answer is in `answers`); inquiries stored more than once. */
  lost: number;
  duplicated: number;
  /** Repeats answered with the reference of the first. */
  repeatsWithFirstReference: number;
  /** Webhook deliveries made by the invocations themselves, and by the scheduled runs after them. */
  deliveredByInvocations: number;
  deliveredByScheduledRuns: number;
  scheduledRuns: number;
  /** Inquiries the webhook received exactly once, and its deliveries in all. */
  deliveredExactlyOnce: number;
  webhookDeliveries: number;
}

/** GET / while something ran beside the server, one request at a time every 50 ms. */
export interface Latency {
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly requests: number;
}

export interface DeployFigures {
  /** From the webhook's POST to the first GET / that shows the pushed headline: the median of the content-only pushes (incremental). */
  readonly webhookToLiveSeconds: number;
  /** Each content-only push's seconds, in the order they were pushed. */
  readonly contentPushesSeconds: number[];
  /** The same for a push that also changes the server's code. */
  readonly codePushSeconds: number;
  /** The same for the first push, a full build in an empty build folder. */
  readonly firstPushSeconds: number;
  /** The median content push's steps as the release's record has them (fetch, install, check, build, verify, start). */
  readonly stepSeconds: Readonly<Record<string, number>>;
  readonly firstPushStepSeconds: Readonly<Record<string, number>>;
  /** Gatsby's own phases in the median content push's build log ("success <phase> - <n>s"), summed by name. */
  readonly contentPushPhases: Readonly<Record<string, number>>;
  readonly codePushPhases: Readonly<Record<string, number>>;
  /** GET / within 3 s either side of the moment the median content push's release took over. */
  readonly throughSwitch: Latency;
  readonly idle: Latency;
  readonly duringBuild: Latency;
  /** From a broken push's webhook until its release has failed and its files are removed. */
  readonly duringFailedRelease: Latency;
  /** While the older releases are removed, after that failure. */
  readonly duringPrune: Latency;
  /** The peak of the build's processes' PSS summed: the memory the build takes from the machine. */
  readonly buildPeakMemoryMb: number;
  /** The peak of their RSS summed, shared pages counted in each process that maps them. */
  readonly buildPeakRssSumMb: number;
}

export interface BenchReport {
  date: string;
  machine: string;
  buildSeconds: number;
  lighthouse: LighthouseFigures;
  inquiryLoad: InquiryLoadFigures;
  /** Every built page's transfer bytes against the same page without scripts (bench/page-bytes.ts). */
  pageBytes: PageBytes[];
  /** The CDN deploy's inquiry function on Netlify Database (a local Postgres): measured last by npm run bench, or alone by npm run bench:netlify. */
  netlifyLoad?: NetlifyLoadFigures;
  /** A push deployed on the single server: measured alone by npm run bench:deploy, after npm run bench. */
  deploy?: DeployFigures;
}

/**
 * Adds the figures of a bench that runs on its own (npm run bench:netlify) to the report, keeping the
 * rest of it; starts a report of those figures alone where there is none yet. Returns its path.
 */
export const addToReport = <K extends keyof BenchReport>(key: K, figures: BenchReport[K]): string => {
  const existing: Partial<BenchReport> = fs.existsSync(reportPath)
    ? (JSON.parse(fs.readFileSync(reportPath, "utf8")) as Partial<BenchReport>)
    : {};
  fs.mkdirSync(path.dirname(reportPath), { recursive: true });
  fs.writeFileSync(reportPath, `${JSON.stringify({ ...existing, [key]: figures }, null, 2)}\n`);
  return reportPath;
};

/**
 * A report as read back from disk, for the gates: any part may be missing (a bench that stopped early, or
 * a report from an older bench), and a figure the bench could not take is null, which is how JSON writes
 * NaN. Nothing here is trusted to be a number until a gate has looked.
 */
export type ReadBack<T> = T extends number
  ? number | null
  : T extends readonly (infer Item)[]
    ? ReadBack<Item>[]
    : T extends object
      ? { [K in keyof T]?: ReadBack<T[K]> }
      : T;

/** reports/bench.json as written, for npm run check:budgets to judge part by part. */
export const readReportAsWritten = (): ReadBack<BenchReport> => {
  if (!fs.existsSync(reportPath)) throw new Error("No reports/bench.json: run npm run bench first.");
  return JSON.parse(fs.readFileSync(reportPath, "utf8")) as ReadBack<BenchReport>;
};

export const readReport = (): BenchReport => {
  if (!fs.existsSync(reportPath)) throw new Error("No reports/bench.json: run npm run bench first.");
  const report = JSON.parse(fs.readFileSync(reportPath, "utf8")) as Partial<BenchReport>;
  if (!report.lighthouse || !report.inquiryLoad) {
    throw new Error("reports/bench.json is not from the current npm run bench: run it again.");
  }
  return report as BenchReport;
};
