import fs from "node:fs";
import { test as base, expect, type Page } from "@playwright/test";
import type { AxeResults } from "axe-core";
import { recordProblems } from "../../testing/browser";

export { expect };

/** The context options for a phone, tablet or desktop width: `test.use(atWidth(375))`. */
export const atWidth = (width: number) => ({ viewport: { width, height: 900 } });

/**
 * Waits until React has committed the hydrated page, so that a click or a client-side navigation is
 * handled by the running app: the app marks `<html data-hydrated>` from onInitialClientRender
 * (gatsby-browser.tsx).
 */
export const expectHydrated = (page: Page) =>
  expect(page.locator("html[data-hydrated]")).toBeAttached({ timeout: 15_000 });

/**
 * Waits for the app where the page runs one (its scripts, or the template they wait in until the first
 * paint); a page built without script (gatsby-ssr.tsx) is complete as served, with nothing to wait for.
 */
export const expectHydratedIfItRuns = async (page: Page) => {
  if ((await page.locator("template#gatsby-app-scripts, script[src]").count()) > 0) await expectHydrated(page);
};

// axe-core itself, run in the page. @axe-core/playwright would do the same, but it is not a dependency and
// this tree installs nothing new; it injects the script the same way, through evaluate(), since the site's
// Content-Security-Policy refuses an inline <script> (page.addScriptTag) and that is what the tests check.
const axeSource = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

/** Runs axe-core's default rule set (WCAG 2.x A and AA plus best practices) in the page; returns the violations. */
const axeViolations = async (page: Page): Promise<string[]> => {
  await page.evaluate(axeSource);
  const results = await page.evaluate(() =>
    (window as unknown as { axe: { run: (context: Document, options: object) => Promise<AxeResults> } }).axe.run(
      document,
      { resultTypes: ["violations"] },
    ),
  );
  return results.violations.map(
    (violation) =>
      `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes
        .slice(0, 3)
        .map((node) => node.target.join(" "))
        .join(", ")}`,
  );
};

// IBM's Equal Access engine, the rules the accessibility-checker package runs, without that package: it downloads
// its rules at run time and this machine has no network. The engine's ace.js carries them; it is put in the page
// the same way as axe's script, through evaluate(), for the same reason.
const ibmSource = fs.readFileSync(require.resolve("accessibility-checker-engine/ace.js"), "utf8");

/**
 * The guideline the engine checks against: IBM Accessibility, accessibility-checker's default, which holds
 * WCAG 2.2 A and AA and IBM's own requirements beside them.
 */
const IBM_GUIDELINE = "IBM_Accessibility";

/** One finding of IBM's engine, in the words accessibility-checker's reports use for its levels. */
interface IbmFinding {
  ruleId: string;
  level: "violation" | "potentialviolation" | "recommendation" | "potentialrecommendation" | "manual" | "pass";
  path: string;
  message: string;
}

/** One result of the engine, as its report gives it. */
interface EngineIssue {
  ruleId: string;
  /** The rule's policy (VIOLATION, RECOMMENDATION) and the result's confidence (PASS, FAIL, POTENTIAL, MANUAL). */
  value: [string, string];
  path: { dom: string };
  message: string;
}

/** The engine's pair of policy and confidence, named as accessibility-checker names them. */
const levelOf = ([policy, confidence]: [string, string]): IbmFinding["level"] => {
  if (confidence === "PASS") return "pass";
  if (confidence === "MANUAL") return "manual";
  if (policy === "VIOLATION") return confidence === "FAIL" ? "violation" : "potentialviolation";
  return confidence === "FAIL" ? "recommendation" : "potentialrecommendation";
};

/** Runs IBM's engine over the document as it is now; returns every finding that is not a pass. */
const ibmFindings = async (page: Page): Promise<IbmFinding[]> => {
  await page.evaluate(ibmSource);
  const results = await page.evaluate(
    async (guideline) =>
      (
        await new (
          window as unknown as {
            ace: {
              Checker: new () => {
                check: (node: Document, ids: string[]) => Promise<{ results: EngineIssue[] }>;
              };
            };
          }
        ).ace.Checker().check(document, [guideline])
      ).results.map(({ ruleId, value, path, message }) => ({ ruleId, value, path, message })),
    IBM_GUIDELINE,
  );
  return results
    .map((issue) => ({
      ruleId: issue.ruleId,
      level: levelOf(issue.value),
      path: issue.path.dom,
      message: issue.message,
    }))
    .filter((finding) => finding.level !== "pass");
};

/**
 * The level that fails a test: violations, what the engine has found to fail. Its potential violations are
 * requests for a person to look (every link's focus style, every text that might be a heading, a skip link
 * out of sight until focused); the keyboard test below the engines checks focus itself.
 */
const IBM_FAIL_LEVELS: readonly IbmFinding["level"][] = ["violation"];

/** The findings of IBM's engine at the levels that fail a test, one line each. */
const ibmViolations = async (page: Page): Promise<string[]> =>
  (await ibmFindings(page))
    .filter((finding) => IBM_FAIL_LEVELS.includes(finding.level))
    .map((finding) => `${finding.ruleId} (${finding.level}): ${finding.message} — ${finding.path}`);

interface Fixtures {
  /** console.error messages and uncaught exceptions of `page` during the test. */
  consoleErrors: string[];
  /** Responses from the site with a status of 400 or more, and requests to it that failed outright. */
  failedRequests: string[];
  /** The accessibility violations axe-core finds in `page` as it is now. */
  axe: () => Promise<string[]>;
  /** The violations IBM's Equal Access engine finds in `page` as it is now. */
  ibm: () => Promise<string[]>;
  /** The Content-Security-Policy violations `page` has reported so far, each with what was blocked and where. */
  cspViolations: () => Promise<string[]>;
}

export const test = base.extend<Fixtures & { problems: ReturnType<typeof recordProblems> }>({
  // One recorder per page, attached before the test navigates, shared by the two fixtures below.
  problems: async ({ page, baseURL }, use) => {
    await use(recordProblems(page, new URL(baseURL!).origin));
  },
  consoleErrors: async ({ problems }, use) => {
    await use(problems.consoleErrors);
  },
  failedRequests: async ({ problems }, use) => {
    await use(problems.failedRequests);
  },
  axe: async ({ page }, use) => {
    await use(() => axeViolations(page));
  },
  ibm: async ({ page }, use) => {
    await use(() => ibmViolations(page));
  },
  // Recorded in the page itself, from before its first script runs: a violation has no console message to catch.
  cspViolations: async ({ page }, use) => {
    await page.addInitScript(() => {
      const seen: string[] = [];
      Object.assign(window, { cspViolations: seen });
      document.addEventListener("securitypolicyviolation", (event) => {
        seen.push(
          `${event.effectiveDirective} blocked ${event.blockedURI || "inline"} at ${event.sourceFile}:${event.lineNumber}`,
        );
      });
    });
    await use(() => page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations));
  },
});
