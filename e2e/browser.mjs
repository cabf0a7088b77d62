import { chromium } from "playwright-core";

/** Debian's Chromium, never a downloaded browser; CHROME_PATH points elsewhere when needed. */
export const launchBrowser = () =>
  chromium.launch({
    executablePath: process.env.CHROME_PATH || "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-quic",
      "--no-first-run",
    ],
  });
