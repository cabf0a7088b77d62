/**
 * @jest-environment node
 */
import { fork, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { DeployAcceptance } from "../server/releases/deployer";
import type { DeployStatus } from "../server/releases/release-store";
import { makeLive, releaseDir, writeReleaseRecord, type ReleaseRecord } from "../server/releases/release-store";
import { PROTOCOL_VERSION } from "../server/releases/protocol";
import { answerWorker } from "../server/releases/worker-link";
import { waitUntil } from "./support/wait-until";

/**
 * The worker's and the primary's ends of the channel, against each other over a real IPC channel: the
 * worker's end (workerEnd, compiled by jest's global setup as production runs it) in a forked child, the
 * primary's (answerWorker) here, fed every message the child sends, as the Primary feeds it a worker's. The
 * child also takes the test's orders (`test:*`) on the same channel, which the worker's end answers as
 * unknown; the test's own half ignores those answers.
 */

// A forked Node and a five-second timeout: several seconds on a busy machine.
jest.setTimeout(20_000);

const WORKER_LINK = path.resolve(__dirname, "..", "dist", "server", "releases", "worker-link.js");

const WORKER_SCRIPT = `
const { workerEnd } = require(process.env.WORKER_LINK);
const logged = [];
const end = workerEnd({ log: (level, fields, line) => logged.push(level + " " + line), onStop: () => logged.push("stop") });
const releases = end.releases(process.env.DEPLOY_DIR);
const warnings = [];
process.on("warning", (warning) => warnings.push(warning.name));
process.on("message", (message) => {
  if (message === null || typeof message !== "object") return;
  if (message.type === "test:request")
    releases.request(message.commit, message.delivery ?? null).then((answer) => process.send({ type: "test:answer", answer }));
  else if (message.type === "test:disconnected") {
    // As a primary that has gone leaves a worker: the channel closed, a webhook still in hand.
    process.disconnect();
    Promise.all([releases.request(message.commit, null), releases.status()]).then(([requested, status]) =>
      require("node:fs").writeFileSync(message.file, JSON.stringify({ requested, status })),
    );
  }
  else if (message.type === "test:send") process.send(message.message);
  else if (message.type === "test:logged") process.send({ type: "test:logged", logged });
  else if (message.type === "test:status") {
    const began = Date.now();
    Promise.all(Array.from({ length: message.count }, () => releases.status())).then((statuses) =>
      process.send({
        type: "test:statuses",
        statuses,
        ms: Date.now() - began,
        // The worker's end keeps one listener for every question, beside this script's own.
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
  readonly requested: { readonly commit: string; readonly delivery: string | null }[] = [];
  /** What activity() reports, one entry a call; the last one stays. */
  states: Pick<DeployStatus, "running" | "queued">[] = [{ running: false, queued: null }];

  accept(commit: string, delivery: string | null): DeployAcceptance {
    this.requested.push({ commit, delivery });
    return { accepted: true, message: "deploying" };
  }

  activity(): Pick<DeployStatus, "running" | "queued"> {
    return (this.states.length > 1 ? this.states.shift() : this.states[0]) ?? { running: false, queued: null };
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
  /** What the primary's end logged. */
  readonly logged: string[];
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

/** The test's own orders, and the worker's end's answers to them (it knows none of them). */
const aboutTheTest = (message: unknown): boolean => {
  const { type, of } = (message ?? {}) as { type?: unknown; of?: unknown };
  return (typeof type === "string" && type.startsWith("test:")) || (typeof of === "string" && of.startsWith("test:"));
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
  const reply = (message: unknown) => {
    sent.push(message);
    child.send(message as object);
  };
  const logged: string[] = [];
  const answer = answerWorker(deployer, (level, _fields, line) => logged.push(`${level} ${line}`));
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
    logged,
    // The test's own messages are the test's; every other goes to the primary's end.
    onMessage: (message) => {
      if (!aboutTheTest(message)) answer(message, reply);
    },
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

/** The child's next message of a test type. */
const nextOf = <T>(child: ChildProcess, type: string): Promise<T> =>
  new Promise((resolve) => {
    const onMessage = (message: unknown) => {
      if ((message as { type?: unknown }).type !== type) return;
      child.off("message", onMessage);
      resolve(message as T);
    };
    child.on("message", onMessage);
  });

const versioned = (body: Record<string, unknown>) => ({ protocol: PROTOCOL_VERSION, ...body });

describe("the link between a worker and the primary", () => {
  it("brings a push to the primary's deployer, with its delivery, and answers the worker whether it was taken", async () => {
    const { child, deployer, sent } = await startLink();
    const answered = nextOf<{ answer: DeployAcceptance }>(child, "test:answer");
    child.send({ type: "test:request", commit: COMMIT, delivery: "72d3162e-cc78-11e3-81ab-4c9367dc0958" });
    expect((await answered).answer).toEqual({ accepted: true, message: "deploying" });
    expect(deployer.requested).toEqual([{ commit: COMMIT, delivery: "72d3162e-cc78-11e3-81ab-4c9367dc0958" }]);
    expect(sent).toEqual([
      versioned({ type: "deploy-answer", id: expect.any(Number) as number, accepted: true, message: "deploying" }),
    ]);
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
    expect(sent).toEqual([
      versioned({ type: "deploy-status", id: expect.any(Number) as number, running: true, queued }),
    ]);
    expect(listeners).toBe(2);
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
  });

  it("asks twenty questions at once over one listener, with no warning from Node (it warns past ten listeners)", async () => {
    const { deployer, statuses } = await startLink();
    deployer.states = [{ running: true, queued: COMMIT }];
    const answered = await statuses(20);
    expect(answered.statuses.map(({ running, queued }) => ({ running, queued }))).toEqual(
      Array.from({ length: 20 }, () => ({ running: true, queued: COMMIT })),
    );
    expect([answered.warnings, answered.listeners]).toEqual([[], 2]);
  });

  it("resolves a question the primary does not answer within its timeout, with no deploy known to run", async () => {
    const started = await startLink();
    const { deployDir, statuses } = started;
    const good = release(1, {});
    fs.mkdirSync(releaseDir(deployDir, good.id), { recursive: true });
    writeReleaseRecord(deployDir, good);
    makeLive(deployDir, good.id);
    // A primary that is stopping: it says nothing to the question, and what it does send is not the answer
    // (another question's id, another type) and must not be taken for one.
    const heard: unknown[] = [];
    started.onMessage = (message) => {
      const { type, id } = message as { type?: unknown; id?: unknown };
      if (aboutTheTest(message)) return;
      heard.push(message);
      if (type !== "deploy-status" || typeof id !== "number") return;
      started.child.send(versioned({ type: "deploy-status", id: id + 1, running: true, queued: COMMIT }));
      started.child.send(versioned({ type: "deploy-answer", id, accepted: true, message: "deploying" }));
    };

    const answered = await statuses(1);
    expect(heard).toEqual([versioned({ type: "deploy-status", id: expect.any(Number) as number })]);
    expect(answered.statuses).toEqual([
      { running: false, queued: null, live: { ...good, live: true }, last: { ...good, live: true } },
    ]);
    // The timeout is five seconds (past the primary's own two on its deployer): it waited for it, and not much longer.
    expect(answered.ms).toBeGreaterThanOrEqual(4_900);
    expect(answered.ms).toBeLessThan(8_000);
  });

  it("once the primary has closed the channel, refuses a push and answers a question at once, without an error", async () => {
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
      requested: { accepted: false, message: expect.stringContaining("did not answer") as unknown },
      status: { running: false, queued: null, live: { ...good, live: true }, last: { ...good, live: true } },
    });
    // Not after the two seconds an unanswered question waits.
    expect(Date.now() - began).toBeLessThan(1_900);
    expect(deployer.requested).toEqual([]);
  });

  it("answers a message of a type or shape it does not know as unknown, and logs it, on either side", async () => {
    const { child, deployer, sent, logged } = await startLink();
    const malformed: unknown[] = [
      null,
      "deploy",
      42,
      {},
      versioned({ type: "DEPLOY", id: 1, commit: COMMIT, delivery: null }),
      versioned({ type: "rollback", id: 2, commit: COMMIT }),
      versioned({ type: "deploy", id: 3 }),
      versioned({ type: "deploy", id: 4, commit: 42, delivery: null }),
      versioned({ type: "deploy-status", id: "1" }),
      { type: "deploy", id: 5, commit: COMMIT, delivery: null },
    ];
    for (const message of malformed) child.send({ type: "test:send", message });
    // The channel keeps its order: once this one has arrived, every message before it has been handled.
    child.send({
      type: "test:send",
      message: versioned({ type: "deploy", id: 9, commit: "0".repeat(39), delivery: null }),
    });
    await waitUntil(() => sent.length === malformed.length + 1, 8_000, "an answer to each message");
    expect(deployer.requested).toEqual([]);
    expect(sent.slice(0, -1).map((message) => (message as { type: string }).type)).toEqual(
      malformed.map(() => "unknown"),
    );
    expect(sent[2]).toEqual(versioned({ type: "unknown", of: "number" }));
    expect(sent[5]).toEqual(versioned({ type: "unknown", of: "rollback", id: 2 }));
    // A commit that is neither 40 hex nor HEAD is known, and refused.
    expect(sent.at(-1)).toEqual(
      versioned({ type: "deploy-answer", id: 9, accepted: false, message: `not a commit: ${"0".repeat(39)}` }),
    );
    expect(logged).toHaveLength(malformed.length);
    // The worker's end likewise: an order it does not know (from a newer primary) is answered and logged.
    const heard: unknown[] = [];
    const onMessage = (message: unknown) => heard.push(message);
    child.on("message", onMessage);
    child.send(versioned({ type: "drain-gently", id: 7 }));
    const logs = nextOf<{ logged: string[] }>(child, "test:logged");
    child.send({ type: "test:logged" });
    const workerLog = (await logs).logged;
    child.off("message", onMessage);
    expect(heard).toContainEqual(versioned({ type: "unknown", of: "drain-gently", id: 7 }));
    expect(workerLog).toContain("warn a message from the primary of a type this server does not know: drain-gently");
    // And it logs the primary's answers that it sent something unknown, without answering those.
    expect(workerLog).toContain("error the primary does not know this server's rollback message");
  });
});
