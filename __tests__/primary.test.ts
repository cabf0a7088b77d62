/**
 * @jest-environment node
 */
import { setTimeout as sleep } from "node:timers/promises";
import { isRunning } from "./support/processes";
import { waitUntil } from "./support/wait-until";
import { freeLoopbackPort } from "../server/free-port";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { Primary, type PrimaryOptions } from "../server/releases/primary";
import { listReleases, liveReleaseId, makeLive, siteDirOf, writeReleaseRecord } from "../server/releases/release-store";
import { homeJson } from "./support/deploy-repository";

/**
 * The cluster primary with real workers and real sockets: each release here is a folder made by hand with
 * the stand-in build (fake-site-build.js), whose server names itself in X-Release-Server and its process in
 * X-Release-Pid, so a test sees which release's server, and which process of it, answered.
 */

const BUILD_SCRIPT = path.join(__dirname, "support", "fake-site-build.js");

/** The stand-in site (public/ and dist/server/main.js) built in `folder` from these content files. */
const buildSite = (folder: string, server: string, files: Readonly<Record<string, string>> = {}) => {
  fs.mkdirSync(path.join(folder, "content"), { recursive: true });
  fs.writeFileSync(path.join(folder, "content", "home.json"), homeJson(`Home of ${server}`));
  fs.writeFileSync(path.join(folder, "content", "server.txt"), server);
  execFileSync(process.execPath, [BUILD_SCRIPT, "build"], { cwd: folder, env: { PATH: process.env.PATH } });
  // After the build: the build itself never reads these, only the release's server does.
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(folder, "content", file), text);
};

interface Answer {
  readonly status: number;
  readonly server: string | undefined;
  readonly pid: number;
}

/** GET / on a connection of its own: what a visitor arriving now gets; rejects when it is refused or dropped. */
const get = (port: number): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const request = http.get({ host: "127.0.0.1", port, path: "/", agent: false, timeout: 5_000 }, (response) => {
      response.resume();
      response.once("error", reject);
      response.once("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          server: response.headers["x-release-server"] as string | undefined,
          pid: Number(response.headers["x-release-pid"]),
        }),
      );
    });
    request.once("timeout", () => request.destroy(new Error("no answer within 5 s")));
    request.once("error", reject);
  });

/** Asks until `check` holds for an answer (a refused connection counts as not yet); the last answer. */
const answerWhere = async (port: number, check: (answer: Answer) => boolean, timeoutMs = 8_000): Promise<Answer> => {
  const until = Date.now() + timeoutMs;
  let last: Answer | Error | null = null;
  while (Date.now() < until) {
    last = await get(port).catch((error: unknown) => error as Error);
    if (!(last instanceof Error) && check(last)) return last;
    await sleep(50);
  }
  throw new Error(
    `no such answer within ${timeoutMs} ms; the last: ${last instanceof Error ? last.message : JSON.stringify(last)}`,
  );
};

/** GET / `perTick` times every `ms`, each on a connection of its own, until `stop`: the answers counted, the failures kept. */
const steadyLoad = (port: number, ms: number, perTick = 1) => {
  const failures: string[] = [];
  let answered = 0;
  const pending = new Set<Promise<void>>();
  const timer = setInterval(() => {
    for (let count = 0; count < perTick; count += 1) {
      const one = get(port).then(
        () => void (answered += 1),
        (error: unknown) => void failures.push((error as Error).message),
      );
      pending.add(one);
      void one.finally(() => pending.delete(one));
    }
  }, ms);
  return {
    failures,
    answered: () => answered,
    stop: async () => {
      clearInterval(timer);
      await Promise.all([...pending]);
    },
  };
};

interface Logged {
  readonly level: "info" | "warn" | "error";
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

interface Site {
  readonly deployDir: string;
  readonly checkoutDir: string;
  readonly port: number;
  readonly logs: Logged[];
  /** What the workers printed, as the primary wrote it on. */
  readonly output: string[];
  /** A good release whose stand-in server names itself `server`; `files` go into its content/ (server-fails.txt, ...). */
  readonly release: (server: string, files?: Readonly<Record<string, string>>) => string;
  /** The pids its server was started as, in order (public/started.txt). */
  readonly startsOf: (folder: string) => number[];
  readonly start: (options?: Partial<PrimaryOptions>) => Promise<Primary>;
}

let primary: Primary | null = null;
let releaseCount = 0;

const setUp = async (): Promise<Site> => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "primary-"));
  const deployDir = path.join(root, "deploy");
  const checkoutDir = path.join(root, "checkout");
  buildSite(checkoutDir, "checkout");
  const port = await freeLoopbackPort();
  const logs: Logged[] = [];
  const output: string[] = [];
  return {
    deployDir,
    checkoutDir,
    port,
    logs,
    output,
    release: (server, files = {}) => {
      releaseCount += 1;
      const id = `20260101T0000${String(releaseCount).padStart(2, "0")}.000Z-${server.padEnd(12, "0").slice(0, 12)}`;
      buildSite(siteDirOf(deployDir, id), server, files);
      writeReleaseRecord(deployDir, {
        id,
        commit: "c".repeat(40),
        branch: "main",
        startedAt: new Date().toISOString(),
        finishedAt: new Date().toISOString(),
        state: "good",
        // Its own server was started and checked before it went live, as the deployer records it.
        seconds: { start: 0.5 },
      });
      return id;
    },
    startsOf: (folder) =>
      fs.existsSync(path.join(folder, "public", "started.txt"))
        ? fs
            .readFileSync(path.join(folder, "public", "started.txt"), "utf8")
            .split("\n")
            .filter(Boolean)
            .map(Number)
        : [],
    start: async (options = {}) => {
      primary = new Primary({
        deployDir,
        checkoutDir,
        listen: { port, host: "127.0.0.1" },
        log: (level, fields, message) => logs.push({ level, fields, message }),
        output: (_stream, line) => output.push(line),
        stopGraceMs: 3_000,
        pollMs: 100,
        startTimeoutMs: 10_000,
        ...options,
      });
      await primary.start();
      return primary;
    },
  };
};

// Each test forks a few Node processes and waits for switches: seconds on a busy machine.
jest.setTimeout(60_000);

afterEach(async () => {
  await primary?.stop();
  primary = null;
});

describe("the primary", () => {
  it("serves the checkout before the first release, then the release `live` names, and stops the old worker", async () => {
    const site = await setUp();
    const running = await site.start();
    const before = await get(site.port);
    expect(before).toMatchObject({ status: 200, server: "checkout" });
    expect(running.serving()).toBeNull();
    const first = site.release("first");
    makeLive(site.deployDir, first);
    const after = await answerWhere(site.port, (answer) => answer.server === "first", 5_000);
    expect(after.status).toBe(200);
    expect(running.serving()).toBe(first);
    // The checkout's worker finishes what it holds and ends; only the release's remains.
    await waitUntil(() => !isRunning(before.pid), 5_000, "the checkout's worker ending");
    expect(running.workers().map((worker) => worker.process.pid)).toEqual([after.pid]);
    expect(site.logs).toContainEqual(
      expect.objectContaining({
        level: "info",
        message: expect.stringContaining(`release ${first} is serving`) as unknown,
      }),
    );
  });

  it("answers every request through two switches, with the requests in flight finished by the old worker", async () => {
    const site = await setUp();
    // Each answer takes a while, so every switch finds requests in flight on the worker it stops.
    const first = site.release("first", { "answer-ms.txt": "150" });
    const second = site.release("second", { "answer-ms.txt": "150" });
    const third = site.release("third", { "answer-ms.txt": "150" });
    makeLive(site.deployDir, first);
    await site.start();
    const failures: string[] = [];
    // Which server answered each request, by when it was sent.
    const answers: { readonly sentAt: number; readonly server: string }[] = [];
    const pending = new Set<Promise<void>>();
    const ask = () => {
      const sentAt = Date.now();
      const one = get(site.port).then(
        (answer) => {
          if (answer.status !== 200) failures.push(`${answer.server ?? "?"} answered ${answer.status}`);
          else answers.push({ sentAt, server: answer.server ?? "?" });
        },
        (error: unknown) => {
          failures.push((error as Error).message);
        },
      );
      pending.add(one);
      void one.finally(() => pending.delete(one));
    };
    /** Makes `id` live; resolves, with when it was asked for, once its worker is the only one left. */
    const switchTo = async (id: string) => {
      const asked = Date.now();
      makeLive(site.deployDir, id);
      await waitUntil(() => primary?.serving() === id && primary.workers().length === 1, 10_000, `the switch to ${id}`);
      return { asked, alone: Date.now() };
    };
    const load = setInterval(ask, 20);
    const times = { second: { asked: 0, alone: 0 }, third: { asked: 0, alone: 0 } };
    try {
      await sleep(500);
      times.second = await switchTo(second);
      await sleep(500);
      times.third = await switchTo(third);
      await sleep(500);
    } finally {
      clearInterval(load);
    }
    await Promise.all([...pending]);
    expect(failures).toEqual([]);
    expect(answers.length).toBeGreaterThan(50);
    const serversSent = (from: number, to = Infinity) =>
      new Set(answers.filter(({ sentAt }) => sentAt >= from && sentAt < to).map(({ server }) => server));
    // Each release answered while it was live; once the old worker had ended, only the new one did.
    expect(serversSent(0, times.second.asked)).toEqual(new Set(["first"]));
    expect(serversSent(times.second.alone, times.third.asked)).toEqual(new Set(["second"]));
    expect(serversSent(times.third.alone)).toEqual(new Set(["third"]));
    for (const id of [first, second]) {
      const pids = site.startsOf(siteDirOf(site.deployDir, id));
      expect(pids).toHaveLength(1);
      for (const pid of pids) expect(isRunning(pid)).toBe(false);
    }
  });

  it("answers every new connection through fifteen switches in a row, none left hanging at a worker that stopped", async () => {
    const site = await setUp();
    const releases = Array.from({ length: 16 }, (_, index) => site.release(`quick-${index}`));
    const [first, ...next] = releases;
    makeLive(site.deployDir, first ?? "");
    await site.start();
    // A stand-in server stops at once, so a connection on its way to it when it is retired finds it gone.
    const load = steadyLoad(site.port, 5, 3);
    try {
      for (const id of next) {
        makeLive(site.deployDir, id);
        await waitUntil(
          () => primary?.serving() === id && primary.workers().length === 1,
          10_000,
          `the switch to ${id}`,
        );
      }
    } finally {
      await load.stop();
    }
    expect(load.failures).toEqual([]);
    expect(load.answered()).toBeGreaterThan(500);
  });

  it("never serves a release whose server fails at start: the old one keeps serving, and the failure is logged", async () => {
    const site = await setUp();
    const first = site.release("first");
    const broken = site.release("broken", { "server-fails.txt": "Error: SMTP_URL is not a URL" });
    makeLive(site.deployDir, first);
    const running = await site.start();
    const serving = await get(site.port);
    makeLive(site.deployDir, broken);
    await waitUntil(
      () => site.logs.some((line) => line.level === "error" && line.fields.release === broken),
      10_000,
      "the broken release's failure being logged",
    );
    const failure = site.logs.find((line) => line.level === "error" && line.fields.release === broken);
    expect(failure?.message).toBe(
      `server: release ${broken} did not start (it ended with exit code 1); release ${first} keeps serving`,
    );
    // Many polls later: still the first release's worker, and the broken one was not started again.
    await sleep(1_000);
    expect(await get(site.port)).toMatchObject({ status: 200, server: "first", pid: serving.pid });
    expect(running.serving()).toBe(first);
    expect(site.logs.filter((line) => line.fields.release === broken)).toHaveLength(1);
    expect(running.workers()).toHaveLength(1);
    // The refusal holds for that release only: the next good one goes live.
    const fixed = site.release("fixed");
    makeLive(site.deployDir, fixed);
    expect(await answerWhere(site.port, (answer) => answer.server === "fixed", 5_000)).toMatchObject({ status: 200 });
  });

  it("never serves a release whose server does not listen in time, and ends that server", async () => {
    const site = await setUp();
    const first = site.release("first");
    const slow = site.release("slow", { "server-ms.txt": "30000" });
    makeLive(site.deployDir, first);
    await site.start({ startTimeoutMs: 1_000 });
    makeLive(site.deployDir, slow);
    await waitUntil(
      () => site.logs.some((line) => line.level === "error" && line.fields.release === slow),
      10_000,
      "the slow release's failure being logged",
    );
    expect(site.logs.find((line) => line.fields.release === slow)?.fields.reason).toBe("it was not ready within 1 s");
    expect(await get(site.port)).toMatchObject({ status: 200, server: "first" });
    const [slowPid] = site.startsOf(siteDirOf(site.deployDir, slow));
    expect(slowPid).toBeDefined();
    await waitUntil(() => !isRunning(slowPid ?? 0), 5_000, "the slow release's server ending");
  });

  it("never runs a release made before releases carried their own server: what runs keeps serving", async () => {
    const site = await setUp();
    const first = site.release("first");
    const older = site.release("older");
    // As a release made by the earlier deployer records it: no start step.
    writeReleaseRecord(site.deployDir, {
      id: older,
      commit: "d".repeat(40),
      branch: "main",
      startedAt: new Date().toISOString(),
      state: "good",
      seconds: { build: 60 },
    });
    makeLive(site.deployDir, first);
    const running = await site.start();
    makeLive(site.deployDir, older);
    await sleep(1_000);
    expect(await get(site.port)).toMatchObject({ status: 200, server: "first" });
    expect(running.serving()).toBe(first);
    expect(site.startsOf(siteDirOf(site.deployDir, older))).toEqual([]);
  });

  it("serves the first release's server again after a rollback to it", async () => {
    const site = await setUp();
    const first = site.release("first");
    const second = site.release("second");
    makeLive(site.deployDir, first);
    await site.start();
    const before = await get(site.port);
    expect(before.server).toBe("first");
    makeLive(site.deployDir, second);
    await answerWhere(site.port, (answer) => answer.server === "second", 5_000);
    makeLive(site.deployDir, first);
    const back = await answerWhere(site.port, (answer) => answer.server === "first", 5_000);
    expect(liveReleaseId(site.deployDir)).toBe(first);
    // A new process of the first release's server: the one from before the switch has ended.
    expect(back.pid).not.toBe(before.pid);
    expect(isRunning(before.pid)).toBe(false);
    expect(site.startsOf(siteDirOf(site.deployDir, first))).toEqual([before.pid, back.pid]);
  });

  it("starts a serving worker that was killed again at once, with no connection refused meanwhile", async () => {
    const site = await setUp();
    const first = site.release("first");
    makeLive(site.deployDir, first);
    const running = await site.start();
    const before = await get(site.port);
    const load = steadyLoad(site.port, 10);
    try {
      await sleep(200);
      process.kill(before.pid, "SIGKILL");
      const after = await answerWhere(site.port, (answer) => answer.pid !== before.pid, 10_000);
      expect(after).toMatchObject({ status: 200, server: "first" });
      await sleep(200);
    } finally {
      await load.stop();
    }
    const { failures } = load;
    // A connection the killed process had already taken may be lost with it; none is refused.
    expect(failures.filter((failure) => failure.includes("ECONNREFUSED"))).toEqual([]);
    expect(failures.length).toBeLessThanOrEqual(2);
    expect(running.serving()).toBe(first);
    expect(site.logs).toContainEqual(
      expect.objectContaining({
        level: "error",
        message: `server: release ${first}'s server ended (SIGKILL); starting it again at once`,
      }),
    );
    expect(site.startsOf(siteDirOf(site.deployDir, first))).toHaveLength(2);
  });

  it("rolls a release whose server keeps ending in service back to the one before, once, with no connection refused", async () => {
    const site = await setUp();
    const first = site.release("first");
    const failing = site.release("failing", { "server-ends-ms.txt": "300" });
    makeLive(site.deployDir, first);
    const running = await site.start();
    const load = steadyLoad(site.port, 10);
    try {
      makeLive(site.deployDir, failing);
      await waitUntil(() => running.serving() === failing, 10_000, "the failing release serving");
      await waitUntil(() => liveReleaseId(site.deployDir) === first, 20_000, "the rollback");
      await answerWhere(site.port, (answer) => answer.server === "first", 10_000);
      await sleep(300);
    } finally {
      await load.stop();
    }
    expect(load.failures.filter((failure) => failure.includes("ECONNREFUSED"))).toEqual([]);
    expect(load.answered()).toBeGreaterThan(50);
    const record = listReleases(site.deployDir).find((release) => release.id === failing);
    expect(record).toMatchObject({ state: "failed", failedStep: "service" });
    expect(record?.reason).toMatch(
      /^its server ended 3 times within 5 minutes in service \(exit code 3, exit code 3, exit code 3\); rolled back to release /,
    );
    expect(record?.reason).toContain("a bug that shows only in service");
    expect(site.startsOf(siteDirOf(site.deployDir, failing))).toHaveLength(3);
    expect(site.logs).toContainEqual(
      expect.objectContaining({
        level: "error",
        message: expect.stringContaining(`server: release ${failing} failed in service`) as unknown,
      }),
    );
  });

  it("keeps restarting, with back-off, a release that keeps ending when there is none to roll back to", async () => {
    const site = await setUp();
    const only = site.release("only", { "server-ends-ms.txt": "200" });
    makeLive(site.deployDir, only);
    const running = await site.start();
    await waitUntil(() => site.startsOf(siteDirOf(site.deployDir, only)).length >= 4, 20_000, "four starts");
    expect(liveReleaseId(site.deployDir)).toBe(only);
    expect(listReleases(site.deployDir).find((release) => release.id === only)?.state).toBe("good");
    const delays = site.logs
      .filter((line) => line.fields.release === only && line.fields.delayMs !== undefined)
      .map((line) => line.fields.delayMs);
    expect(delays.slice(0, 3)).toEqual([0, 1_000, 2_000]);
    expect(site.logs.some((line) => line.message.includes("there is no release to roll back to"))).toBe(true);
    // Between its ends it serves again, as the same release.
    await waitUntil(() => running.serving() === only, 10_000, "the release serving again");
  });

  it("ends every worker when it stops, the one serving and one still finishing its requests", async () => {
    const site = await setUp();
    const first = site.release("first", { "answer-ms.txt": "1000" });
    const second = site.release("second");
    makeLive(site.deployDir, first);
    const running = await site.start({ stopGraceMs: 5_000 });
    // A request the first release holds keeps its worker retiring while the second takes over.
    const held = get(site.port);
    await sleep(200);
    makeLive(site.deployDir, second);
    await waitUntil(() => running.serving() === second, 5_000, "the switch");
    const pids = running.workers().map((worker) => worker.process.pid ?? 0);
    expect(pids).toHaveLength(2);
    await running.stop();
    primary = null;
    expect(await held).toMatchObject({ status: 200, server: "first" });
    for (const pid of pids) expect(isRunning(pid)).toBe(false);
    expect(running.workers()).toEqual([]);
    await expect(get(site.port)).rejects.toThrow(/ECONNREFUSED/);
  });
});
