import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Gives a test run one temporary folder of its own and points TMPDIR at it, so that os.tmpdir() in the
 * run and in every process it starts (servers, Chromium) makes its folders there; the process that made
 * the folder removes it as it exits. A run makes hundreds of folders (copies of content/, outboxes, built
 * sites, browser profiles), which would otherwise be left in the machine's /tmp. Processes the run
 * starts inherit its folder rather than making their own: a test runner's workers, which load its
 * configuration again, or a run started by another.
 */
export const enterRunTempRoot = (prefix: string): void => {
  if (!process.env.RUN_TEMP_ROOT) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    process.env.RUN_TEMP_ROOT = root;
    process.on("exit", () => fs.rmSync(root, { recursive: true, force: true }));
  }
  process.env.TMPDIR = process.env.RUN_TEMP_ROOT;
};
