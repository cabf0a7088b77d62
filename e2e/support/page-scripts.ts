import type { Page } from "@playwright/test";
import { RUNNABLE_SCRIPT_TYPES } from "../../src/serving/script-types";

/**
 * The controls a page shows that work by script, read from the page itself: a `<button type="button">`
 * (a button with no action of its own: the carousel's arrows, Print) or a form (the inquiry form, which
 * checks and sends its answers in place). The tests hold every page's scripts to this, independently of
 * the components' own declarations (src/components/browser/needs-browser.tsx): a page with none of them
 * must ship no script, and a page with one must ship the app.
 */
export const controlsNeedingScript = (page: Page): Promise<string[]> =>
  page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('body button[type="button"], body form')].map(
      (control) =>
        `${control.tagName.toLowerCase()} ${control.getAttribute("aria-label") ?? control.textContent.trim()}`,
    ),
  );

/** How many scripts the document holds that a browser would run, those in a <template> included. */
export const runnableScriptsIn = (page: Page): Promise<number> =>
  page.evaluate(
    (runnableTypes) => {
      const runnable = (script: HTMLScriptElement) => runnableTypes.includes(script.type.trim().toLowerCase());
      const inTemplates = [...document.querySelectorAll("template")].flatMap((template) => [
        ...template.content.querySelectorAll("script"),
      ]);
      return [...document.querySelectorAll("script"), ...inTemplates].filter(runnable).length;
    },
    [...RUNNABLE_SCRIPT_TYPES],
  );
