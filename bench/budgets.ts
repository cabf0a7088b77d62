// budgets.json: the budgets npm run check:budgets holds npm run bench's figures to, and the counts the
// bench runs with that those budgets were set for.
import fs from "node:fs";
import path from "node:path";

export interface Budgets {
  homeJavaScriptGzipKb: number;
  inquiryLoadP95Ms: number;
  refusedLiveGrowthMb: number;
  refusedCpuMsPerRequest: number;
  homeDuringBurstP50Ms: number;
  /** The counts the inquiry load runs with (bench/inquiry-load.ts): the budgets above were set for these. */
  inquiryLoad: { submissions: number; refusedRequests: number };
  /** The count the Netlify load runs with (bench/netlify-load.ts), each of which must be stored and delivered once. */
  netlifyLoad: { inquiries: number };
  /** A push deployed on the single server (npm run bench:deploy). */
  deploy: {
    /** Webhook to live of a content-only push, over its build's fixed phases (FIXED_BUILD_PHASES). */
    contentPushOverFixedPhases: number;
    /** The same for a push of the server's code. */
    codePushOverFixedPhases: number;
    /** Exact: the seconds the incremental pushes' builds spend processing images (the pushes change none). */
    imageProcessingSeconds: number;
    switchP99Ms: number;
    duringBuildP95Ratio: number;
    /** For the short phases: idle p95 plus this is allowed whatever the ratio allows less. */
    shortPhaseFloorMs: number;
    slowestAnswerMs: number;
    buildPeakMemoryMb: number;
  };
  /**
   * Every page's transfer bytes over those of the same page without scripts (bench/page-bytes.ts): at most
   * `scriptFree` on a page that loads no script, `withScript` on one that does, unless `withScriptByPage`
   * records what one page achieves where `withScript` cannot be met (budgets.json says why).
   */
  pageBytesRatio: { scriptFree: number; withScript: number; withScriptByPage: Record<string, number> };
  /** lhci's assertions (lighthouserc.js), and a "$comment". */
  lighthouse: Record<string, unknown>;
  /**
   * Lighthouse figures judged against the reference page's in the same rounds (bench/budget-checks.ts):
   * a page's median at most the reference's times `ratio` plus the allowance. The score is judged by what it
   * lacks of 100, so that lower is better for all three.
   */
  lighthouseAgainstReference: {
    totalBlockingTime: { ratio: number; allowanceMs: number };
    largestContentfulPaint: { ratio: number; allowanceMs: number };
    performanceShortfall: { ratio: number; allowance: number };
  };
}

/** What a page may read against the reference page's figure in the same rounds, where lower is better. */
export const allowedAgainstReference = (reference: number, ratio: number, allowance: number): number =>
  reference * ratio + allowance;

/**
 * The p95 a phase may reach against its baseline's: `ratio` times it, or the baseline plus `floorMs` where
 * that is more, since on two cores a p95 of a few ms, or one over few answers, doubles on one hiccup.
 */
export const p95AllowanceMs = (baselineP95Ms: number, ratio: number, floorMs: number): number =>
  Math.max(baselineP95Ms * ratio, baselineP95Ms + floorMs);

/**
 * Gatsby's phases that take about the same time in every incremental build, whatever the push changed, as its log
 * names them: compiling its own files, loading the plugins, onPreBootstrap (the functions' compilation, which
 * Gatsby's functions plugin runs there, included), extracting every component's queries, and the bundles and HTML
 * renderer from webpack's cache. A push's webhook to live is judged against their sum in the same build, so that a
 * machine slow for the whole run slows both sides, while work that grows with the push (images processed, pages
 * rendered, files compressed) does not hide in it.
 */
export const FIXED_BUILD_PHASES = [
  "compile gatsby files",
  "load plugins",
  "onPreBootstrap",
  "extract queries from components",
  "Building production JavaScript and CSS bundles",
  "Building HTML renderer",
] as const;

/** The seconds of a build's fixed phases, from its phases as bench/deploy.ts reads them; null if one is missing. */
export const fixedPhaseSeconds = (
  phases: Readonly<Record<string, number | null | undefined>> | undefined,
): number | null => {
  let sum = 0;
  for (const phase of FIXED_BUILD_PHASES) {
    const seconds = phases?.[phase];
    if (typeof seconds !== "number") return null;
    sum += seconds;
  }
  return Number(sum.toFixed(1));
};

/** A figure a bench wrote, or one it could not measure. */
export type Figure = number | null | undefined;

/** Whether a bench measured the figure: a number, and a finite one. */
export const isMeasured = (value: Figure): value is number => typeof value === "number" && Number.isFinite(value);

/** A push's webhook to live over its build's fixed phases, to two places; null where either was not measured. */
export const pushOverFixedPhases = (
  seconds: Figure,
  phases: Readonly<Record<string, Figure>> | undefined,
): number | null => {
  const fixed = fixedPhaseSeconds(phases);
  return isMeasured(seconds) && fixed !== null && fixed > 0 ? Number((seconds / fixed).toFixed(2)) : null;
};

/** The phase in which gatsby-plugin-sharp processes images, as Gatsby's log names it. */
export const IMAGE_PROCESSING_PHASE = "Running gatsby-plugin-sharp.IMAGE_PROCESSING jobs";

export const budgetsPath = path.resolve(__dirname, "..", "budgets.json");

export const readBudgets = (): Budgets => JSON.parse(fs.readFileSync(budgetsPath, "utf8")) as Budgets;
