/**
 * @jest-environment node
 */
import { fork, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Deployer } from "../server/releases/deployer";
import type { DeployStatus } from "../server/releases/release-store";
import { makeLive, releaseDir, writeReleaseRecord, type ReleaseRecord } from "../server/releases/release-store";
import { answerWorker } from "../server/releases/worker-link";

/**
 * The worker's and the primary's halves of the deploys' link, against each other over a real IPC channel: the
 * worker's half (releasesThroughPrimary, compiled by jest's global setup as production runs it) in a forked
 * child, the primary's (answerWorker) here, fed every message the child sends, as the Primary feeds it a
 * worker's. The child also takes the test's orders (`test:*`) on the same channel, which neither half acts on.
 */

// A forked Node and a two-second timeout: a few seconds on a busy machine.
jest.setTimeout(20_000);

const WORKER_LINK = path.resolve(__dirname, "..", "dist", "server", "releases", "worker-link.js");

const WORKER_SCRIPT = `
const { releasesThroughPrimary } = require(process.env.WORKER_LINK);
const releases = releasesThroughPrimary(process.env.DEPLOY_DIR);
const warnings = [];
process.on("warning", (warning) => warnings.push(warning.name));
process.on("message", (message) => {
  if (message === null || typeof message !== "object") return;
  if (message.type === "test:request") releases.request(message.commit);
  else if (message.type === "test:disconnected") {
    // As the primary's disconnect leaves a retired worker: the channel closed, a webhook still in hand.
    process.disconnect();
    const requested = releases.request(message.commit);
    releases.status().then((status) => require("node:fs").writeFileSync(message.file, JSON.stringify({ requested, status })));
  }
  else if (message.type === "test:send") process.send(message.message);
  else if (message.type === "test:status") {
    const began = Date.now();
    Promise.all(Array.from({ length: message.count }, () => releases.status())).then((statuses) =>
      process.send({
        type: "test:statuses",
        statuses,
        ms: Date.now() - began,
        // The test's own listener: every question's is gone once it is answered or timed out.
        listeners: process.listenerCount("message"),
        warnings,
      }),
    );
  }
});
process.send({ type: "test:ready" });
`;

/** The primary's deployer as answerWorker uses it: what it was asked for, and the state it reports. */
class StandInDeployer {
  readonly requested: string[] = [];
  /** What status() reports, one entry a call; the last one stays. */
  states: Pick<DeployStatus, "running" | "queued">[] = [{ running: false, queued: null }];

  request(commit = "HEAD"): void {
    this.requested.push(commit);
  }

  status(): DeployStatus {
    const state = (this.states.length > 1 ? this.states.shift() : this.states[0]) ?? { running: false, queued: null };
    // The primary's releases are never sent: the worker reads them from disk itself.
    return { ...state, live: null, last: null };
  }
}

interface Statuses {
  readonly type: "test:statuses";
  readonly statuses: DeployStatus[];
  readonly ms: number;
  readonly listeners: number;
  /** The names of the warnings Node gave in the worker. */
  readonly warnings: string[];
}

interface Link {
  readonly child: ChildProcess;
  readonly deployer: StandInDeployer;
  readonly deployDir: string;
  /** What the primary's half sent the worker. */
  readonly sent: unknown[];
  /** How the primary takes a message from the worker; answerWorker's by default. */
  onMessage: (message: unknown) => void;
  readonly statuses: (count: number) => Promise<Statuses>;
}

let link: Link | null = null;

afterEach(async () => {
  const child = link?.child;
  link = null;
  if (child?.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill();
    await exited;
  }
});

const COMMIT = "0123456789abcdef0123456789abcdef01234567";

/** A release record as the deployer writes it, started `day` days after the epoch, named as the deployer names it. */
const release = (day: number, fields: Partial<ReleaseRecord>): ReleaseRecord => {
  const started = new Date(day * 86_400_000);
  const commit = fields.commit ?? COMMIT;
  return {
    id: `${started.toISOString().replace(/[-:]/g, "")}-${commit.slice(0, 12)}`,
    commit,
    branch: "main",
    startedAt: started.toISOString(),
    state: "good",
    ...fields,
  };
};

const startLink = async (): Promise<Link> => {
  if (!fs.existsSync(WORKER_LINK)) throw new Error(`${WORKER_LINK} is missing: jest's global setup compiles it`);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "worker-link-"));
  const script = path.join(folder, "worker.js");
  fs.writeFileSync(script, WORKER_SCRIPT);
  const deployDir = path.join(folder, "deploy");
  fs.mkdirSync(deployDir);
  const child = fork(script, [], {
    env: { ...process.env, WORKER_LINK, DEPLOY_DIR: deployDir },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const deployer = new StandInDeployer();
  const sent: unknown[] = [];
  const worker = {
    send: (message: unknown) => {
      sent.push(message);
      return child.send(message as object);
    },
  };
  const answer = answerWorker(deployer as Pick<Deployer, "request" | "status"> as Deployer);
  const ready = new Promise<void>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the worker ended (exit code ${code})`)));
    const onReady = (message: unknown) => {
      if ((message as { type?: unknown }).type !== "test:ready") return;
      child.off("message", onReady);
      resolve();
    };
    child.on("message", onReady);
  });
  const started: Link = {
    child,
    deployer,
    deployDir,
    sent,
    onMessage: (message) => answer(worker, message),
    statuses: (count) =>
      new Promise((resolve) => {
        const onStatuses = (message: unknown) => {
          if ((message as { type?: unknown }).type !== "test:statuses") return;
          child.off("message", onStatuses);
          resolve(message as Statuses);
        };
        child.on("message", onStatuses);
        child.send({ type: "test:status", count });
      }),
  };
  // Every message the worker sends goes to the primary's half, as the Primary passes each one on.
  child.on("message", (message: unknown) => started.onMessage(message));
  // Set before it is ready, so a child that never gets there is still ended after the test.
  link = started;
  await ready;
  return started;
};

const waitFor = async (done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 10));
};

describe("the link between a worker and the primary", () => {
  it("brings a deploy asked for in the worker to the primary's deployer", async () => {
    const { child, deployer, sent } = await startLink();
    child.send({ type: "test:request", commit: COMMIT });
    child.send({ type: "test:request", commit: "HEAD" });
    await waitFor(() => deployer.requested.length === 2);
    expect(deployer.requested).toEqual([COMMIT, "HEAD"]);
    // A deploy asked for is not answered.
    expect(sent).toEqual([]);
  });

  it("answers a question about the deploys with the primary's running and queued, and the releases read from disk", async () => {
    const { deployer, deployDir, sent, statuses } = await startLink();
    const older = release(1, { finishedAt: new Date(86_400_000 + 60_000).toISOString() });
    const newer = release(2, {
      commit: "fedcba9876543210fedcba9876543210fedcba98",
      state: "failed",
      failedStep: "check",
      reason: "the content check failed (exit code 1)",
    });
    for (const record of [older, newer]) {
      fs.mkdirSync(releaseDir(deployDir, record.id), { recursive: true });
      writeReleaseRecord(deployDir, record);
    }
    makeLive(deployDir, older.id);
    const queued = "89abcdef0123456789abcdef0123456789abcdef";
    deployer.states = [{ running: true, queued }];

    const {
      statuses: [status],
      listeners,
    } = await statuses(1);
    expect(status).toEqual({
      running: true,
      queued,
      live: { ...older, live: true },
      last: { ...newer, live: false },
    });
    expect(sent).toEqual([{ type: "deploy-status", id: expect.any(Number) as number, running: true, queued }]);
    expect(listeners).toBe(1);
  });

  it("gives each of several questions asked at once its own answer", async () => {
    const { deployer, sent, statuses } = await startLink();
    deployer.states = [
      { running: true, queued: COMMIT },
      { running: true, queued: null },
      { running: false, queued: null },
    ];
    const answered = await statuses(3);
    expect(answered.statuses.map(({ running, queued }) => ({ running, queued }))).toEqual([
      { running: true, queued: COMMIT },
      { running: true, queued: null },
      { running: false, queued: null },
    ]);
    expect(new Set(sent.map((message) => (message as { id: number }).id)).size).toBe(3);
    expect(answered.listeners).toBe(1);
  });

  it("asks twenty questions at once over one listener, with no warning from Node (it warns past ten listeners)", async () => {
    const { deployer, statuses } = await startLink();
    deployer.states = [{ running: true, queued: COMMIT }];
    const answered = await statuses(20);
    expect(answered.statuses.map(({ running, queued }) => ({ running, queued }))).toEqual(
      Array.from({ length: 20 }, () => ({ running: true, queued: COMMIT })),
    );
    expect([answered.warnings, answered.listeners]).toEqual([[], 1]);
  });

  it("resolves a question the primary does not answer within its timeout, with no deploy known to run", async () => {
    const started = await startLink();
    const { deployDir, statuses } = started;
    const good = release(1, {});
    fs.mkdirSync(releaseDir(deployDir, good.id), { recursive: true });
    writeReleaseRecord(deployDir, good);
    makeLive(deployDir, good.id);
    // A primary that is stopping: it says nothing to the question, and what it does send is not the answer
    // (another question's id, or no answer's shape) and must not be taken for one.
    const heard: unknown[] = [];
    started.onMessage = (message) => {
      const { type, id } = message as { type?: unknown; id?: unknown };
      if (typeof type === "string" && type.startsWith("test:")) return;
      heard.push(message);
      if (type !== "deploy-status" || typeof id !== "number") return;
      started.child.send({ type: "deploy-status", id: id + 1, running: true, queued: COMMIT });
      started.child.send({ type: "deploy", id, running: true, queued: COMMIT });
      started.child.send({ id, running: true, queued: COMMIT });
    };

    const answered = await statuses(1);
    expect(heard).toEqual([{ type: "deploy-status", id: expect.any(Number) as number }]);
    expect(answered.statuses).toEqual([
      { running: false, queued: null, live: { ...good, live: true }, last: { ...good, live: true } },
    ]);
    // The timeout is two seconds: it waited for it, and not much longer.
    expect(answered.ms).toBeGreaterThanOrEqual(1_900);
    expect(answered.ms).toBeLessThan(5_000);
    expect(answered.listeners).toBe(1);
  });

  it("once the primary has closed the channel, refuses a deploy asked for and answers a question at once, without an error", async () => {
    const { child, deployer, deployDir } = await startLink();
    const good = release(1, {});
    fs.mkdirSync(releaseDir(deployDir, good.id), { recursive: true });
    writeReleaseRecord(deployDir, good);
    makeLive(deployDir, good.id);
    const file = path.join(path.dirname(deployDir), "answers.json");
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    const began = Date.now();
    child.send({ type: "test:disconnected", commit: COMMIT, file });
    // A message sent on the closed channel would have been an error nobody caught: exit code 1.
    expect(await exited).toBe(0);
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({
      requested: false,
      status: { running: false, queued: null, live: { ...good, live: true }, last: { ...good, live: true } },
    });
    // Not after the two seconds an unanswered question waits.
    expect(Date.now() - began).toBeLessThan(1_900);
    expect(deployer.requested).toEqual([]);
  });

  it("ignores a message of the wrong shape: another type, a field of the wrong type, a commit that is not 40 hex or HEAD", async () => {
    const { child, deployer, sent } = await startLink();
    const malformed: unknown[] = [
      null,
      "deploy",
      42,
      [],
      {},
      { type: "DEPLOY", commit: COMMIT },
      { type: "rollback", commit: COMMIT },
      { type: "deploy" },
      { type: "deploy", commit: 42 },
      { type: "deploy", commit: [COMMIT] },
      { type: "deploy", commit: "0123456789ab" },
      { type: "deploy", commit: COMMIT.toUpperCase() },
      { type: "deploy", commit: `${COMMIT}0` },
      { type: "deploy", commit: `${COMMIT}\n` },
      { type: "deploy", commit: "g".repeat(40) },
      { type: "deploy", commit: "head" },
      { type: "deploy", commit: "main" },
      { type: "deploy", commit: "HEAD~1" },
      { type: "deploy-status" },
      { type: "deploy-status", id: "1" },
      { type: "deploy-status", id: null },
    ];
    for (const message of malformed) child.send({ type: "test:send", message });
    // The channel keeps its order: once this one has arrived, every message before it has been handled.
    const fence = "fedcba9876543210fedcba9876543210fedcba98";
    child.send({ type: "test:send", message: { type: "deploy", commit: fence } });
    await waitFor(() => deployer.requested.length > 0);
    expect(deployer.requested).toEqual([fence]);
    expect(sent).toEqual([]);
  });
});
