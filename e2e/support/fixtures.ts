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

interface Fixtures {
  /** console.error messages and uncaught exceptions of `page` during the test. */
  consoleErrors: string[];
  /** Responses from the site with a status of 400 or more, and requests to it that failed outright. */
  failedRequests: string[];
  /** The accessibility violations axe-core finds in `page` as it is now. */
  axe: () => Promise<string[]>;
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
