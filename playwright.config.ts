// Browser tests (`npm run test:e2e`, after `npm run build`): Playwright Test drives Debian's Chromium against
// the production server serving public/. docs/development.md, "Browser tests".
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";
import { chromiumUse } from "./testing/browser";
import { enterRunTempRoot } from "./testing/run-temp-root";
import { freePortNow, requireBuild, testServerEnv } from "./testing/site-server";

requireBuild();

// Playwright loads this file in the runner and again in every worker, and the workers inherit the runner's
// environment: so the runner chooses the port and the outbox once, and the workers read its choice.
// Why a free port is looked up by hand: webServer must know the port before the server starts, and the
// server prints the port it was given (PORT=0 would print 0), so `webServer.wait` cannot learn it; a fixed
// port would collide with other servers on a shared machine.
enterRunTempRoot("site-e2e-");
process.env.E2E_PORT ??= freePortNow();
process.env.E2E_INQUIRY_DATA_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), "site-inquiries-"));

const baseURL = `http://127.0.0.1:${process.env.E2E_PORT}`;

export default defineConfig({
  testDir: "e2e",
  testMatch: "*.test.ts",
  // Two cores shared by the server and one browser: tests in parallel only make each other slow and flaky.
  workers: 1,
  fullyParallel: false,
  // No retries, in CI too: a test that passes on its second try is reported as flaky but leaves the run
  // green, which would hide a real intermittent failure (a layout shift now and then, a hydration race).
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: [["list"], ["html", { open: "never" }]],
  use: {
    baseURL,
    ...chromiumUse,
    reducedMotion: "no-preference",
  },
  webServer: {
    // `npm run serve` without npm in between, so that the stop signal reaches the server itself.
    command: "node dist/server/main.js",
    url: `${baseURL}/`,
    env: {
      ...testServerEnv,
      PORT: process.env.E2E_PORT,
      INQUIRY_DATA_DIR: process.env.E2E_INQUIRY_DATA_DIR,
    },
    reuseExistingServer: false,
    timeout: 60_000,
    // The server finishes what is in flight on SIGTERM and exits 0 (docs/deploy-server.md, "What the server does").
    gracefulShutdown: { signal: "SIGTERM", timeout: 20_000 },
  },
});
