// Lighthouse CI: npm run bench runs Lighthouse on the pages below with the browser and flags below, as
// `lhci collect` does (bench/lighthouse.ts, collectInRounds), and `lhci assert` judges the runs (npm run
// check:budgets). The runs land in reports/.lighthouseci/, which git ignores; `lhci collect` run by hand from
// reports/ measures the same pages on LHCI_PORT.
//
// Lighthouse's default settings are its mobile preset: an emulated phone, simulated slow 4G and a 4x
// CPU slowdown. The budgets are budgets.json's "lighthouse" section, in lhci's own assertion terms,
// each judged on the median of the runs of a page. Each round also measures the bench's reference page
// (bench/lighthouse.ts), which lhci does not judge: npm run check:budgets holds the pages' blocking time,
// largest paint and performance score to it (budgets.json "lighthouseAgainstReference").
const fs = require("node:fs");
const path = require("node:path");

/**
 * The `--disable-features` that chrome-launcher passes by default (`Launcher.defaultFlags()`), from the
 * chrome-launcher the bench and Lighthouse launch Chrome with. Chrome honours only the last
 * `--disable-features` on its command line, so ours must repeat these.
 */
const launcherDisabledFeatures = () => {
  const { Launcher } = require("chrome-launcher");
  const flag = Launcher.defaultFlags().find((each) => each.startsWith("--disable-features="));
  return flag ? flag.slice("--disable-features=".length).split(",") : [];
};

const budgets = JSON.parse(fs.readFileSync(path.join(__dirname, "budgets.json"), "utf8"));
/** `lhci collect` run by hand; npm run bench reads only the pages' paths and serves them on a free port. */
const port = process.env.LHCI_PORT || "9100";
const pages = ["/", "/products/tactical/", "/contact/"];
/** bench/lighthouse.ts's REFERENCE_PATH: served from the bench's copy of the build only (PUBLIC_DIR). */
const reference = "/bench-reference/";
const escaped = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

module.exports = {
  ci: {
    collect: {
      // The reference first in each round, then the pages, so that it meets the same spells as they do.
      url: [reference, ...pages].map((page) => `http://127.0.0.1:${port}${page}`),
      // The production server (npm run serve) on the existing build (npm run bench's copy of it, through
      // PUBLIC_DIR), with an outbox of its own.
      startServerCommand: `cd ${JSON.stringify(__dirname)} && PORT=${port} HOST=127.0.0.1 INQUIRY_DATA_DIR="$(mktemp -d)" node dist/server/main.js`,
      startServerReadyPattern: "serving ",
      startServerReadyTimeout: 60_000,
      numberOfRuns: 5,
      // Debian's Chromium, never a downloaded browser. chrome-launcher adds its own flags for a quiet
      // browser (no background networking, component updates or first-run tasks).
      chromePath: process.env.CHROME_PATH || "/usr/bin/chromium",
      settings: {
        // What no budget reads and each run spent about 1.5 s of its 7 on: the back/forward cache test, which
        // navigates away and back (an unweighted diagnostic), and the screenshots. The scored audits are unchanged.
        skipAudits: ["bf-cache", "screenshot-thumbnails", "final-screenshot"],
        // The full-page screenshot is a gatherer, not an audit: this setting, not skipAudits, turns it off.
        disableFullPageScreenshot: true,
        chromeFlags: [
          // For a machine with no GPU, a small /dev/shm and no user namespaces.
          "--no-sandbox --headless=new --disable-gpu --disable-dev-shm-usage",
          // The desktop browser's own window is not the emulated phone's page, and on a machine with no
          // GPU it takes CPU from the page while it loads: without a toolbar (--kiosk) no install chip
          // animates, without the WebUI omnibox popup no renderer is preloaded for it, and without
          // scrollbars none fades in and out. The page's own work is unchanged.
          "--kiosk --hide-scrollbars",
          `--disable-features=${[
            ...launcherDisabledFeatures(),
            "WebUIOmniboxPopup",
            "WebUIOmniboxAimPopup",
            "WebUIOmniboxFullPopup",
          ].join(",")}`,
        ].join(" "),
      },
    },
    assert: {
      // The site's pages only: the reference page is a yardstick, not a page of the site.
      assertMatrix: [
        {
          // Any port: lhci assert is run without the port the bench's rounds chose.
          matchingUrlPattern: `^http://127\\.0\\.0\\.1:\\d+(${pages.map(escaped).join("|")})$`,
          aggregationMethod: "median",
          assertions: Object.fromEntries(
            Object.entries(budgets.lighthouse)
              .filter(([key]) => key !== "$comment")
              .map(([key, limit]) => [key, ["error", limit]]),
          ),
        },
      ],
    },
  },
};
