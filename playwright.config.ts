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

/**
 * The files that run alone, one test at a time, after every other test: each measures a timing or a layout
 * shift, which a second browser on the two cores would skew, runs servers and an outbox whose timed
 * deliveries and held inquiries its tests follow step by step, or must finish Decap's editing screen within
 * its time limit.
 */
const quietFiles = [
  // Cumulative layout shift while a page loads, with its HTML arriving at once and in parts.
  "layout-shift.test.ts",
  // The editing screen's preview must follow typing within a median of 500 ms.
  "admin-preview.test.ts",
  // An inquiry held, its digest timed against the hold, then released: one outbox, step by step.
  "held-inquiries.test.ts",
  // Deliveries within 10 s, and an outbox kept for a mail server that is down until a retry.
  "inquiry-delivery.test.ts",
  // Decap's editing screen, megabytes of script, edits and saves within each test's time limit; beside a
  // second browser on a busy machine a save ran past it.
  "admin.test.ts",
  "admin-github.test.ts",
];

export default defineConfig({
  testDir: "e2e",
  testMatch: "*.test.ts",
  // Two cores: the tests that only check what a page shows or does run two at a time, the quiet ones alone.
  workers: 2,
  projects: [
    {
      name: "parallel",
      testIgnore: quietFiles,
      // Every test starts from a fresh page and context, and those that need a server or a backend of their
      // own start it per test or per worker, so any two of them can run side by side.
      fullyParallel: true,
    },
    {
      name: "quiet",
      testMatch: quietFiles,
      workers: 1,
      fullyParallel: false,
      // After the parallel tests, so that no other browser shares the cores while these measure. A failure
      // there leaves these unrun, and the run fails all the same.
      dependencies: ["parallel"],
    },
  ],
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
