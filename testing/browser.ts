import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { readToolSetting } from "./tool-settings";

/** Debian's Chromium, never a downloaded browser; CHROME_PATH points elsewhere when needed (empty is unset, as in .ci/run). */
export const chromePath = readToolSetting("CHROME_PATH");

/** Flags for a machine with no network but loopback, no GPU and a small /dev/shm. */
export const chromeFlags = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-quic",
  "--no-first-run",
];

/**
 * What every Playwright config here gives its tests: Debian's Chromium (never a downloaded browser:
 * `npx playwright install` cannot run here), the height all tests use (they choose the width), and a
 * failed test's trace kept (with no retries, "on-first-retry" would never record).
 */
export const chromiumUse = {
  browserName: "chromium",
  launchOptions: { executablePath: chromePath, args: chromeFlags },
  viewport: { width: 1280, height: 900 },
  trace: "retain-on-failure",
} as const;

/** Phone, tablet and desktop: the widths the tests and `npm run screenshots` look at. */
export const WIDTHS = [375, 800, 1280] as const;

// What follows serves `npm run screenshots` (scripts/screenshots.ts), a script outside Playwright Test that
// drives playwright-core itself; the browser tests get their browser and pages from Playwright Test
// (playwright.config.ts, ./fixtures.ts).

export const launchBrowser = (): Promise<Browser> => chromium.launch({ executablePath: chromePath, args: chromeFlags });

export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  /** console.error messages and uncaught exceptions seen so far. */
  consoleErrors: string[];
  /** Same-origin responses with a status of 400 or more, and requests that failed outright. */
  failedRequests: string[];
  close: () => Promise<void>;
}

/** A fresh context (no cache, no storage) at a phone, tablet or desktop width, recording what goes wrong. */
export const openPage = async (browser: Browser, origin: string, width: number): Promise<OpenedPage> => {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  const { consoleErrors, failedRequests } = recordProblems(page, origin);
  return { context, page, consoleErrors, failedRequests, close: () => context.close() };
};

/**
 * Records console errors, uncaught exceptions and the requests to `origin` that failed, from now on.
 * Playwright reports none of these by itself: a page may log an error or lose a stylesheet and the test
 * still pass, so the tests (through ./fixtures.ts) and the screenshots script collect them here.
 */
export const recordProblems = (page: Page, origin: string) => {
  const consoleErrors: string[] = [];
  const failedRequests: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => consoleErrors.push(`uncaught: ${error.message}`));
  page.on("response", (response) => {
    if (response.url().startsWith(origin) && response.status() >= 400) {
      failedRequests.push(`${response.status()} ${response.url()}`);
    }
  });
  page.on("requestfailed", (request) => {
    if (request.url().startsWith(origin))
      failedRequests.push(`failed ${request.url()}: ${request.failure()?.errorText}`);
  });
  return { consoleErrors, failedRequests };
};
