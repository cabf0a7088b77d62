// Lighthouse CI: `lhci collect` runs Lighthouse on the pages below (npm run bench) and `lhci assert`
// judges the runs (npm run check:budgets). Both are started from reports/ (see bench/lhci.ts), so that
// the runs land in reports/.lighthouseci/, which git ignores.
//
// Lighthouse's default settings are its mobile preset: an emulated phone, simulated slow 4G and a 4x
// CPU slowdown. The budgets are budgets.json's "lighthouse" section, in lhci's own assertion terms,
// each judged on the median of the runs of a page.
const fs = require("node:fs");
const path = require("node:path");

const budgets = JSON.parse(fs.readFileSync(path.join(__dirname, "budgets.json"), "utf8"));
/** npm run bench chooses a free port; 9100 when lhci is run by hand. */
const port = process.env.LHCI_PORT || "9100";
const pages = ["/", "/products/tactical/", "/contact/"];

module.exports = {
  ci: {
    collect: {
      url: pages.map((page) => `http://127.0.0.1:${port}${page}`),
      // The production server (npm run serve) on the existing build, with an outbox of its own.
      startServerCommand: `cd ${JSON.stringify(__dirname)} && PORT=${port} HOST=127.0.0.1 INQUIRY_DATA_DIR="$(mktemp -d)" node --import tsx server/main.ts`,
      startServerReadyPattern: "serving ",
      startServerReadyTimeout: 60_000,
      numberOfRuns: 5,
      // Debian's Chromium, never a downloaded browser. chrome-launcher adds its own flags for a quiet
      // browser (no background networking, component updates or first-run tasks); these are for a
      // machine with no GPU, a small /dev/shm and no user namespaces.
      chromePath: process.env.CHROME_PATH || "/usr/bin/chromium",
      settings: { chromeFlags: "--no-sandbox --headless=new --disable-gpu --disable-dev-shm-usage" },
    },
    assert: {
      aggregationMethod: "median",
      assertions: Object.fromEntries(
        Object.entries(budgets.lighthouse)
          .filter(([key]) => key !== "$comment")
          .map(([key, limit]) => [key, ["error", limit]]),
      ),
    },
  },
};
