import cluster, { type Worker } from "node:cluster";
import fs from "node:fs";
import path from "node:path";
import { carriesItsServer, listReleases, liveReleaseId, siteDirOf } from "./release-store";

/**
 * The single server's primary process, as `pm2 reload` runs one: it holds the listening socket (Node's
 * cluster module) and runs, as its worker, the live release's own compiled server from that release's own
 * folder, so a visitor is always answered by the code, the content and the pages of one release. When
 * `live` points elsewhere (a deploy, a rollback, `releases --deploy`), it starts the new release's server,
 * and only once that one listens does it stop the old one, which finishes the requests it holds: no
 * connection is refused during a switch. Before the first release the server's own checkout is run.
 */

export interface PrimaryOptions {
  /** DEPLOY_DIR: the releases and the `live` link. */
  readonly deployDir: string;
  /** The folder to run before there is a release: the server's own checkout. */
  readonly checkoutDir: string;
  /** Operational lines (a switch, a worker that failed), with their fields. */
  readonly log: (level: "info" | "error", fields: Record<string, unknown>, message: string) => void;
  /** How long a stopped worker may take to finish what it holds before it is killed. */
  readonly stopGraceMs: number;
  /** How long a new worker may take to listen before it counts as not started. */
  readonly startTimeoutMs?: number;
  /** How often the `live` link is read, to follow a switch made by another process (the releases command). */
  readonly pollMs?: number;
  /** A message from a worker (a push to deploy, a question about the deploys). */
  readonly onMessage?: (worker: Worker, message: unknown) => void;
}

/** Which folder a worker runs: a release (by id), or the checkout (null). */
interface Running {
  readonly worker: Worker;
  readonly release: string | null;
}

const START_TIMEOUT_MS = 60_000;
const POLL_MS = 1_000;
// A worker that ended by itself is started again after this, as systemd's RestartSec would.
const RESTART_DELAY_MS = 2_000;

/** The entry point a worker runs, in the folder it runs from. */
const ENTRY = path.join("dist", "server", "main.js");

export class Primary {
  private current: Running | null = null;
  private readonly retiring = new Set<Worker>();
  private reconciling: Promise<void> | null = null;
  private requests = 0;
  private stopping = false;
  /** A release whose server did not start: not tried again until `live` changes. */
  private refused: string | null = null;
  private poll: NodeJS.Timeout | null = null;
  private restart: NodeJS.Timeout | null = null;
  /** The worker being started, until it listens or fails. */
  private forking: Worker | null = null;

  constructor(private readonly options: PrimaryOptions) {}

  private stoppedMeanwhile(): boolean {
    return this.stopping;
  }

  /** Starts the live release's server; resolves once it listens (or has failed and will be retried). */
  async start(): Promise<void> {
    cluster.schedulingPolicy = cluster.SCHED_RR;
    await this.follow();
    this.poll = setInterval(() => void this.follow(), this.options.pollMs ?? POLL_MS);
    this.poll.unref();
  }

  /** The release whose server answers now (null: the checkout), or undefined before any does. */
  serving(): string | null | undefined {
    return this.current?.release;
  }

  /** Every worker (the one serving and any still finishing after a switch). */
  workers(): Worker[] {
    return [...(this.current ? [this.current.worker] : []), ...this.retiring];
  }

  /** Brings the workers in line with `live` now; a switch under way finishes first. */
  follow(): Promise<void> {
    this.requests += 1;
    if (this.reconciling) return this.reconciling;
    this.reconciling = (async () => {
      try {
        // Calls made while this one awaits count as requests; one more pass answers them all.
        let answered: number;
        do {
          answered = this.requests;
          await this.reconcile();
        } while (answered !== this.requests && !this.stopping);
      } finally {
        this.reconciling = null;
      }
    })();
    return this.reconciling;
  }

  /** Stops every worker (each finishes what it holds, within the grace), and follows `live` no more. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.poll) clearInterval(this.poll);
    if (this.restart) clearTimeout(this.restart);
    // A server still starting is not waited for: it has taken no request yet.
    if (this.forking && !this.forking.isDead()) this.forking.process.kill("SIGKILL");
    await this.reconciling;
    const all = this.workers();
    this.current = null;
    await Promise.all(all.map((worker) => this.retire(worker)));
  }

  private wanted(): string | null {
    const live = liveReleaseId(this.options.deployDir);
    // A link to a release whose folder is gone (removed by hand), or to one made before releases carried
    // their own server (it would deploy and serve by rules of its own), cannot be run: keep what runs.
    const record = live === null ? undefined : listReleases(this.options.deployDir).find((one) => one.id === live);
    if (
      live !== null &&
      (!record ||
        !carriesItsServer(record) ||
        !fs.existsSync(path.join(siteDirOf(this.options.deployDir, live), ENTRY)))
    ) {
      return this.current?.release ?? null;
    }
    return live;
  }

  private async reconcile(): Promise<void> {
    if (this.stopping) return;
    // Nothing serves and a restart waits its pause: the polls meanwhile must not start a worker at once.
    if (this.current === null && this.restart !== null) return;
    const wanted = this.wanted();
    if (this.current?.release === wanted) {
      this.refused = null;
      return;
    }
    if (this.current && wanted === this.refused) return;
    const folder = wanted === null ? this.options.checkoutDir : siteDirOf(this.options.deployDir, wanted);
    const began = performance.now();
    const started = await this.fork(folder);
    const what = wanted === null ? "the checkout" : `release ${wanted}`;
    if (typeof started === "string") {
      this.options.log(
        "error",
        { release: wanted, reason: started },
        `server: ${what} did not start (${started}); ${this.current ? `${this.current.release === null ? "the checkout" : `release ${this.current.release}`} keeps serving` : "trying again"}`,
      );
      if (this.current) {
        this.refused = wanted;
      } else {
        this.scheduleRestart();
      }
      return;
    }
    // The service began to stop while it started: it takes no request.
    if (this.stoppedMeanwhile()) {
      await this.retire(started);
      return;
    }
    const previous = this.current;
    this.current = { worker: started, release: wanted };
    this.refused = null;
    started.on("exit", (code, signal) => this.onExit(started, code, signal));
    this.options.log(
      "info",
      { release: wanted, previous: previous?.release, startMs: Math.round(performance.now() - began) },
      `server: ${what} is serving${previous ? `; ${previous.release === null ? "the checkout" : `release ${previous.release}`} finishes what it holds and stops` : ""}`,
    );
    if (previous) await this.retire(previous.worker);
  }

  /** A worker running `folder`'s server: the worker once it listens, or why it did not. */
  private fork(folder: string): Promise<Worker | string> {
    cluster.setupPrimary({ exec: path.join(folder, ENTRY), cwd: folder, args: [] });
    const worker = cluster.fork();
    this.forking = worker;
    worker.on("message", (message: unknown) => this.options.onMessage?.(worker, message));
    // A message to a worker whose channel has just closed fails here, not where it was sent.
    worker.on("error", (error) => this.options.log("error", { err: error }, "server: a worker's channel failed"));
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        worker.process.kill("SIGKILL");
        done(`it did not listen within ${Math.round((this.options.startTimeoutMs ?? START_TIMEOUT_MS) / 1000)} s`);
      }, this.options.startTimeoutMs ?? START_TIMEOUT_MS);
      const onExit = (code: number | null, signal: string | null) =>
        done(signal ? `it was killed (${signal})` : `it ended with exit code ${code ?? "none"}`);
      const onListening = () => {
        this.forking = null;
        clearTimeout(timer);
        worker.off("exit", onExit);
        resolve(worker);
      };
      const done = (reason: string) => {
        this.forking = null;
        clearTimeout(timer);
        worker.off("listening", onListening);
        worker.off("exit", onExit);
        resolve(reason);
      };
      worker.once("listening", onListening);
      worker.once("exit", onExit);
    });
  }

  /**
   * Stops a worker: no new connection is routed to it from here on (disconnect), and a message (main.ts) has
   * it finish what it holds and exit; past its grace it is killed. Resolves when it ended. The connections
   * already handed to it reach it ahead of the message, so it serves them; a worker left to stop routing by
   * itself could exit with one still on its way, which would then hang. A message, not a signal, so that one
   * from elsewhere (a terminal's Ctrl-C reaches the whole process group) is never its second.
   */
  private retire(worker: Worker): Promise<void> {
    if (worker.isDead()) return Promise.resolve();
    this.retiring.add(worker);
    return new Promise((resolve) => {
      const kill = setTimeout(() => worker.process.kill("SIGKILL"), this.options.stopGraceMs);
      worker.once("exit", () => {
        clearTimeout(kill);
        this.retiring.delete(worker);
        resolve();
      });
      // A closed channel: it is ending by itself.
      if (worker.isConnected()) {
        worker.send({ type: "stop" });
        worker.disconnect();
      }
    });
  }

  private onExit(worker: Worker, code: number | null, signal: string | null) {
    if (this.current?.worker !== worker || this.stopping) return;
    this.current = null;
    this.options.log(
      "error",
      { code, signal },
      `server: the serving worker ended (${signal ?? `exit code ${code ?? "none"}`}); starting it again`,
    );
    this.scheduleRestart();
  }

  private scheduleRestart() {
    if (this.stopping || this.restart) return;
    this.restart = setTimeout(() => {
      this.restart = null;
      void this.follow();
    }, RESTART_DELAY_MS);
  }
}
