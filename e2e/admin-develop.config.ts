// Browser tests of `npm run edit` and `npm run develop` (npm run test:develop): scripts/edit.ts starts the
// develop server and decap-server in a temporary copy of the project, so that what the tests save through
// the editing screen never touches this checkout. A cold `gatsby develop` takes a minute or more, hence a
// run of its own rather than a project of playwright.config.ts, which serves the production build.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";
import { chromiumUse } from "../testing/browser";
import { enterRunTempRoot } from "../testing/run-temp-root";
import { freePortNow } from "../testing/site-server";

const root = path.resolve(__dirname, "..");

/** The project as it stands (committed or not, ignored files left out), sharing this checkout's node_modules. */
const copyProject = (): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "site-develop-"));
  const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\0")
    .filter((file) => file !== "" && fs.existsSync(path.join(root, file)));
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.copyFileSync(path.join(root, file), path.join(dir, file));
  }
  fs.symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"), "dir");
  return dir;
};

// The runner chooses once; the workers, which load this file again, inherit its choice (as in playwright.config.ts).
enterRunTempRoot("site-develop-e2e-");
process.env.E2E_DEVELOP_PORT ??= freePortNow();
process.env.E2E_DEVELOP_DECAP_PORT ??= freePortNow();
// Made inside the run's temporary folder, so the copy (with its .cache and public/) goes with the run.
process.env.E2E_DEVELOP_DIR ??= copyProject();

const baseURL = `http://127.0.0.1:${process.env.E2E_DEVELOP_PORT}`;

export default defineConfig({
  testDir: ".",
  testMatch: "admin-develop.spec.ts",
  workers: 1,
  fullyParallel: false,
  retries: 0,
  forbidOnly: !!process.env.CI,
  // The develop server compiles a page's code and data the first time it is asked for them.
  timeout: 120_000,
  expect: { timeout: 30_000 },
  reporter: [["list"]],
  use: {
    baseURL,
    ...chromiumUse,
  },
  webServer: {
    // scripts/edit.ts itself, without npm in between, so that the stop signal reaches it and it stops both.
    command: `${process.execPath} --import tsx scripts/edit.ts`,
    cwd: process.env.E2E_DEVELOP_DIR,
    url: `${baseURL}/`,
    env: {
      HOST: "127.0.0.1",
      PORT: process.env.E2E_DEVELOP_PORT,
      DECAP_SERVER_PORT: process.env.E2E_DEVELOP_DECAP_PORT,
      GATSBY_TELEMETRY_DISABLED: "1",
    },
    reuseExistingServer: false,
    // What the develop server reports (a content problem, a failed query) belongs in the test's output.
    stdout: "pipe",
    timeout: 300_000,
    gracefulShutdown: { signal: "SIGTERM", timeout: 20_000 },
  },
});
