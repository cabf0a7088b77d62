import type { Page } from "playwright-core";
import type { AxeResults } from "axe-core";

const axeSource = require.resolve("axe-core/axe.min.js");

/** Runs axe-core's default rule set (WCAG 2.x A and AA plus best practices) in the page; returns the violations. */
export const axeViolations = async (page: Page): Promise<string[]> => {
  await page.addScriptTag({ path: axeSource });
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
