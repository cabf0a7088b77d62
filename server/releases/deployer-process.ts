// First: on too old a Node this stops with the version to install, before any other import can fail.
import "../require-node";
import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import pino from "pino";
import { logOutput } from "../log-output";
import { projectRoot } from "../project";
import { Deployer, type DeployAcceptance, type DeployActivity } from "./deployer";
import { message, readFromDeployer, readToDeployer, type FromDeployer, type ToDeployer } from "./protocol";
import { readDeploySettings } from "./settings";

/**
 * The deploys in a process of their own, beside the primary: the fetches, the hashing, the build's output and
 * the removals of files all happen there, so the process that accepts every visitor's connection only routes
 * and supervises. The primary starts it (`DeployerProcess`), hands it the pushes a release's server received,
 * and hears from it when a deploy begins or ends and when a release went live.
 */

/** The compiled entry the primary forks, in the checkout. */
const ENTRY = path.join("dist", "server", "releases", "deployer-process.js");
// The deployer answers at once; one that does not is stopping or has died.
const ANSWER_TIMEOUT_MS = 2_000;
// A deployer that ended by itself is started again after this; a deploy it cut short is then recorded.
const RESTART_MS = 2_000;
// A stop waits for the build under way to be ended (its process group killed) and recorded.
const STOP_GRACE_MS = 10_000;

const NOT_TAKEN = "The deploys did not answer: redeliver the push from the hook's Recent Deliveries.";

interface DeployerProcessOptions {
  /** The checkout, whose compiled entry is forked. */
  readonly checkoutDir: string;
  readonly log: (level: "info" | "error", fields: Record<string, unknown>, line: string) => void;
  /** A release went live: the primary follows `live` now rather than at its next look. */
  readonly onLive: () => void;
}

/** In the primary: the deployer's process, started again if it ends by itself. */
export class DeployerProcess {
  private child: ChildProcess | null = null;
  private now: DeployActivity = { running: false, queued: null };
  private nextId = 0;
  private readonly waiting = new Map<number, (answer: DeployAcceptance) => void>();
  private stopping = false;
  private restart: NodeJS.Timeout | null = null;

  constructor(private readonly options: DeployerProcessOptions) {}

  start(): void {
    if (this.stopping) return;
    const child = fork(path.join(this.options.checkoutDir, ENTRY), [], {
      cwd: this.options.checkoutDir,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    this.child = child;
    child.on("message", (raw: unknown) => this.heard(raw));
    // A message to a process whose channel has just closed fails here, not where it was sent.
    child.on("error", (error) => this.options.log("error", { err: error }, "deploy: the deployer's channel failed"));
    child.once("exit", (code, signal) => {
      this.child = null;
      this.now = { running: false, queued: null };
      for (const settle of this.waiting.values()) settle({ accepted: false, message: NOT_TAKEN });
      if (this.stopping) return;
      this.options.log(
        "error",
        { code, signal },
        `deploy: the deployer's process ended (${signal ?? `exit code ${code ?? "none"}`}); starting it again in ${RESTART_MS / 1000} s`,
      );
      this.restart = setTimeout(() => {
        this.restart = null;
        if (!this.stopping) this.start();
      }, RESTART_MS);
    });
  }

  /** The deployer's process id; null while none runs. */
  pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** Whether a deploy runs and what waits, as the deployer last said: no question to another process. */
  activity(): DeployActivity {
    return this.now;
  }

  /** Hands a push to the deployer; resolves with whether it took it. */
  accept(commit: string, delivery: string | null): Promise<DeployAcceptance> {
    const child = this.child;
    if (!child?.connected || this.stopping) return Promise.resolve({ accepted: false, message: NOT_TAKEN });
    return new Promise((resolve) => {
      const id = (this.nextId += 1);
      const timer = setTimeout(() => settle({ accepted: false, message: NOT_TAKEN }), ANSWER_TIMEOUT_MS);
      const settle = (answer: DeployAcceptance) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve(answer);
      };
      this.waiting.set(id, settle);
      child.send(message<ToDeployer>({ type: "accept", id, commit, delivery }));
    });
  }

  /** Ends the deploy under way (its release is recorded as interrupted) and the process. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.restart) clearTimeout(this.restart);
    const child = this.child;
    if (!child) return;
    const ended = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    const kill = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
    if (child.connected) child.send(message<ToDeployer>({ type: "stop" }));
    else child.kill("SIGTERM");
    await ended;
    clearTimeout(kill);
  }

  private heard(raw: unknown) {
    const { known } = readFromDeployer(raw);
    if (known === null) {
      this.options.log("error", {}, "deploy: a message from the deployer's process this primary does not know");
    } else if (known.type === "accepted") {
      this.waiting.get(known.id)?.({ accepted: known.accepted, message: known.message });
    } else if (known.type === "activity") {
      this.now = { running: known.running, queued: known.queued };
    } else {
      this.options.onLive();
    }
  }
}

/** In the deployer's process: the Deployer, driven by the primary's messages. */
const runDeployer = () => {
  const settings = readDeploySettings();
  if (!settings || !process.send) throw new Error("the deployer's process is started by the primary, with DEPLOY_DIR");
  const log = pino({ level: "info" }, logOutput());
  const send = (body: FromDeployer) => {
    if (process.connected) process.send?.(body);
  };
  const deployer = new Deployer({
    settings,
    log: (line, fields) => log.info({ component: "deploy", ...fields }, line),
    modulesFrom: projectRoot(),
    onLive: () => send(message<FromDeployer>({ type: "live" })),
    onActivity: (activity) => send(message<FromDeployer>({ type: "activity", ...activity })),
  });
  const stop = () => void deployer.stop().then(() => process.exit(0));
  process.on("message", (raw: unknown) => {
    const { known } = readToDeployer(raw);
    if (known?.type === "accept") {
      let answer: DeployAcceptance;
      try {
        answer = deployer.accept(known.commit, known.delivery);
      } catch (error) {
        // Remembering the delivery failed (a full disk): refused, so that GitHub delivers it again.
        log.error({ err: error }, `deploy: could not take a push: ${(error as Error).message}`);
        answer = { accepted: false, message: "This server could not take the push: deliver it again." };
      }
      send(message<FromDeployer>({ type: "accepted", id: known.id, ...answer }));
    } else if (known?.type === "stop") stop();
  });
  // The primary gone (killed with the unit, or crashed): the builds go with it.
  process.once("disconnect", stop);
  // A terminal's Ctrl-C reaches the whole process group: the primary decides when the deploys stop.
  process.on("SIGINT", () => undefined);
  process.on("SIGTERM", stop);
  // A deploy that a power loss or a kill cut short is recorded as not made, once its lock is free.
  void deployer.recoverInterrupted().catch((error: unknown) => log.error({ err: error }, "deploy: recovery failed"));
};

if (require.main === module) {
  try {
    runDeployer();
  } catch (error) {
    console.error(`The deploys could not start: ${(error as Error).message}`);
    process.exit(1);
  }
}
