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
import { isRunning } from "./support/processes";
import { waitUntil } from "./support/wait-until";

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

/** A push handed to the deployer's process, asked again until the process is up to take it (a refusal until then). */
const takenOnceConnected = async (deployer: DeployerProcess, delivery: string) => {
  for (let tries = 0; tries < 100; tries += 1) {
    const answer = await deployer.accept("HEAD", delivery);
    if (answer.accepted) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the deployer's process never took ${delivery}`);
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
      expect(await takenOnceConnected(deployer, "delivery-1")).toEqual({ accepted: true, message: "deploying" });
      await waitUntil(() => deployer.activity().running, 30_000, "the deploy's start");
      await waitUntil(() => lives === 1 && !deployer.activity().running, 30_000, "the release live");
      expect(listReleases(deployDir)[0]).toMatchObject({ state: "good", live: true });
      expect(await deployer.accept("HEAD", "delivery-1")).toEqual({
        accepted: true,
        message: "ignored: delivery delivery-1 was received before",
      });

      // Killed (the OOM killer): logged, and started again, taking the next push.
      const firstLive = liveReleaseId(deployDir);
      const pid = deployer.pid();
      if (pid === null) throw new Error("the deployer's process is not running");
      process.kill(pid, "SIGKILL");
      await waitUntil(() => !isRunning(pid), 5_000, "its end");
      await waitUntil(
        () => logged.some((line) => line.includes("ended (SIGKILL); starting it again in 2 s")),
        5_000,
        "the log",
      );
      repository.commit({ "content/home.json": homeJson("Second") }, "Second");
      expect((await takenOnceConnected(deployer, "delivery-2")).accepted).toBe(true);
      await waitUntil(() => lives === 2 && liveReleaseId(deployDir) !== firstLive, 30_000, "the second release live");
    } finally {
      await deployer.stop();
    }
    expect(await deployer.accept("HEAD", "delivery-3")).toMatchObject({ accepted: false });
  });
});
