import { after, before } from "node:test";
import type { Browser } from "playwright-core";
import { launchBrowser } from "./browser";
import { startSite, type RunningSite } from "./server";

/** Starts the production site and Chromium before a test file's tests and stops both after them. */
export const useSiteAndBrowser = () => {
  const suite = {} as { site: RunningSite; browser: Browser };
  before(async () => {
    [suite.site, suite.browser] = await Promise.all([startSite(), launchBrowser()]);
  });
  after(async () => {
    await suite.browser?.close();
    await suite.site?.stop();
  });
  return suite;
};
