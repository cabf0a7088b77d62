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
 * client-side navigation is handled by the running app. React attaches props
 * to the DOM while it renders (before it commits, when hydrating in a
 * transition), so this reads the root instead: its current tree stops being
 * dehydrated at the commit.
 */
export const waitForHydration = (page: Page) =>
  page.waitForFunction(
    () => {
      const container = document.getElementById("___gatsby") as (HTMLElement & Record<string, unknown>) | null;
      const key = container && Object.keys(container).find((name) => name.startsWith("__reactContainer"));
      const hostRoot = key
        ? (container[key] as { stateNode?: { current?: { memoizedState?: { isDehydrated?: boolean } } } })
        : null;
      return hostRoot?.stateNode?.current?.memoizedState?.isDehydrated === false;
    },
    undefined,
    { timeout: 15_000 },
  );
