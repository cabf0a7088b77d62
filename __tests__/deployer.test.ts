/**
 * @jest-environment node
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { acquireDeployLock, Deployer } from "../server/releases/deployer";
import {
  listReleases,
  liveReleaseId,
  makeLive,
  publicDirOf,
  siteDirOf,
  writeReleaseRecord,
} from "../server/releases/release-store";
import { readDeploySettings, type DeploySettings } from "../server/releases/settings";
import {
  deploySettingsFor,
  fakeSteps,
  homeJson,
  makeSourceRepository,
  type SourceRepository,
} from "./support/deploy-repository";

const lockfile = (version: string) => `${JSON.stringify({ name: "site", lockfileVersion: 3, version })}\n`;

const setUp = (overrides: Partial<DeploySettings> = {}) => {
  const repository = makeSourceRepository({
    "package-lock.json": lockfile("1"),
    "content/home.json": homeJson("First headline"),
  });
  const settings = deploySettingsFor(repository, overrides);
  const record = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "builds-")), "builds.txt");
  process.env.BUILD_RECORD = record;
  const lines: string[] = [];
  const deployer = new Deployer({ settings, log: (line) => lines.push(line), steps: fakeSteps() });
  const builds = () => (fs.existsSync(record) ? fs.readFileSync(record, "utf8").split("\n").filter(Boolean) : []);
  const liveHeadline = () => {
    const id = liveReleaseId(settings.dir);
    if (!id) return null;
    return /<h1>(.*?)<\/h1>/.exec(fs.readFileSync(path.join(publicDirOf(settings.dir, id), "index.html"), "utf8"))?.[1];
  };
  return { repository, settings, deployer, lines, builds, liveHeadline };
};

/** The lock a killed deploy left: its folder, not renewed for a minute. */
const leaveDeadLock = (deployDir: string) => {
  const lock = path.join(deployDir, "deploy.lock");
  fs.mkdirSync(lock);
  const minuteAgo = new Date(Date.now() - 60_000);
  fs.utimesSync(lock, minuteAgo, minuteAgo);
};

const editHeadline = (repository: SourceRepository, headline: string, extra: Record<string, string> = {}) =>
  repository.commit({ "content/home.json": homeJson(headline), ...extra }, `Headline: ${headline}`);

// Each deploy runs git and the stand-in build in processes of their own: seconds on a busy machine.
jest.setTimeout(60_000);

afterEach(() => {
  delete process.env.BUILD_RECORD;
});

describe("a deploy", () => {
  it("builds the branch's head in a release of its own and makes it live; the same commit again builds nothing", async () => {
    const { deployer, settings, liveHeadline, builds, lines } = setUp();
    const release = await deployer.deployOnce();
    expect(release).toMatchObject({ state: "good", dependencies: "installed", branch: "main" });
    expect(liveHeadline()).toBe("First headline");
    expect(deployer.status()).toMatchObject({ live: { commit: release?.commit, live: true }, last: { state: "good" } });
    expect(await deployer.deployOnce()).toBeNull();
    expect(builds()).toEqual(["First headline"]);
    expect(lines.some((line) => line.includes("is already live"))).toBe(true);
    expect(fs.readdirSync(path.join(settings.dir, "releases"))).toHaveLength(1);
  });

  it("reuses the installed modules while the lockfile is the same, and installs when it changed", async () => {
    const { deployer, settings, repository } = setUp();
    await deployer.deployOnce();
    editHeadline(repository, "Second headline");
    const reused = await deployer.deployOnce();
    expect(reused).toMatchObject({ state: "good", dependencies: "reused" });
    expect(
      fs.readFileSync(path.join(siteDirOf(settings.dir, reused?.id ?? ""), "node_modules", "installed.txt"), "utf8"),
    ).toBe("yes\n");
    repository.commit({ "package-lock.json": lockfile("2") }, "A dependency changed");
    expect(await deployer.deployOnce()).toMatchObject({ state: "good", dependencies: "installed" });
  });

  it("reuses the server's own modules for the first release when its lockfile is the same", async () => {
    const { settings } = setUp();
    const project = fs.mkdtempSync(path.join(os.tmpdir(), "project-"));
    fs.writeFileSync(path.join(project, "package-lock.json"), lockfile("1"));
    fs.mkdirSync(path.join(project, "node_modules", ".cache"), { recursive: true });
    fs.writeFileSync(path.join(project, "node_modules", "installed.txt"), "by the operator\n");
    const deployer = new Deployer({ settings, log: () => undefined, steps: fakeSteps(), modulesFrom: project });
    const release = await deployer.deployOnce();
    expect(release).toMatchObject({ state: "good", dependencies: "reused" });
    const modules = path.join(siteDirOf(settings.dir, release?.id ?? ""), "node_modules");
    expect(fs.readFileSync(path.join(modules, "installed.txt"), "utf8")).toBe("by the operator\n");
    // The build cache is the build's own: a hard-linked one would be rewritten under the other folder.
    expect(fs.existsSync(path.join(modules, ".cache"))).toBe(false);
  });

  it("fails on broken content with the check's message, and the live release stays", async () => {
    const { deployer, repository, settings, liveHeadline, lines } = setUp();
    const good = await deployer.deployOnce();
    editHeadline(repository, "BROKEN");
    const failed = await deployer.deployOnce();
    expect(failed).toMatchObject({ state: "failed" });
    expect(failed?.reason).toMatch(
      /^the content check failed \(exit code 1\)\ncontent\/home\.json: headline: this is not a headline/,
    );
    expect(liveReleaseId(settings.dir)).toBe(good?.id);
    expect(liveHeadline()).toBe("First headline");
    expect(deployer.status().last).toMatchObject({ state: "failed", live: false });
    expect(failed?.failedStep).toBe("check");
    expect(lines.at(-1)).toBe(
      `deploy: ${failed?.commit.slice(0, 12)} failed at its check step, the live site is unchanged: ` +
        `the content check failed (exit code 1) (${path.join(settings.dir, "releases", failed?.id ?? "", "build.log")})`,
    );
    // Only its record and its log are kept: why it failed, not a half-built site.
    expect(fs.existsSync(siteDirOf(settings.dir, failed?.id ?? ""))).toBe(false);
    expect(fs.readFileSync(path.join(settings.dir, "releases", failed?.id ?? "", "build.log"), "utf8")).toContain(
      "this is not a headline",
    );
  });

  it.each([
    ["an install that cannot reach the registry", { "content/offline.txt": "" }, "install", /ENOTFOUND/],
    ["a disk that fills during the build", { "content/disk-full.txt": "" }, "build", /ENOSPC: no space left/],
  ])(
    "records %s as the step that failed with its last lines, and the live release stays",
    async (_case, files, step, output) => {
      const { deployer, repository, settings, liveHeadline } = setUp();
      const good = await deployer.deployOnce();
      // A changed lockfile, so the release installs rather than reusing the live release's modules.
      editHeadline(repository, "Never live", { ...files, "package-lock.json": lockfile("2") });
      const failed = await deployer.deployOnce();
      expect(failed).toMatchObject({ state: "failed", failedStep: step });
      expect(failed?.reason).toMatch(output);
      expect(liveReleaseId(settings.dir)).toBe(good?.id);
      expect(liveHeadline()).toBe("First headline");
      expect(fs.existsSync(siteDirOf(settings.dir, failed?.id ?? ""))).toBe(false);
    },
  );

  it("removes a failed release's files and pruned releases in child processes, never inside this process", async () => {
    const { deployer, repository, settings } = setUp({ keep: 1 });
    const removedHere: string[] = [];
    const realRmSync = fs.rmSync.bind(fs);
    const rmSync = jest.spyOn(fs, "rmSync").mockImplementation((target, options) => {
      if (options?.recursive) removedHere.push(String(target));
      realRmSync(target, options);
    });
    try {
      for (const headline of ["One", "Two", "Three"]) {
        editHeadline(repository, headline, { "content/module-files.txt": "2000" });
        await deployer.deployOnce();
      }
      editHeadline(repository, "BROKEN", { "package-lock.json": lockfile("2") });
      const failed = await deployer.deployOnce();
      expect(failed?.state).toBe("failed");
      expect(fs.existsSync(siteDirOf(settings.dir, failed?.id ?? ""))).toBe(false);
      // Three good releases and a failed one, DEPLOY_KEEP=1: the oldest good one was removed.
      expect(listReleases(settings.dir).map((release) => release.state)).toEqual(["failed", "good", "good"]);
      expect(removedHere).toEqual([]);
    } finally {
      rmSync.mockRestore();
    }
  });

  it("stops a deploy that runs past its time limit, and keeps the live release", async () => {
    const { deployer, repository, settings, liveHeadline } = setUp();
    await deployer.deployOnce();
    editHeadline(repository, "Slow headline", { "content/build-ms.txt": "30000" });
    const hurried = new Deployer({
      settings: { ...settings, buildTimeoutMs: 2_000 },
      log: () => undefined,
      steps: fakeSteps(),
    });
    const started = Date.now();
    const killed = await hurried.deployOnce();
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(killed?.state).toBe("failed");
    expect(killed?.reason).toMatch(
      / ran past the deploy's time limit \(DEPLOY_BUILD_TIMEOUT_MINUTES\) and was stopped/,
    );
    expect(liveHeadline()).toBe("First headline");
    expect(listReleases(settings.dir).filter((release) => release.state === "good")).toHaveLength(1);
  });

  it("folds the pushes that arrive during a build into exactly one more build, of the last", async () => {
    const { deployer, repository, builds, liveHeadline } = setUp();
    editHeadline(repository, "Slow first", { "content/build-ms.txt": "1500" });
    deployer.request();
    // Let the first deploy fetch before the branch moves on.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const pushed = ["Second", "Third", "Fourth"].map((headline) =>
      editHeadline(repository, headline, { "content/build-ms.txt": "0" }),
    );
    for (const commit of pushed) deployer.request(commit);
    expect(deployer.status()).toMatchObject({ running: true, queued: pushed[2] });
    await deployer.idle();
    expect(builds()).toEqual(["Slow first", "Fourth"]);
    expect(liveHeadline()).toBe("Fourth");
  });

  it("keeps the configured number of good releases besides the live one, and the newest failed one", async () => {
    const { deployer, repository, settings } = setUp({ keep: 2 });
    for (const headline of ["One", "Two", "Three", "BROKEN", "Four"]) {
      editHeadline(repository, headline);
      await deployer.deployOnce();
    }
    const kept = listReleases(settings.dir).map((release) => `${release.state}${release.live ? " live" : ""}`);
    expect(kept).toEqual(["good live", "failed", "good", "good"]);
  });

  it("marks a deploy that died mid-build as failed, and takes over the lock of a process that is gone", async () => {
    const { deployer, settings } = setUp();
    fs.mkdirSync(siteDirOf(settings.dir, "20260101T000000.000Z-aaaaaaaaaaaa"), { recursive: true });
    writeReleaseRecord(settings.dir, {
      id: "20260101T000000.000Z-aaaaaaaaaaaa",
      commit: "a".repeat(40),
      branch: "main",
      startedAt: "2026-01-01T00:00:00.000Z",
      state: "building",
    });
    leaveDeadLock(settings.dir);
    expect(await deployer.deployOnce()).toMatchObject({ state: "good" });
    expect(listReleases(settings.dir).find((release) => release.commit === "a".repeat(40))).toMatchObject({
      state: "failed",
      reason: expect.stringMatching(/^interrupted/) as unknown,
    });
    expect(fs.existsSync(path.join(settings.dir, "deploy.lock"))).toBe(false);
  });

  it("removes the files of a failed release that a stop kept it from removing, at the next deploy", async () => {
    const { deployer, settings } = setUp();
    const id = "20260101T000000.000Z-bbbbbbbbbbbb";
    fs.mkdirSync(path.join(siteDirOf(settings.dir, id), "node_modules"), { recursive: true });
    writeReleaseRecord(settings.dir, {
      id,
      commit: "b".repeat(40),
      branch: "main",
      startedAt: "2026-01-01T00:00:00.000Z",
      state: "failed",
      failedStep: "check",
      reason: "the content check failed (exit code 1)",
    });
    expect(await deployer.deployOnce()).toMatchObject({ state: "good" });
    expect(fs.existsSync(siteDirOf(settings.dir, id))).toBe(false);
    expect(listReleases(settings.dir).find((release) => release.id === id)).toMatchObject({ state: "failed" });
  });

  it("takes over the lock file an earlier release of the server left, which proper-lockfile would not", async () => {
    const { settings } = setUp();
    fs.mkdirSync(settings.dir, { recursive: true });
    fs.writeFileSync(path.join(settings.dir, "deploy.lock"), "2147483646 12345\n");
    const release = await acquireDeployLock(settings.dir, undefined, false);
    expect(release).not.toBeNull();
    expect(fs.statSync(path.join(settings.dir, "deploy.lock")).isDirectory()).toBe(true);
    release?.();
  });

  it("takes over a lock its holder stopped renewing, and refuses one that is held when told not to wait", async () => {
    const { settings } = setUp();
    fs.mkdirSync(settings.dir, { recursive: true });
    leaveDeadLock(settings.dir);
    const release = await acquireDeployLock(settings.dir, undefined, false);
    expect(release).not.toBeNull();
    expect(await acquireDeployLock(settings.dir, undefined, false)).toBeNull();
    release?.();
    expect(fs.existsSync(path.join(settings.dir, "deploy.lock"))).toBe(false);
  });

  it("waits for the lock while another live process holds it", async () => {
    const { settings } = setUp();
    fs.mkdirSync(settings.dir, { recursive: true });
    const release = await acquireDeployLock(settings.dir);
    let second = false;
    const waiting = acquireDeployLock(settings.dir).then((give) => {
      second = true;
      give();
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(second).toBe(false);
    release();
    await waiting;
    expect(second).toBe(true);
  });
});

describe("the switch", () => {
  it("fails, before it goes live, a release the server could not read, and keeps the live one", async () => {
    const { deployer, repository, settings, liveHeadline } = setUp();
    const good = await deployer.deployOnce();
    editHeadline(repository, "Unreadable");
    const picky = new Deployer({
      settings,
      log: () => undefined,
      steps: fakeSteps(),
      verify: () => {
        throw new Error("_headers line 3 is not a header");
      },
    });
    const refused = await picky.deployOnce();
    expect(refused).toMatchObject({
      state: "failed",
      reason: "the built site cannot be served: _headers line 3 is not a header",
    });
    expect(liveReleaseId(settings.dir)).toBe(good?.id);
    expect(liveHeadline()).toBe("First headline");
  });

  it("keeps the release that was live just before, even past DEPLOY_KEEP, after a rollback", async () => {
    const { deployer, repository, settings } = setUp({ keep: 1 });
    const first = await deployer.deployOnce();
    editHeadline(repository, "Second");
    await deployer.deployOnce();
    makeLive(settings.dir, first?.id ?? "");
    editHeadline(repository, "Third");
    await deployer.deployOnce();
    // Third is live; First was live a moment ago (requests may still read it) and stays; Second is the one good one kept.
    const kept = listReleases(settings.dir).map((release) => release.id);
    expect(kept).toContain(first?.id);
    expect(kept).toHaveLength(3);
  });
});

describe("rollback", () => {
  it("makes an earlier good release live at once, and never a failed one", async () => {
    const { deployer, repository, settings, liveHeadline } = setUp();
    const first = await deployer.deployOnce();
    editHeadline(repository, "Second headline");
    await deployer.deployOnce();
    editHeadline(repository, "BROKEN");
    const failed = await deployer.deployOnce();
    expect(liveHeadline()).toBe("Second headline");
    makeLive(settings.dir, first?.id ?? "");
    expect(liveHeadline()).toBe("First headline");
    expect(() => makeLive(settings.dir, failed?.id ?? "")).toThrow(/is failed, not good/);
    expect(liveHeadline()).toBe("First headline");
  });
});

describe("the releases tool", () => {
  const releasesTool = (args: readonly string[], env: NodeJS.ProcessEnv) =>
    execFileSync(process.execPath, [path.resolve("dist/scripts/releases.js"), ...args], {
      env: { ...process.env, ...env },
      encoding: "utf8",
    });

  it("prints its usage for --help", () => {
    expect(releasesTool(["--help"], {})).toMatch(/^releases: the single server's releases, for its operator\./);
  });

  it("lists each release with its build log, and a failed one with the step it stopped at and its last lines", async () => {
    const { deployer, repository, settings } = setUp();
    const good = await deployer.deployOnce();
    editHeadline(repository, "BROKEN");
    const failed = await deployer.deployOnce();
    const listing = releasesTool([], { DEPLOY_DIR: settings.dir, DEPLOY_REPOSITORY: settings.repository ?? "" });
    const logOf = (id: string | undefined) => path.join(settings.dir, "releases", id ?? "", "build.log");
    expect(listing).toContain(
      [
        `   ${failed?.commit.slice(0, 12)}  ${failed?.startedAt.replace("T", " ").replace(/\.\d+Z$/, "Z")}  failed    at its check step`,
        `    log: ${logOf(failed?.id)}`,
        "      | the content check failed (exit code 1)",
        "      | content/home.json: headline: this is not a headline",
        `*  ${good?.commit.slice(0, 12)}`,
      ].join("\n"),
    );
    expect(listing).toContain(`good      live\n    log: ${logOf(good?.id)}`);
  });
});

describe("the deploy settings", () => {
  it("are off without DEPLOY_DIR, and refuse a webhook secret with nowhere to deploy to", () => {
    expect(readDeploySettings({})).toBeNull();
    expect(() => readDeploySettings({ DEPLOY_WEBHOOK_SECRET: "s" })).toThrow(/DEPLOY_DIR is not/);
    expect(() => readDeploySettings({ DEPLOY_DIR: "/srv/r", DEPLOY_WEBHOOK_SECRET: "s" })).toThrow(
      /DEPLOY_REPOSITORY is not/,
    );
    expect(() => readDeploySettings({ DEPLOY_DIR: "/srv/r", DEPLOY_BRANCH: "--upload-pack=x" })).toThrow(
      /not a branch name/,
    );
    expect(() => readDeploySettings({ DEPLOY_DIR: "/srv/r", DEPLOY_KEEP: "0" })).toThrow(/DEPLOY_KEEP must be/);
    expect(readDeploySettings({ DEPLOY_DIR: "/srv/r", DEPLOY_REPOSITORY: "file:///srv/site.git" })).toMatchObject({
      dir: "/srv/r",
      branch: "main",
      keep: 3,
      webhookSecret: null,
    });
  });
});
