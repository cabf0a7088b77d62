import type { Page } from "@playwright/test";
import { RUNNABLE_SCRIPT_TYPES } from "../../server/site/script-types";

/**
 * The controls a page shows that work by script, read from the page itself: a `<button type="button">`
 * (a button with no action of its own: the carousel's arrows, Print) or a form (the inquiry form, which
 * checks and sends its answers in place). `carriesItsOwn` tells those that bring their own inline script,
 * right after them in the page (Print), from those that need the app. The tests hold every page's scripts
 * to this, independently of the components' own declarations (src/components/browser/needs-browser.tsx):
 * a page with none of them must ship no script, a page with only their own scripts no script file, and a
 * page with one that needs the app must ship the app.
 */
export const controlsNeedingScript = (page: Page): Promise<{ name: string; carriesItsOwn: boolean }[]> =>
  page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('body button[type="button"], body form')].map((control) => {
      const next = control.nextElementSibling;
      return {
        name: `${control.tagName.toLowerCase()} ${control.getAttribute("aria-label") ?? control.textContent.trim()}`,
        carriesItsOwn: next instanceof HTMLScriptElement && next.src === "" && next.text.trim() !== "",
      };
    }),
  );

/** The names of the controls that need the app, of those controlsNeedingScript found. */
export const needingTheApp = (controls: readonly { name: string; carriesItsOwn: boolean }[]): string[] =>
  controls.filter((control) => !control.carriesItsOwn).map((control) => control.name);

/**
 * Counts the page's calls to window.print instead of opening the dialog (headless Chromium has none to
 * open): set up before the page loads, as the browser's own, outside any policy of the page.
 */
export const countPrints = (page: Page) =>
  page.addInitScript(() => {
    const counted = window as unknown as { printed: number };
    counted.printed = 0;
    window.print = () => {
      counted.printed += 1;
    };
  });

/** How many times the page has called window.print since countPrints. */
export const printsOf = (page: Page): Promise<number> =>
  page.evaluate(() => (window as unknown as { printed: number }).printed);

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
