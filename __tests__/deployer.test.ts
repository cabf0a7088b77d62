/**
 * @jest-environment node
 */
import { setTimeout as sleep } from "node:timers/promises";
import { isRunning } from "./support/processes";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { acquireDeployLock, Deployer } from "../server/releases/deployer";
import {
  buildDirOf,
  buildLogOf,
  listReleases,
  newReleaseId,
  liveReleaseId,
  makeLive,
  previousReleaseId,
  publicDirOf,
  siteDirOf,
  sourceDirOf,
  writeReleaseRecord,
  type ReleaseRecord,
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

/** A repository whose first commit holds a lockfile, the home page's content and `files`, and a deployer of it. */
const setUp = (overrides: Partial<DeploySettings> = {}, files: Readonly<Record<string, string>> = {}) => {
  const repository = makeSourceRepository({
    "package-lock.json": lockfile("1"),
    "content/home.json": homeJson("First headline"),
    ...files,
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

const editHeadline = (repository: SourceRepository, headline: string, extra: Record<string, string | null> = {}) =>
  repository.commit({ "content/home.json": homeJson(headline), ...extra }, `Headline: ${headline}`);

/** The headlines of the builds a public/ folder went through (the stand-in build appends to public/built.txt). */
const builtIn = (folder: string): string[] =>
  fs
    .readFileSync(path.join(folder, "public", "built.txt"), "utf8")
    .split("\n")
    .filter(Boolean);

/** The pids the release's stand-in server printed into its build log as it started. */
const serverPidsIn = (deployDir: string, release: ReleaseRecord | null): number[] =>
  [...fs.readFileSync(buildLogOf(deployDir, release?.id ?? ""), "utf8").matchAll(/started as pid (\d+)/g)].map(
    (match) => Number(match[1]),
  );

// Each deploy runs git and the stand-in build in processes of their own: seconds on a busy machine.
jest.setTimeout(60_000);

afterEach(() => {
  delete process.env.BUILD_RECORD;
});

/**
 * A release an earlier process left (its record and its folder), started long before any the test makes, so
 * that it sorts first and is never taken for the newest.
 */
const plantRelease = (deployDir: string, record: Omit<ReleaseRecord, "id" | "branch" | "startedAt">): ReleaseRecord => {
  const startedAt = new Date(0);
  const planted: ReleaseRecord = {
    ...record,
    id: newReleaseId(deployDir, record.commit, startedAt),
    branch: "main",
    startedAt: startedAt.toISOString(),
  };
  fs.mkdirSync(siteDirOf(deployDir, planted.id), { recursive: true });
  writeReleaseRecord(deployDir, planted);
  return planted;
};

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
      // The only removal made here is the start check's scratch inquiry store: an empty folder or a few files.
      expect(removedHere.filter((folder) => !path.basename(folder).startsWith("start-check-"))).toEqual([]);
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
    plantRelease(settings.dir, { commit: "a".repeat(40), state: "building" });
    leaveDeadLock(settings.dir);
    expect(await deployer.deployOnce()).toMatchObject({ state: "good" });
    expect(listReleases(settings.dir).find((release) => release.commit === "a".repeat(40))).toMatchObject({
      state: "failed",
      failedStep: "interrupted",
      reason: expect.stringMatching(/^interrupted/) as unknown,
    });
    expect(fs.existsSync(path.join(settings.dir, "deploy.lock"))).toBe(false);
  });

  it("removes the files of a failed release that a stop kept it from removing, at the next deploy", async () => {
    const { deployer, settings } = setUp();
    const { id } = plantRelease(settings.dir, {
      commit: "b".repeat(40),
      state: "failed",
      failedStep: "check",
      reason: "the content check failed (exit code 1)",
    });
    fs.mkdirSync(path.join(siteDirOf(settings.dir, id), "node_modules"), { recursive: true });
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

describe("the start check", () => {
  it("fails a release whose server ends at start, with the server's own message, and keeps the live one", async () => {
    const { deployer, repository, settings, liveHeadline, lines } = setUp();
    const good = await deployer.deployOnce();
    editHeadline(repository, "Cannot start", {
      "content/server-fails.txt": "Error: SMTP_URL is not a URL: smtp//mail",
    });
    const failed = await deployer.deployOnce();
    expect(failed).toMatchObject({ state: "failed", failedStep: "start" });
    expect(failed?.reason).toBe("the release's server failed (exit code 1)\nError: SMTP_URL is not a URL: smtp//mail");
    expect(liveReleaseId(settings.dir)).toBe(good?.id);
    expect(liveHeadline()).toBe("First headline");
    expect(fs.existsSync(siteDirOf(settings.dir, failed?.id ?? ""))).toBe(false);
    expect(lines.at(-1)).toMatch(/failed at its start step, the live site is unchanged: the release's server failed/);
    expect(fs.readFileSync(buildLogOf(settings.dir, failed?.id ?? ""), "utf8")).toContain("SMTP_URL is not a URL");
  });

  it("fails a release whose server does not answer within the start timeout, and ends that server", async () => {
    const { deployer, repository, settings, liveHeadline } = setUp();
    const good = await deployer.deployOnce();
    editHeadline(repository, "Never answers", { "content/server-ms.txt": "30000" });
    const impatient = new Deployer({ settings, log: () => undefined, steps: fakeSteps(), startTimeoutMs: 1_500 });
    const began = Date.now();
    const failed = await impatient.deployOnce();
    expect(Date.now() - began).toBeLessThan(20_000);
    expect(failed).toMatchObject({
      state: "failed",
      failedStep: "start",
      reason: "the release's server did not answer /healthz with 200 within 2 s",
    });
    expect(liveReleaseId(settings.dir)).toBe(good?.id);
    expect(liveHeadline()).toBe("First headline");
    expect(fs.existsSync(siteDirOf(settings.dir, failed?.id ?? ""))).toBe(false);
    const [pid] = serverPidsIn(settings.dir, failed);
    expect(pid).toBeDefined();
    expect(isRunning(pid ?? 0)).toBe(false);
  });

  it("runs the release's server in the build folder with none of the server's settings, and then stops it", async () => {
    const names = [
      "DEPLOY_DIR",
      "DEPLOY_WEBHOOK_SECRET",
      "SITE_REQUESTS_PER_MINUTE",
      "SMTP_URL",
      "HOST",
      "PORT",
      "INQUIRY_DATA_DIR",
    ];
    const { deployer, settings } = setUp({}, { "content/server-env.txt": names.join("\n") });
    const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));
    Object.assign(process.env, {
      DEPLOY_DIR: settings.dir,
      DEPLOY_WEBHOOK_SECRET: "for the primary only, never a release's",
      SITE_REQUESTS_PER_MINUTE: "600",
      SMTP_URL: "smtp://desk:a-password@mail.example.com",
      PORT: "9000",
      INQUIRY_DATA_DIR: "/var/lib/site/inquiries",
    });
    let release: ReleaseRecord | null;
    try {
      release = await deployer.deployOnce();
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) Reflect.deleteProperty(process.env, name);
        else process.env[name] = value;
      }
    }
    expect(release).toMatchObject({ state: "good" });
    const build = buildDirOf(settings.dir);
    const seen = JSON.parse(fs.readFileSync(path.join(build, "public", "server-env.json"), "utf8")) as Record<
      string,
      string
    >;
    // None of the server's settings: no DEPLOY_* (it would take itself for a primary and deploy), no secret,
    // no limit; only where to listen and a scratch inquiry store in the build folder, removed after the check.
    expect(Object.keys(seen).sort()).toEqual(["HOST", "INQUIRY_DATA_DIR", "PORT"]);
    expect(seen.HOST).toBe("127.0.0.1");
    expect(seen.PORT).not.toBe("9000");
    expect(seen.INQUIRY_DATA_DIR).toBe(".start-check");
    expect(fs.existsSync(path.join(build, ".start-check"))).toBe(false);
    // Started in the build folder (its started.txt), once, and stopped after its check.
    const pids = serverPidsIn(settings.dir, release);
    expect(pids).toHaveLength(1);
    expect(fs.readFileSync(path.join(build, "public", "started.txt"), "utf8")).toBe(`${pids[0]}\n`);
    expect(isRunning(pids[0] ?? 0)).toBe(false);
  });
});

describe("the build folder", () => {
  const contract = {
    "gatsby-node.ts": "export const onPreInit = () => undefined;\n",
    "src/content-contract/fields.ts": "export const fields = ['headline'];\n",
  };

  it("builds a change to content or code incrementally, on what the build before left", async () => {
    const { deployer, repository, settings } = setUp({}, contract);
    const first = await deployer.deployOnce();
    expect(first).toMatchObject({ state: "good", build: "full" });
    const build = buildDirOf(settings.dir);
    fs.mkdirSync(path.join(build, ".cache"), { recursive: true });
    fs.writeFileSync(path.join(build, ".cache", "webpack-stats.json"), "{}\n");
    editHeadline(repository, "Second headline", { "src/components/hero.tsx": "export const Hero = () => null;\n" });
    const second = await deployer.deployOnce();
    expect(second).toMatchObject({ state: "good", build: "incremental", dependencies: "reused" });
    expect(builtIn(build)).toEqual(["First headline", "Second headline"]);
    expect(fs.existsSync(path.join(build, ".cache", "webpack-stats.json"))).toBe(true);
    const site = siteDirOf(settings.dir, second?.id ?? "");
    expect(builtIn(site)).toEqual(["First headline", "Second headline"]);
    // The build folder's repository and caches stay there; a release holds the commit and what was built.
    expect(fs.existsSync(path.join(site, ".git"))).toBe(false);
    expect(fs.existsSync(path.join(site, ".cache"))).toBe(false);
    expect(fs.existsSync(path.join(site, "src", "components", "hero.tsx"))).toBe(true);
    // A release once made is never changed by a later build.
    expect(builtIn(siteDirOf(settings.dir, first?.id ?? ""))).toEqual(["First headline"]);
  });

  it.each([
    ["the lockfile", { "package-lock.json": lockfile("2") }],
    ["gatsby-node.ts", { "gatsby-node.ts": "export const onPreInit = () => 'changed';\n" }],
    [
      "a file of the content contract",
      { "src/content-contract/fields.ts": "export const fields = ['headline', 'lede'];\n" },
    ],
    ["a new file in the content contract", { "src/content-contract/sections/hero.ts": "export const hero = {};\n" }],
  ])("builds from nothing after a change to %s", async (_case, change) => {
    const { deployer, repository, settings } = setUp({}, contract);
    await deployer.deployOnce();
    const build = buildDirOf(settings.dir);
    fs.mkdirSync(path.join(build, ".cache"), { recursive: true });
    fs.writeFileSync(path.join(build, ".cache", "webpack-stats.json"), "{}\n");
    editHeadline(repository, "Second headline", change);
    const second = await deployer.deployOnce();
    expect(second).toMatchObject({ state: "good", build: "full" });
    // The build began without the public/ and .cache/ of the one before.
    expect(builtIn(build)).toEqual(["Second headline"]);
    expect(builtIn(siteDirOf(settings.dir, second?.id ?? ""))).toEqual(["Second headline"]);
    expect(fs.existsSync(path.join(build, ".cache", "webpack-stats.json"))).toBe(false);
  });

  it("builds from nothing after a build that failed, and on the caches again once one succeeded", async () => {
    const { deployer, repository, settings } = setUp();
    await deployer.deployOnce();
    editHeadline(repository, "Never live", { "content/disk-full.txt": "" });
    expect(await deployer.deployOnce()).toMatchObject({ state: "failed", failedStep: "build" });
    editHeadline(repository, "Third headline", { "content/disk-full.txt": null });
    const third = await deployer.deployOnce();
    expect(third).toMatchObject({ state: "good", build: "full" });
    expect(builtIn(siteDirOf(settings.dir, third?.id ?? ""))).toEqual(["Third headline"]);
    editHeadline(repository, "Fourth headline");
    const fourth = await deployer.deployOnce();
    expect(fourth).toMatchObject({ state: "good", build: "incremental" });
    expect(builtIn(siteDirOf(settings.dir, fourth?.id ?? ""))).toEqual(["Third headline", "Fourth headline"]);
  });

  it("builds on the caches after a deploy that failed at its content check, which never touched them", async () => {
    const { deployer, repository, settings } = setUp();
    await deployer.deployOnce();
    editHeadline(repository, "BROKEN");
    expect(await deployer.deployOnce()).toMatchObject({ state: "failed", failedStep: "check" });
    editHeadline(repository, "Third headline");
    const third = await deployer.deployOnce();
    expect(third).toMatchObject({ state: "good", build: "incremental", dependencies: "reused" });
    expect(builtIn(siteDirOf(settings.dir, third?.id ?? ""))).toEqual(["First headline", "Third headline"]);
  });

  it("copies the commit's files into the build folder with the time of the copy, which no earlier file had", async () => {
    // Gatsby's file source reuses a file's hash for the same time and inode: with the commit's times, a file copied
    // in anew could take the inode of another the checkout had given the same time, and its hash.
    const { deployer, repository, settings } = setUp();
    await deployer.deployOnce();
    editHeadline(repository, "Second headline");
    const copiedAfter = BigInt(Date.now() - 1) * 1_000_000n;
    expect(await deployer.deployOnce()).toMatchObject({ state: "good", build: "incremental" });
    const timesIn = (folder: string) =>
      fs
        .readdirSync(folder, { recursive: true, encoding: "utf8" })
        .filter((entry) => !/^(node_modules|\.cache|public|dist)(\/|$)/.test(entry))
        .map((entry) => [entry, fs.statSync(path.join(folder, entry), { bigint: true }).mtimeNs] as const)
        .filter(([entry]) => fs.statSync(path.join(folder, entry)).isFile());
    const build = timesIn(buildDirOf(settings.dir));
    // The unchanged lockfile too, which the source folder keeps with its first checkout's time.
    expect(build.map(([entry]) => entry).sort()).toEqual(["content/home.json", "package-lock.json"]);
    const source = new Map(timesIn(sourceDirOf(settings.dir)));
    expect((source.get("package-lock.json") ?? copiedAfter) < copiedAfter).toBe(true);
    expect(build.filter(([, time]) => time < copiedAfter)).toEqual([]);
  });

  it("removes from the build folder every file the commit does not hold, but not the build's own state", async () => {
    const { deployer, repository, settings } = setUp({}, { "content/old-page.json": "{}\n" });
    const first = await deployer.deployOnce();
    const build = buildDirOf(settings.dir);
    // A file a build wrote outside its outputs (Gatsby's typegen writes src/gatsby-types.d.ts), which no
    // commit holds.
    fs.mkdirSync(path.join(build, "src"), { recursive: true });
    fs.writeFileSync(path.join(build, "src", "gatsby-types.d.ts"), "declare namespace Queries {}\n");
    editHeadline(repository, "Second headline", { "content/old-page.json": null });
    const second = await deployer.deployOnce();
    expect(second).toMatchObject({ state: "good", build: "incremental", dependencies: "reused" });
    const site = siteDirOf(settings.dir, second?.id ?? "");
    for (const folder of [build, site]) {
      expect(fs.existsSync(path.join(folder, "content", "old-page.json"))).toBe(false);
      expect(fs.existsSync(path.join(folder, "src", "gatsby-types.d.ts"))).toBe(false);
      expect(fs.existsSync(path.join(folder, "content", "home.json"))).toBe(true);
    }
    // What the build keeps: its modules and the public/ it builds on.
    expect(fs.readFileSync(path.join(build, "node_modules", "installed.txt"), "utf8")).toBe("yes\n");
    expect(builtIn(build)).toEqual(["First headline", "Second headline"]);
    expect(fs.existsSync(path.join(siteDirOf(settings.dir, first?.id ?? ""), "content", "old-page.json"))).toBe(true);
  });
});

describe("recovery at the server's start", () => {
  const building = (deployDir: string): ReleaseRecord =>
    plantRelease(deployDir, { commit: "a".repeat(40), state: "building" });

  it("marks a deploy a dead process left building as failed, interrupted, once the lock is free", async () => {
    const { deployer, settings } = setUp();
    const left = building(settings.dir);
    // While a live process holds the lock, the deploy may be its own, under way: not interrupted.
    const held = await acquireDeployLock(settings.dir);
    let recovered = false;
    const recovering = deployer.recoverInterrupted().then(() => {
      recovered = true;
    });
    await sleep(1_500);
    expect(recovered).toBe(false);
    expect(listReleases(settings.dir).find((release) => release.id === left.id)?.state).toBe("building");
    held();
    await recovering;
    expect(listReleases(settings.dir).find((release) => release.id === left.id)).toMatchObject({
      state: "failed",
      failedStep: "interrupted",
      reason: expect.stringMatching(/^interrupted/) as unknown,
      finishedAt: expect.any(String) as unknown,
    });
    expect(fs.existsSync(siteDirOf(settings.dir, left.id))).toBe(false);
    expect(fs.existsSync(path.join(settings.dir, "deploy.lock"))).toBe(false);
    expect(deployer.status()).toMatchObject({ running: false, last: { state: "failed" } });
  });

  it("does not wait for the lock when no deploy was left building", async () => {
    const { deployer, settings } = setUp();
    fs.mkdirSync(settings.dir, { recursive: true });
    const held = await acquireDeployLock(settings.dir);
    try {
      const began = Date.now();
      await deployer.recoverInterrupted();
      expect(Date.now() - began).toBeLessThan(500);
    } finally {
      held();
    }
  });
});

describe("the switch", () => {
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

describe("pushes, deliveries and releases that failed in service", () => {
  it("takes a push, answers a delivery taken before as taken and ignored, and refuses pushes while it stops", async () => {
    const { deployer, repository, settings, builds } = setUp();
    const commit = editHeadline(repository, "Delivered once");
    expect(deployer.accept(commit, "d-1")).toEqual({ accepted: true, message: "deploying" });
    await deployer.idle();
    expect(deployer.accept(commit, "d-1")).toEqual({
      accepted: true,
      message: "ignored: delivery d-1 was received before",
    });
    expect(deployer.activity()).toEqual({ running: false, queued: null });
    expect(builds()).toEqual(["Delivered once"]);
    await deployer.stop();
    const refused = deployer.accept(editHeadline(repository, "Too late"), "d-2");
    expect(refused.accepted).toBe(false);
    // A delivery refused is not remembered: delivered again to a server that runs, it is taken.
    const next = new Deployer({ settings, log: () => undefined, steps: fakeSteps() });
    expect(next.accept("HEAD", "d-2")).toEqual({ accepted: true, message: "deploying" });
    await next.idle();
  });

  it("does not deploy a commit rolled back for failing in service again for a push, only for releases --deploy", async () => {
    const { deployer, repository, settings, builds } = setUp();
    const first = await deployer.deployOnce();
    const commit = editHeadline(repository, "Fails in service");
    const bad = await deployer.deployOnce();
    if (!bad) throw new Error("the push made no release");
    // As the primary records it when it rolls the release back.
    writeReleaseRecord(settings.dir, { ...bad, state: "failed", failedStep: "service" });
    makeLive(settings.dir, first?.id ?? "");
    deployer.request(commit);
    await deployer.idle();
    expect(builds()).toEqual(["First headline", "Fails in service"]);
    expect(await deployer.deployOnce()).toMatchObject({ commit, state: "good" });
    expect(builds()).toEqual(["First headline", "Fails in service", "Fails in service"]);
  });

  it("never prunes the release the primary would roll back to, whatever DEPLOY_KEEP says", async () => {
    const { deployer, repository, settings } = setUp({ keep: 3 });
    const first = await deployer.deployOnce();
    editHeadline(repository, "Second");
    await deployer.deployOnce();
    editHeadline(repository, "Third");
    const third = await deployer.deployOnce();
    // A rollback to the first and forward again: the first is `previous`, older than the one good release kept.
    makeLive(settings.dir, first?.id ?? "");
    makeLive(settings.dir, third?.id ?? "");
    const keepingOne = new Deployer({ settings: { ...settings, keep: 1 }, log: () => undefined, steps: fakeSteps() });
    editHeadline(repository, "BROKEN");
    expect(await keepingOne.deployOnce()).toMatchObject({ state: "failed" });
    expect(previousReleaseId(settings.dir)).toBe(first?.id);
    expect(listReleases(settings.dir).map((release) => release.id)).toContain(first?.id);
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
  it("refuse a webhook secret under 32 characters, naming the variable and the length, never the text", () => {
    const env = { DEPLOY_DIR: "/srv/r", DEPLOY_REPOSITORY: "file:///srv/site.git" };
    // 32 characters: the least allowed.
    const secret = `${"a".repeat(30)}!?`;
    expect(readDeploySettings({ ...env, DEPLOY_WEBHOOK_SECRET: secret })?.webhookSecret).toBe(secret);
    const oneShort = () => readDeploySettings({ ...env, DEPLOY_WEBHOOK_SECRET: secret.slice(1) });
    expect(oneShort).toThrow(
      new Error("DEPLOY_WEBHOOK_SECRET must be at least 32 characters (openssl rand -hex 32 makes one), not 31"),
    );
    expect(oneShort).not.toThrow(/a!\?/);
  });

  it("are off without DEPLOY_DIR, and refuse a webhook secret with nowhere to deploy to", () => {
    const secret = "s".repeat(32);
    expect(readDeploySettings({})).toBeNull();
    expect(() => readDeploySettings({ DEPLOY_WEBHOOK_SECRET: secret })).toThrow(/DEPLOY_DIR is not/);
    expect(() => readDeploySettings({ DEPLOY_DIR: "/srv/r", DEPLOY_WEBHOOK_SECRET: secret })).toThrow(
      /DEPLOY_REPOSITORY is not/,
    );
    expect(() => readDeploySettings({ DEPLOY_DIR: "/srv/r", DEPLOY_BRANCH: "--upload-pack=x" })).toThrow(
      /DEPLOY_BRANCH must be a branch name/,
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
