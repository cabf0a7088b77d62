/**
 * @jest-environment node
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import examples from "@octokit/webhooks-examples";
import type { SiteServer } from "../server/app";
import { DEPLOY_WEBHOOK_PATH } from "../server/releases/webhook-plugin";
import { listReleases, makeLive } from "../server/releases/release-store";
import type { DeploySettings } from "../server/releases/settings";
import { readInquiryConfig } from "../server/inquiries/config";
import { readInquiryContent } from "../server/inquiries/content-on-disk";
import {
  deploySettingsFor,
  fakeSteps,
  githubDelivery,
  homeJson,
  makeSourceRepository,
  pushBody,
  type SourceRepository,
} from "./support/deploy-repository";
import { startInquiryApp } from "./support/inquiry-app";
import type { Send } from "./support/inquiry-posts";

const content = readInquiryContent(path.resolve("content"));
const pushExample = (examples.find((definition) => definition.name === "push")?.examples[0] ?? {}) as Record<
  string,
  unknown
>;

interface Running {
  readonly server: SiteServer;
  readonly origin: string;
  /** fetch's shape over app.inject(): the deploys, not the sockets, are this test's subject. */
  readonly fetch: Send;
  readonly settings: DeploySettings;
  readonly repository: SourceRepository;
  readonly logs: string[];
}

let running: Running | null = null;

// Each deploy runs git and the stand-in build in processes of their own: seconds on a busy machine.
jest.setTimeout(60_000);

afterEach(async () => {
  await running?.server.close();
  running = null;
  delete process.env.BUILD_RECORD;
});

const start = async (overrides: Partial<DeploySettings> = {}): Promise<Running> => {
  const repository = makeSourceRepository({
    "package-lock.json": "{}\n",
    "content/home.json": homeJson("Uniforms for every agency"),
  });
  const settings = deploySettingsFor(repository, overrides);
  const logs: string[] = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "deploy-data-"));
  // Until the first release goes live, the server answers from its own build (startInquiryApp's).
  const { server, origin, fetch } = await startInquiryApp({
    content,
    config: () => readInquiryConfig(content.form.delivery, { INQUIRY_DATA_DIR: dataDir }),
    log: (line) => logs.push(line),
    deploy: { deploy: settings, deploySteps: fakeSteps() },
    listen: false,
  });
  running = { server, origin, fetch, settings, repository, logs };
  return running;
};

const headlineOf = (html: string) => /<h1>(.*?)<\/h1>/.exec(html)?.[1];

const push = (site: Running, commit: string, secret = site.settings.webhookSecret ?? "") => {
  const body = pushBody(pushExample, "refs/heads/main", commit);
  return site.fetch(`${site.origin}${DEPLOY_WEBHOOK_PATH}`, {
    method: "POST",
    headers: githubDelivery("push", body, secret),
    body,
  });
};

const health = async (site: Running) =>
  (await (await site.fetch(`${site.origin}/healthz`)).json()) as {
    status: string;
    site: {
      liveCommit: string | null;
      degraded: boolean;
      lastDeploy: { commit: string; state: string; failedStep: string | null; reason: string | null } | null;
    };
  };

describe("the single server's deploys", () => {
  it("builds a signed push, answers 202 at once, and serves the new headline with its own headers, naming the commit in /healthz", async () => {
    const site = await start();
    expect(headlineOf(await (await site.fetch(site.origin)).text())).toBe("Home");
    const commit = site.repository.commit(
      { "content/home.json": homeJson("Office furniture, delivered") },
      "New headline",
    );
    const answer = await push(site, commit);
    expect(answer.status).toBe(202);
    expect(await answer.json()).toEqual({ message: "deploying", commit });
    // The answer came before the build: it is still under way.
    expect(site.server.deployer?.status().running).toBe(true);
    await site.server.deployer?.idle();
    const page = await site.fetch(site.origin);
    expect(headlineOf(await page.text())).toBe("Office furniture, delivered");
    // The release's own policy (fake-site-build.js names the headline in it), not the first build's.
    expect(page.headers.get("content-security-policy")).toContain("sha256-Officefurnituredelivered");
    expect((await health(site)).site).toMatchObject({
      liveCommit: commit,
      lastDeploy: { commit, state: "good", reason: null },
    });
  });

  it("starts nothing for an unsigned or wrongly signed push", async () => {
    const site = await start();
    const commit = site.repository.commit({ "content/home.json": homeJson("Not from GitHub") }, "Forged");
    const body = pushBody(pushExample, "refs/heads/main", commit);
    const unsigned = await site.fetch(`${site.origin}${DEPLOY_WEBHOOK_PATH}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-github-event": "push" },
      body,
    });
    expect(unsigned.status).toBe(401);
    expect((await push(site, commit, "a guessed secret")).status).toBe(401);
    expect(site.server.deployer?.status().running).toBe(false);
    expect(listReleases(site.settings.dir)).toEqual([]);
  });

  it("refuses a body over the limit before a deploy could start", async () => {
    const site = await start();
    const body = JSON.stringify({ ...pushExample, padding: "x".repeat(2 * 1024 * 1024) });
    const answer = await site.fetch(`${site.origin}${DEPLOY_WEBHOOK_PATH}`, {
      method: "POST",
      headers: githubDelivery("push", body, site.settings.webhookSecret ?? ""),
      body,
    });
    expect(answer.status).toBe(413);
    expect(site.server.deployer?.status().running).toBe(false);
  });

  it("keeps the live site when a commit's content is broken, and /healthz says why and that it is degraded until a good push", async () => {
    const site = await start();
    const good = site.repository.commit({ "content/home.json": homeJson("Tactical gear") }, "Good");
    await push(site, good);
    await site.server.deployer?.idle();
    const broken = site.repository.commit({ "content/home.json": homeJson("BROKEN") }, "Broken");
    await push(site, broken);
    await site.server.deployer?.idle();
    expect(headlineOf(await (await site.fetch(site.origin)).text())).toBe("Tactical gear");
    const { site: state } = await health(site);
    expect(state.liveCommit).toBe(good);
    expect(state.lastDeploy).toMatchObject({ commit: broken, state: "failed", failedStep: "check" });
    expect(state.lastDeploy?.reason).toBe("the content check failed (exit code 1)");
    expect(state.degraded).toBe(true);
    expect((await health(site)).status).toBe("degraded: the newest push failed to deploy");
    // The details are the operator's (npm run releases, the release's build.log), not every visitor's.
    expect(listReleases(site.settings.dir)[0]?.reason).toContain("content/home.json: headline: this is not a headline");
    const fixed = site.repository.commit({ "content/home.json": homeJson("Tactical gear, fixed") }, "Fixed");
    await push(site, fixed);
    await site.server.deployer?.idle();
    expect(await health(site)).toMatchObject({ status: "ok", site: { degraded: false, liveCommit: fixed } });
  });

  it("deploys the branch's head for a push of a commit that does not exist, and changes nothing when that is live", async () => {
    const site = await start();
    const head = site.repository.commit({ "content/home.json": homeJson("The real head") }, "Head");
    await push(site, head);
    await site.server.deployer?.idle();
    const answer = await push(site, "f".repeat(40));
    expect(answer.status).toBe(202);
    await site.server.deployer?.idle();
    expect(headlineOf(await (await site.fetch(site.origin)).text())).toBe("The real head");
    expect(listReleases(site.settings.dir)).toHaveLength(1);
    expect(site.logs).toContain(
      `deploy: ffffffffffff was pushed; the branch is now at ${head.slice(0, 12)}, which is deployed`,
    );
    expect(site.logs).toContain(`deploy: ${head.slice(0, 12)} is already live`);
  });

  it("takes a push that arrives while a failing build runs, and puts it live after that build fails", async () => {
    const site = await start();
    const failing = site.repository.commit(
      { "content/home.json": homeJson("Fails late"), "content/build-ms.txt": "800", "content/disk-full.txt": "" },
      "Fails in its build",
    );
    await push(site, failing);
    // Only once its release is building does the branch move on: the deploy fetches the branch's head.
    while (listReleases(site.settings.dir)[0]?.state !== "building") {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const fixed = site.repository.commit(
      { "content/disk-full.txt": null, "content/build-ms.txt": null, "content/home.json": homeJson("Fixed") },
      "Fixed",
    );
    expect((await push(site, fixed)).status).toBe(202);
    await site.server.deployer?.idle();
    expect(headlineOf(await (await site.fetch(site.origin)).text())).toBe("Fixed");
    expect(
      listReleases(site.settings.dir).map((release) => [release.commit, release.state, release.failedStep]),
    ).toEqual([
      [fixed, "good", undefined],
      [failing, "failed", "build"],
    ]);
  });

  it("logs a switch of the live release made outside the server: a rollback from the command line", async () => {
    const site = await start();
    const first = site.repository.commit({ "content/home.json": homeJson("First") }, "First");
    await push(site, first);
    await site.server.deployer?.idle();
    const second = site.repository.commit({ "content/home.json": homeJson("Second") }, "Second");
    await push(site, second);
    await site.server.deployer?.idle();
    await site.fetch(site.origin);
    const [newer, older] = listReleases(site.settings.dir);
    expect(site.logs.filter((line) => line.startsWith("site:"))).toEqual([]);
    makeLive(site.settings.dir, older?.id ?? "");
    expect(headlineOf(await (await site.fetch(site.origin)).text())).toBe("First");
    expect(site.logs.filter((line) => line.startsWith("site:"))).toEqual([
      `site: the live release is now ${older?.id} (it was ${newer?.id}), switched outside the server (a rollback, or a deploy, by the releases command)`,
    ]);
  });

  it("answers every request made throughout a deploy and a rollback with a whole page and that page's own headers", async () => {
    const site = await start();
    const first = site.repository.commit({ "content/home.json": homeJson("First") }, "First");
    await push(site, first);
    await site.server.deployer?.idle();
    const second = site.repository.commit(
      { "content/home.json": homeJson("Second"), "content/build-ms.txt": "800" },
      "Second, slow to build",
    );
    const firstRelease = listReleases(site.settings.dir).find((release) => release.commit === first);
    const loading = { on: true };
    const answers: { status: number; headline: string | undefined; policy: string | null; whole: boolean }[] = [];
    const load = (async () => {
      while (loading.on) {
        const page = await site.fetch(site.origin);
        const html = await page.text();
        answers.push({
          status: page.status,
          headline: headlineOf(html),
          policy: page.headers.get("content-security-policy"),
          whole: html.endsWith("</body></html>"),
        });
      }
    })();
    await push(site, second);
    await site.server.deployer?.idle();
    // Visitors meet the new release for a while before it is rolled back.
    await new Promise((resolve) => setTimeout(resolve, 300));
    // And back: the rollback of `npm run releases -- --rollback`, made by another process in production.
    makeLive(site.settings.dir, firstRelease?.id ?? "");
    await new Promise((resolve) => setTimeout(resolve, 200));
    loading.on = false;
    await load;
    expect(answers.length).toBeGreaterThan(20);
    expect(answers.every((answer) => answer.status === 200 && answer.whole)).toBe(true);
    // Each page came with the headers of the build that made it.
    expect(answers.every((answer) => answer.policy?.includes(`sha256-${answer.headline ?? "none"}`))).toBe(true);
    const sequence = answers
      .map((answer) => answer.headline)
      .filter((headline, index, all) => headline !== all[index - 1]);
    expect(sequence).toEqual(["First", "Second", "First"]);
  });

  it("has no webhook route without a secret", async () => {
    const site = await start({ webhookSecret: null });
    const answer = await push(site, "a".repeat(40), "anything");
    expect(answer.status).toBe(404);
  });
});
