import fs from "node:fs";
import path from "node:path";
import type { Page } from "@playwright/test";
import { changedLines, headingStyle, openSiteFile, previewFrame, publish, textField } from "./admin-support";
import { chromeFlags, chromiumUse } from "../testing/browser";
import { expect, test } from "./support/fixtures";
import { freePortNow, startSite, type RunningSite } from "../testing/site-server";
import { adminPolicy } from "../build/admin-headers";
import { readEditingBackend } from "../src/admin/editing-backend";
import {
  FAKE_CLIENT_ID,
  FAKE_CLIENT_SECRET,
  seedFromFolder,
  startFakeGithub,
  type FakeGithub,
} from "../testing/fake-github";

// The live editing path on the production build, offline: /admin/ under the build's own live policy →
// "Login with GitHub" (the popup runs the site's /api/auth handshake against a GitHub stand-in on
// loopback, testing/fake-github.ts) → the collections read from the stand-in's REST API →
// an edit of the home hero headline → Publish (or, with the editorial workflow, Save as a draft) → the
// commits the stand-in received.
//
// What is the build's and what is the test's:
// - public/ (the page, Decap's bundle, admin.js and the /admin/ headers with their policy) is the build's,
//   as CI builds it once for every browser test.
// - config.json is the build's with the test's repository (CMS_GITHUB_REPO) and workflow setting in it,
//   checked to be exactly what readEditingBackend writes for them: the one build serves both workflows.
// - Decap's calls to https://api.github.com, the api_root the build wrote and its policy allows, are sent
//   on to the stand-in's API (Chromium cannot reach GitHub from here). The production server's sign-in
//   talks to the stand-in as to a GitHub Enterprise Server (CMS_GITHUB_URL).
// - The browser reaches the site as http://editing.test:<port>, not 127.0.0.1: admin.js treats a
//   loopback address as an editor's own machine (local backend, no review step), which the live site is not.
//   Chromium treats that origin as secure, as the live site's HTTPS is: Decap needs a secure context
//   (crypto.randomUUID), so the editing screen works only over HTTPS or on localhost.

const REPO = "cardinal-ridge/site";
const BRANCH = "main";
const SITE_HOST = "editing.test";
const root = path.resolve(__dirname, "..");
// Chosen before the browser starts, which must be told the site's origin.
const sitePort = Number(freePortNow());
const siteUrl = `http://${SITE_HOST}:${sitePort}`;

test.use({
  launchOptions: {
    ...chromiumUse.launchOptions,
    args: [
      ...chromeFlags,
      `--host-resolver-rules=MAP ${SITE_HOST} 127.0.0.1`,
      `--unsafely-treat-insecure-origin-as-secure=${siteUrl}`,
    ],
  },
});

// Decap's bundle, a sign-in and a save, on a machine shared with other work.
test.describe.configure({ timeout: 90_000 });

let github: FakeGithub;
let site: RunningSite;
test.beforeEach(async () => {
  github = await startFakeGithub(seedFromFolder(root, "content", REPO, BRANCH));
  site = await startSite({
    port: sitePort,
    env: {
      CMS_GITHUB_CLIENT_ID: FAKE_CLIENT_ID,
      CMS_GITHUB_CLIENT_SECRET: FAKE_CLIENT_SECRET,
      CMS_GITHUB_URL: github.url,
    },
  });
});
test.afterEach(async ({ page }) => {
  // Decap goes on polling GitHub after a test's last check: a call routed to the stand-in just then would
  // fail as it closes ("other side closed"), a failure of the test after it passed. The calls under way end
  // first; later ones are not routed.
  await page.unrouteAll({ behavior: "wait" });
  const testInfo = test.info();
  // What Decap asked the stand-in, for a failure's report.
  if (testInfo.status !== testInfo.expectedStatus) {
    const calls = { requests: github.requests, unanswered: github.unanswered, writes: github.writes };
    const file = testInfo.outputPath("github-calls.json");
    fs.writeFileSync(file, JSON.stringify(calls, null, 2));
    await testInfo.attach("github-calls.json", { path: file, contentType: "application/json" });
  }
  await site.stop();
  await github.close();
});

type EditingConfig = { backend: Record<string, unknown>; publish_mode?: string } & Record<string, unknown>;

/**
 * The build's config.json with this test's settings, after checking that it is what the build writes for
 * them: the build's backend block but for the repository, and readEditingBackend's block for the settings.
 */
const serveConfig = async (page: Page, settings: Record<string, string>) => {
  const built = (await (await fetch(`${site.origin}/admin/config.json`)).json()) as EditingConfig;
  const { connectOrigins, scriptOrigins, ...forTest } = readEditingBackend(settings);
  expect(built.backend).toEqual({ ...forTest.backend, repo: built.backend.repo });
  // Both the build's origins for the policy and the test's are GitHub's API: the built policy is the one under test.
  expect(connectOrigins).toEqual(readEditingBackend().connectOrigins);
  expect(scriptOrigins).toEqual([]);
  const { publish_mode: _buildsMode, ...withoutMode } = built;
  const config = { ...withoutMode, ...forTest };
  await page.route(`${siteUrl}/admin/config.json`, (route) => route.fulfill({ json: config }));
  return config;
};

/** Decap's calls to GitHub's API, answered by the stand-in's, as a GitHub Enterprise Server at its api_root would. */
const routeGithubApi = (page: Page) =>
  page.route("https://api.github.com/**", async (route) => {
    const request = route.request();
    const url = new URL(request.url());
    const { host: _host, ...headers } = request.headers();
    const answer = await fetch(`${github.apiRoot}${url.pathname}${url.search}`, {
      method: request.method(),
      headers,
      body: request.postData() ?? undefined,
    });
    await route.fulfill({
      status: answer.status,
      headers: Object.fromEntries(answer.headers),
      body: Buffer.from(await answer.arrayBuffer()),
    });
  });

/** /admin/ → Login with GitHub → the stand-in's authorize page → Authorize → the collections. */
const signInWithGithub = async (page: Page) => {
  const response = await page.goto(`${siteUrl}/admin/`);
  const popupOpened = page.waitForEvent("popup");
  await page.getByRole("button", { name: "Login with GitHub" }).click();
  const popup = await popupOpened;
  // The popup closes itself as soon as the token is handed over: listened for before the click that leads there.
  const closed = new Promise((resolve) => popup.once("close", resolve));
  await popup.getByRole("link", { name: "Authorize" }).click();
  await closed;
  await expect(page.getByRole("link", { name: "Site content", exact: true })).toBeVisible();
  return response;
};

const homeJson = (commitSha: string) => github.filesAt(commitSha).get("content/home.json")?.toString("utf8") ?? "";
const changedFiles = (from: string, to: string) => {
  const before = github.filesAt(from);
  const after = github.filesAt(to);
  return [...new Set([...before.keys(), ...after.keys()])].filter(
    (file) => !before.get(file)?.equals(after.get(file) ?? Buffer.alloc(0)),
  );
};
const NEW_HEADLINE = "Trusted Supplier to Government and Military";

test("sign in with GitHub, edit the hero headline, publish: one commit on the branch, one line of content/home.json", async ({
  page,
  browser,
  consoleErrors,
  cspViolations,
}) => {
  await serveConfig(page, { CMS_GITHUB_REPO: REPO, CMS_GITHUB_BRANCH: BRANCH, CMS_EDITORIAL_WORKFLOW: "0" });
  await routeGithubApi(page);
  const base = github.branches.get(BRANCH) ?? "";

  const response = await signInWithGithub(page);
  // The build's live policy, with no http: source, is the one the whole path ran under.
  expect(response?.headers()["content-security-policy"]).toBe(adminPolicy());
  expect(response?.headers()["content-security-policy"]).not.toContain("http:");
  expect(github.authorizations).toEqual([
    expect.objectContaining({ client_id: FAKE_CLIENT_ID, redirect_uri: `${siteUrl}/api/auth/callback` }),
  ]);
  expect(github.requests).toEqual(expect.arrayContaining(["GET /user", `GET /repos/${REPO}`]));

  await openSiteFile(page, "Home page");
  await textField(page, "Headline").fill(NEW_HEADLINE);
  // The preview pane draws the edit in the site's own heading style, as the live home page at its width does.
  const frame = await previewFrame(page);
  await expect(frame.locator("main h1")).toHaveText(NEW_HEADLINE);
  const frameSize = await page.locator("iframe#preview-pane").boundingBox();
  const live = await browser.newPage({ viewport: { width: Math.round(frameSize!.width), height: 900 } });
  await live.goto(`${site.origin}/`);
  expect(await headingStyle(frame)).toEqual(await headingStyle(live));
  await live.close();
  await publish(page);

  await expect
    .poll(() => github.branches.get(BRANCH), { message: "the branch moves to the new commit" })
    .not.toBe(base);
  const head = github.branches.get(BRANCH) ?? "";
  const commits = github.writes.filter((write) => write.method === "POST" && write.path.endsWith("/git/commits"));
  const refUpdates = github.writes.filter((write) => write.method === "PATCH" && write.path.includes("/git/refs/"));
  expect(commits).toHaveLength(1);
  expect(refUpdates).toEqual([
    { method: "PATCH", path: `/repos/${REPO}/git/refs/heads/${BRANCH}`, body: { sha: head, force: false } },
  ]);
  expect(github.commit(head).parents).toEqual([base]);
  expect(changedFiles(base, head)).toEqual(["content/home.json"]);
  expect(changedLines(homeJson(base), homeJson(head))).toEqual([`    "headline": "${NEW_HEADLINE}",`]);
  expect(github.unanswered).toEqual([]);
  expect(await cspViolations()).toEqual([]);
  expect(consoleErrors).toEqual([]);
});

test("with the editorial workflow (the default), the same edit saved is a cms/ branch and a draft pull request, the branch untouched", async ({
  page,
  consoleErrors,
  cspViolations,
}) => {
  const config = await serveConfig(page, { CMS_GITHUB_REPO: REPO, CMS_GITHUB_BRANCH: BRANCH });
  expect(config.publish_mode).toBe("editorial_workflow");
  await routeGithubApi(page);
  const base = github.branches.get(BRANCH) ?? "";

  await signInWithGithub(page);
  await expect(page.getByRole("link", { name: "Workflow" })).toBeVisible();
  await openSiteFile(page, "Home page");
  await textField(page, "Headline").fill(NEW_HEADLINE);
  await page.getByRole("button", { name: "Save", exact: true }).click();

  await expect.poll(() => github.pulls.length, { message: "a pull request is opened" }).toBe(1);
  const [pull] = github.pulls;
  expect(pull?.headRef).toMatch(/^cms\//);
  expect(pull).toMatchObject({ baseRef: BRANCH, state: "open" });
  await expect.poll(() => pull?.labels).toEqual(["decap-cms/draft"]);
  const draft = github.branches.get(pull?.headRef ?? "") ?? "";
  expect(github.commit(draft).parents).toEqual([base]);
  expect(changedFiles(base, draft)).toEqual(["content/home.json"]);
  expect(changedLines(homeJson(base), homeJson(draft))).toEqual([`    "headline": "${NEW_HEADLINE}",`]);
  // Nothing is published until the pull request is merged.
  expect(github.branches.get(BRANCH)).toBe(base);
  expect(github.writes.filter((write) => write.path.endsWith(`/git/refs/heads/${BRANCH}`))).toEqual([]);
  expect(github.unanswered).toEqual([]);
  expect(await cspViolations()).toEqual([]);
  expect(consoleErrors).toEqual([]);
});
