/**
 * @jest-environment node
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import vm from "node:vm";
import { DeployerProcess } from "../server/releases/deployer-process";
import { liveReleaseId, listReleases } from "../server/releases/release-store";
import { homeJson, makeSourceRepository } from "./support/deploy-repository";

/**
 * The deploys in their own process, as the primary runs them: the compiled entry (jest's global setup compiles
 * it) forked from this checkout, deploying a small project whose npm scripts are the stand-in build's, through
 * the real npm ci, check and build steps.
 */

// A forked Node, npm ci and two deploys: seconds each on a busy machine.
jest.setTimeout(60_000);

const root = path.resolve(__dirname, "..");
const BUILD_SCRIPT = path.join(__dirname, "support", "fake-site-build.js");

/** child_process.fork gives the child the process's own environment, not jest's copy of it. */
const processEnv = (vm.runInThisContext("process") as NodeJS.Process).env;
const saved = Object.fromEntries(
  ["DEPLOY_DIR", "DEPLOY_REPOSITORY", "DEPLOY_BRANCH"].map((name) => [name, processEnv[name]]),
);

afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) Reflect.deleteProperty(processEnv, name);
    else processEnv[name] = value;
  }
});

const waitUntil = async (check: () => boolean, what: string, timeoutMs = 30_000) => {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe("the deployer's own process", () => {
  it("takes pushes from the primary, reports its activity and each release live, and is started again if it dies", async () => {
    const scripts = { "check:content": `node ${BUILD_SCRIPT} check`, build: `node ${BUILD_SCRIPT} build` };
    const repository = makeSourceRepository({
      "package.json": `${JSON.stringify({ name: "site", version: "1.0.0", private: true, scripts }, null, 2)}\n`,
      "package-lock.json": `${JSON.stringify({ name: "site", version: "1.0.0", lockfileVersion: 3, requires: true, packages: { "": { name: "site", version: "1.0.0" } } }, null, 2)}\n`,
      "content/home.json": homeJson("First"),
    });
    const deployDir = fs.mkdtempSync(path.join(os.tmpdir(), "deployer-process-"));
    Object.assign(processEnv, { DEPLOY_DIR: deployDir, DEPLOY_REPOSITORY: repository.url, DEPLOY_BRANCH: "main" });
    const logged: string[] = [];
    let lives = 0;
    const deployer = new DeployerProcess({
      checkoutDir: root,
      log: (level, _fields, line) => logged.push(`${level} ${line}`),
      onLive: () => (lives += 1),
    });
    deployer.start();
    try {
      // Not yet connected answers are refusals, never a hang: wait for the process to take one.
      let first = await deployer.accept("HEAD", "delivery-1");
      for (let tries = 0; !first.accepted && tries < 50; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        first = await deployer.accept("HEAD", "delivery-1");
      }
      expect(first).toEqual({ accepted: true, message: "deploying" });
      await waitUntil(() => deployer.activity().running, "the deploy's start");
      await waitUntil(() => lives === 1 && !deployer.activity().running, "the release live");
      expect(listReleases(deployDir)[0]).toMatchObject({ state: "good", live: true });
      expect(await deployer.accept("HEAD", "delivery-1")).toEqual({
        accepted: true,
        message: "ignored: delivery delivery-1 was received before",
      });

      // Killed (the OOM killer): logged, and started again, taking the next push.
      const firstLive = liveReleaseId(deployDir);
      process.kill(deployer.pid() ?? 0, "SIGKILL");
      await waitUntil(
        () => logged.some((line) => line.includes("ended (SIGKILL); starting it again in 2 s")),
        "the log",
      );
      repository.commit({ "content/home.json": homeJson("Second") }, "Second");
      let second = await deployer.accept("HEAD", "delivery-2");
      for (let tries = 0; !second.accepted && tries < 100; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        second = await deployer.accept("HEAD", "delivery-2");
      }
      expect(second.accepted).toBe(true);
      await waitUntil(() => lives === 2 && liveReleaseId(deployDir) !== firstLive, "the second release live");
    } finally {
      await deployer.stop();
    }
    expect(await deployer.accept("HEAD", "delivery-3")).toMatchObject({ accepted: false });
  });
});
