import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

/** Debian's Chromium, never a downloaded browser; CHROME_PATH points elsewhere when needed. */
export const chromePath = process.env.CHROME_PATH || "/usr/bin/chromium";

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

export const launchBrowser = (): Promise<Browser> => chromium.launch({ executablePath: chromePath, args: chromeFlags });

export const WIDTHS = [375, 800, 1280] as const;

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
export const openPage = async (
  browser: Browser,
  origin: string,
  width: number,
  options: { javaScriptEnabled?: boolean; reducedMotion?: "reduce" | "no-preference" } = {},
): Promise<OpenedPage> => {
  const context = await browser.newContext({
    viewport: { width, height: 900 },
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    reducedMotion: options.reducedMotion ?? "no-preference",
  });
  const page = await context.newPage();
  // Behave as the active window, as a visitor's tab is: :focus styles otherwise depend on timing in headless mode.
  await (await context.newCDPSession(page)).send("Emulation.setFocusEmulationEnabled", { enabled: true });
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
  return { context, page, consoleErrors, failedRequests, close: () => context.close() };
};

/**
 * Waits until React has committed the hydrated page, so that a click or a
 * client-side navigation is handled by the running app: the app marks
 * `<html data-hydrated>` from onInitialClientRender (gatsby-browser.tsx).
 */
export const waitForHydration = (page: Page) =>
  page.waitForSelector("html[data-hydrated]", { state: "attached", timeout: 15_000 });
