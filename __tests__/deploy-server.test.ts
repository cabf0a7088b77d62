/**
 * @jest-environment node
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import examples from "@octokit/webhooks-examples";
import type { SiteServer } from "../server/app";
import { Deployer } from "../server/releases/deployer";
import { buildDirOf, listReleases, publicDirOf, siteDirOf } from "../server/releases/release-store";
import type { DeploySettings } from "../server/releases/settings";
import { DEPLOY_WEBHOOK_PATH } from "../server/releases/webhook-plugin";
import { localReleases, type ReleaseControl } from "../server/releases/worker-link";
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
import { healthDetailsHeaders } from "../testing/site-server";
import { startInquiryApp } from "./support/inquiry-app";
import type { Send } from "./support/inquiry-posts";

/**
 * The server's side of the deploys: GitHub's webhook and /healthz, with a real deployer behind them as the
 * primary holds one (server/releases/primary.ts). Switching the server that answers to the new release is the
 * primary's; this server keeps answering from its own folder's build.
 */

const content = readInquiryContent(path.resolve("content"));
const pushExample = (examples.find((definition) => definition.name === "push")?.examples[0] ?? {}) as Record<
  string,
  unknown
>;

interface Running {
  readonly server: SiteServer;
  readonly deployer: Deployer;
  readonly origin: string;
  /** fetch's shape over app.inject(): the deploys, not the sockets, are this test's subject. */
  readonly fetch: Send;
  readonly settings: DeploySettings;
  readonly repository: SourceRepository;
  /** The server's and the deployer's log lines, in the order they came. */
  readonly logs: string[];
  /** Every commit the webhook route asked the deploys for. */
  readonly requested: string[];
}

let running: Running | null = null;

// Each deploy runs git, the stand-in build and the release's stand-in server in processes of their own:
// seconds on a busy machine.
jest.setTimeout(60_000);

afterEach(async () => {
  await running?.server.close();
  await running?.deployer.stop();
  running = null;
});

interface StartOptions {
  readonly settings?: Partial<DeploySettings>;
  /** The release the server is, as the primary tells its worker (null: the checkout). */
  readonly served?: string | null;
  /** Whether the deploys can be reached; not once the primary has retired this server. */
  readonly reachable?: boolean;
}

/** What this test's deploys answer a push they cannot take, as the primary's channel closed or the server stopping would. */
const NOT_TAKEN = "The server that runs the deploys did not answer.";

const start = async ({
  settings: overrides = {},
  served = null,
  reachable = true,
}: StartOptions = {}): Promise<Running> => {
  const repository = makeSourceRepository({
    "package-lock.json": "{}\n",
    "content/home.json": homeJson("Uniforms for every agency"),
  });
  const settings = deploySettingsFor(repository, overrides);
  const logs: string[] = [];
  const requested: string[] = [];
  const log = (line: string) => logs.push(line);
  const deployer = new Deployer({ settings, log, steps: fakeSteps() });
  const local = localReleases(deployer);
  const control: ReleaseControl = {
    request: (commit, delivery) => {
      requested.push(commit);
      return reachable ? local.request(commit, delivery) : Promise.resolve({ accepted: false, message: NOT_TAKEN });
    },
    status: () => local.status(),
  };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "deploy-data-"));
  // The server answers from its own build (startInquiryApp's), whichever release is live.
  const { server, origin, fetch } = await startInquiryApp({
    content,
    config: () => readInquiryConfig(content.form.delivery, { INQUIRY_DATA_DIR: dataDir }),
    log,
    releases: { served, control, webhookSecret: settings.webhookSecret, branch: settings.branch },
    listen: false,
  });
  running = { server, deployer, origin, fetch, settings, repository, logs, requested };
  return running;
};

const headlineOf = (html: string) => /<h1>(.*?)<\/h1>/.exec(html)?.[1];

const releaseHeadline = (site: Running, id: string) =>
  headlineOf(fs.readFileSync(path.join(publicDirOf(site.settings.dir, id), "index.html"), "utf8"));

const push = (site: Running, commit: string, secret = site.settings.webhookSecret ?? "") => {
  const body = pushBody(pushExample, "refs/heads/main", commit);
  return site.fetch(`${site.origin}${DEPLOY_WEBHOOK_PATH}`, {
    method: "POST",
    headers: githubDelivery("push", body, secret),
    body,
  });
};

interface Health {
  status: string;
  site: {
    liveCommit: string | null;
    liveRelease: string | null;
    servedRelease: string | null;
    degraded: boolean;
    deploying: boolean;
    queuedCommit: string | null;
    lastDeploy: { commit: string; state: string; failedStep: string | null; reason: string | null } | null;
  };
}

/** /healthz's details, which take the token (HEALTH_TOKEN, the tests' own in startInquiryApp). */
const health = async (site: Running) =>
  (await (await site.fetch(`${site.origin}/healthz`, { headers: healthDetailsHeaders })).json()) as Health;

const waitFor = async (done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 20));
};

describe("the server's side of the deploys", () => {
  it("answers a signed push 202 at once, and the deploy builds it, starts its server and puts it live, named in /healthz", async () => {
    const site = await start();
    const commit = site.repository.commit(
      { "content/home.json": homeJson("Office furniture, delivered") },
      "New headline",
    );
    const answer = await push(site, commit);
    expect(answer.status).toBe(202);
    expect(await answer.json()).toEqual({ message: "deploying", commit });
    expect(site.requested).toEqual([commit]);
    // The answer came before the build: it is still under way, and /healthz says so.
    expect((await health(site)).site).toMatchObject({ deploying: true, liveCommit: null });
    await site.deployer.idle();

    const [release, ...others] = listReleases(site.settings.dir);
    expect(others).toEqual([]);
    expect(release).toMatchObject({ commit, state: "good", live: true });
    const id = release?.id ?? "";
    expect(releaseHeadline(site, id)).toBe("Office furniture, delivered");
    // Built in the one build folder, and the release's own server (the one the build wrote) was started
    // once, for its start check, before the release went live.
    expect(fs.existsSync(path.join(buildDirOf(site.settings.dir), "dist", "server", "main.js"))).toBe(true);
    expect(fs.existsSync(path.join(siteDirOf(site.settings.dir, id), "dist", "server", "main.js"))).toBe(true);
    expect(
      fs
        .readFileSync(path.join(buildDirOf(site.settings.dir), "public", "started.txt"), "utf8")
        .split("\n")
        .filter(Boolean),
    ).toHaveLength(1);

    expect(await health(site)).toMatchObject({
      status: "ok",
      site: {
        liveCommit: commit,
        liveRelease: id,
        degraded: false,
        deploying: false,
        queuedCommit: null,
        lastDeploy: { commit, state: "good", failedStep: null, reason: null },
      },
    });
    expect(site.logs).toContain(`deploy: push of ${commit.slice(0, 12)} to main received: deploying`);
    // The switch to the new release's server is the primary's: this server still answers from its own build.
    expect(headlineOf(await (await site.fetch(site.origin)).text())).toBe("Home");
  });

  it("refuses an unsigned or wrongly signed push with 401 and deploys nothing", async () => {
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
    expect(site.requested).toEqual([]);
    expect(site.deployer.status().running).toBe(false);
    expect(listReleases(site.settings.dir)).toEqual([]);
    expect((await health(site)).site).toMatchObject({ liveCommit: null, deploying: false, lastDeploy: null });
  });

  it("answers 503 to a push that arrives as the server is retired, so that GitHub lists it to deliver again", async () => {
    const site = await start({ reachable: false });
    const commit = site.repository.commit({ "content/home.json": homeJson("Pushed at the switch") }, "At the switch");
    const answer = await push(site, commit);
    expect(answer.status).toBe(503);
    expect(await answer.json()).toEqual({ message: NOT_TAKEN });
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(site.requested).toEqual([commit]);
    expect(site.deployer.status().running).toBe(false);
    expect(site.logs).toContain(`deploy: push of ${commit.slice(0, 12)} to main not taken: ${NOT_TAKEN}`);
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
    expect(site.requested).toEqual([]);
    expect(site.deployer.status().running).toBe(false);
    expect(listReleases(site.settings.dir)).toEqual([]);
  });

  it("says in /healthz that it is degraded, with the failed step and the reason's first line, until a push goes live", async () => {
    const site = await start();
    const good = site.repository.commit({ "content/home.json": homeJson("Tactical gear") }, "Good");
    await push(site, good);
    await site.deployer.idle();
    const broken = site.repository.commit({ "content/home.json": homeJson("BROKEN") }, "Broken");
    await push(site, broken);
    await site.deployer.idle();

    const failed = await health(site);
    expect(failed.status).toBe("degraded: the newest push failed to deploy");
    expect(failed.site).toMatchObject({
      degraded: true,
      liveCommit: good,
      lastDeploy: {
        commit: broken,
        state: "failed",
        failedStep: "check",
        reason: "the content check failed (exit code 1)",
      },
    });
    // The details are the operator's (npm run releases, the release's build.log), not every visitor's.
    expect(listReleases(site.settings.dir)[0]?.reason).toContain("content/home.json: headline: this is not a headline");
    expect(JSON.stringify(failed)).not.toContain("this is not a headline");
    // Without the token, the status alone.
    expect(await (await site.fetch(`${site.origin}/healthz`)).json()).toEqual({
      status: "degraded: the newest push failed to deploy",
    });

    const fixed = site.repository.commit({ "content/home.json": homeJson("Tactical gear, fixed") }, "Fixed");
    await push(site, fixed);
    await site.deployer.idle();
    expect(await health(site)).toMatchObject({
      status: "ok",
      site: { degraded: false, liveCommit: fixed, lastDeploy: { commit: fixed, state: "good" } },
    });
  });

  it("deploys the branch's head for a push of a commit that does not exist, and changes nothing when that is live", async () => {
    const site = await start();
    const head = site.repository.commit({ "content/home.json": homeJson("The real head") }, "Head");
    await push(site, head);
    await site.deployer.idle();
    const answer = await push(site, "f".repeat(40));
    expect(answer.status).toBe(202);
    expect(site.requested).toEqual([head, "f".repeat(40)]);
    await site.deployer.idle();
    const releases = listReleases(site.settings.dir);
    expect(releases.map((release) => [release.commit, release.live])).toEqual([[head, true]]);
    expect(releaseHeadline(site, releases[0]?.id ?? "")).toBe("The real head");
    expect(site.logs).toContain(
      `deploy: ffffffffffff was pushed; the branch is now at ${head.slice(0, 12)}, which is deployed`,
    );
    expect(site.logs).toContain(`deploy: ${head.slice(0, 12)} is already live`);
    expect((await health(site)).site).toMatchObject({ liveCommit: head, lastDeploy: { commit: head, state: "good" } });
  });

  it("folds the pushes that arrive during a build into one more deploy, of the newest, after that build fails", async () => {
    const site = await start();
    const failing = site.repository.commit(
      { "content/home.json": homeJson("Fails late"), "content/build-ms.txt": "2000", "content/disk-full.txt": "" },
      "Fails in its build",
    );
    await push(site, failing);
    // Only once its release is building does the branch move on: the deploy fetches the branch's head.
    await waitFor(() => listReleases(site.settings.dir)[0]?.state === "building");
    const between = site.repository.commit(
      { "content/disk-full.txt": null, "content/home.json": homeJson("In between") },
      "In between",
    );
    expect((await push(site, between)).status).toBe(202);
    const fixed = site.repository.commit(
      { "content/build-ms.txt": null, "content/home.json": homeJson("Fixed") },
      "Fixed",
    );
    expect((await push(site, fixed)).status).toBe(202);
    // One deploy runs, and only the newest push waits for it.
    expect((await health(site)).site).toMatchObject({ deploying: true, queuedCommit: fixed });
    await site.deployer.idle();

    const releases = listReleases(site.settings.dir);
    expect(releases.map((release) => [release.commit, release.state, release.failedStep, release.live])).toEqual([
      [fixed, "good", undefined, true],
      [failing, "failed", "build", false],
    ]);
    expect(releaseHeadline(site, releases[0]?.id ?? "")).toBe("Fixed");
    expect((await health(site)).site).toMatchObject({
      liveCommit: fixed,
      degraded: false,
      deploying: false,
      queuedCommit: null,
    });
  });

  it("names the release it serves in /healthz as it was given, beside the live one", async () => {
    const checkout = await start();
    expect((await health(checkout)).site).toMatchObject({ servedRelease: null, liveRelease: null });
    await checkout.server.close();
    await checkout.deployer.stop();

    // During a switch the primary's old worker answers for a moment while another release is live.
    const site = await start({ served: "20240102T030405.678Z-0123456789ab" });
    const commit = site.repository.commit({ "content/home.json": homeJson("Newer") }, "Newer");
    await push(site, commit);
    await site.deployer.idle();
    const { site: state } = await health(site);
    expect(state.servedRelease).toBe("20240102T030405.678Z-0123456789ab");
    expect(state.liveCommit).toBe(commit);
    expect(state.liveRelease).toBe(listReleases(site.settings.dir)[0]?.id);
    expect(state.liveRelease).not.toBe(state.servedRelease);
  });

  it("has no webhook route without a secret, and still reports the deploys in /healthz", async () => {
    const site = await start({ settings: { webhookSecret: null } });
    const answer = await push(site, "a".repeat(40), "anything");
    expect(answer.status).toBe(404);
    expect(site.requested).toEqual([]);
    expect((await health(site)).site).toMatchObject({ liveCommit: null, deploying: false });
  });
});
