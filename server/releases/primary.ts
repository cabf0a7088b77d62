import cluster, { type Worker } from "node:cluster";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import readline from "node:readline";
import { HANDOFF_MODULE } from "./handoff";
import { message, readWorkerMessage, type PrimaryMessage } from "./protocol";
import {
  carriesItsServer,
  liveReleaseId,
  makeLive,
  previousReleaseId,
  readReleaseRecord,
  siteDirOf,
  writeReleaseRecord,
} from "./release-store";
import { afterEnd, describeEnd, END_WINDOW_MS, recentEnds, type ServerEnd } from "./supervision";
import type { Reply } from "./worker-link";

/**
 * The single server's primary process. It holds the public socket itself and hands each visitor's connection
 * to its one worker, the live release's own compiled server run from that release's folder, so a visitor is
 * always answered by the code, the content and the pages of one release. While no worker can take them
 * (one died and is starting again), connections wait here instead of being refused. When `live` points
 * elsewhere (a deploy, a rollback, `releases --deploy`), it starts the new release's server, and only once
 * that one is ready does it hand it the connections and stop the old one, which finishes what it holds.
 * When the live release's server keeps ending by itself, it rolls back to the release before (supervision.ts).
 * Before the first release the server's own checkout is run.
 */

type Level = "info" | "warn" | "error";

export interface PrimaryOptions {
  /** DEPLOY_DIR: the releases and the `live` link. */
  readonly deployDir: string;
  /** The folder to run before there is a release: the server's own checkout. */
  readonly checkoutDir: string;
  /** Where visitors connect (PORT and HOST). */
  readonly listen: { readonly port: number; readonly host: string };
  /** Operational lines (a switch, a worker that failed), with their fields. */
  readonly log: (level: Level, fields: Record<string, unknown>, message: string) => void;
  /** How long a stopped worker may take to finish what it holds before it is killed. */
  readonly stopGraceMs: number;
  /** How long a new worker may take to be ready before it counts as not started. */
  readonly startTimeoutMs?: number;
  /** How often the `live` link is read, to follow a switch made by another process (the releases command). */
  readonly pollMs?: number;
  /** A worker's message other than `ready` (a push to deploy, a question about the deploys), and how to answer. */
  readonly onMessage?: (raw: unknown, reply: Reply) => void;
  /** A line a worker printed; by default written on to this process's own stdout or stderr (the journal). */
  readonly output?: (stream: "stdout" | "stderr", line: string) => void;
}

/** Which folder a worker runs (a release by id, or the checkout: null), and the last lines it printed. */
interface Running {
  readonly worker: Worker;
  readonly release: string | null;
  readonly lastLines: string[];
}

/** A worker that did not start: why, and how it ended. */
interface NotStarted {
  readonly reason: string;
  readonly end: Omit<ServerEnd, "at">;
  readonly lastLines: readonly string[];
}

const START_TIMEOUT_MS = 60_000;
const POLL_MS = 1_000;
/** Lines of a worker's output kept for the record of a release that failed in service. */
const LINES_KEPT = 20;
/** Connections that wait for a worker: at most this many, for at most this long (a proxy gives up sooner). */
const MAX_WAITING = 2_048;
const MAX_WAIT_MS = 30_000;

/** The entry point a worker runs, in the folder it runs from. */
const ENTRY = path.join("dist", "server", "main.js");

const whatOf = (release: string | null) => (release === null ? "the checkout" : `release ${release}`);

export class Primary {
  private current: Running | null = null;
  private readonly retiring = new Set<Worker>();
  private reconciling: Promise<void> | null = null;
  private requests = 0;
  private stopping = false;
  /** A release whose server did not start while another served: not tried again until `live` changes. */
  private refused: string | null = null;
  private poll: NodeJS.Timeout | null = null;
  private restart: NodeJS.Timeout | null = null;
  /** The worker being started, until it is ready or fails. */
  private forking: Worker | null = null;
  /** How the live release's server ended in this process: the supervision's history. */
  private ends: { release: string | null; list: ServerEnd[] } = { release: null, list: [] };
  /** Visitors' connections waiting for a worker, oldest first. */
  private waiting: { readonly socket: net.Socket; readonly since: number }[] = [];
  private sweep: NodeJS.Timeout | null = null;
  private readonly listener = net.createServer({ pauseOnConnect: true }, (socket) => this.route(socket));
  /** Each worker's end: its process exited and its output was all written on. */
  private readonly closings = new WeakMap<Worker, Promise<void>>();

  constructor(private readonly options: PrimaryOptions) {}

  /** Whether a stop began while this process awaited something (a method, so the check is made again). */
  private stoppedMeanwhile(): boolean {
    return this.stopping;
  }

  /** Listens, and starts the live release's server; resolves once it is ready (or has failed and will be retried). */
  async start(): Promise<void> {
    const { port, host } = this.options.listen;
    await new Promise<void>((resolve, reject) => {
      this.listener.once("error", reject);
      this.listener.listen({ port, host }, () => {
        this.listener.off("error", reject);
        resolve();
      });
    });
    this.listener.on("error", (error) =>
      this.options.log("error", { err: error }, "server: the listening socket failed"),
    );
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

  /**
   * Stops: the connections that wait go to the worker that serves, which then finishes what it holds within
   * the grace, as does any still retiring; the socket is closed and `live` followed no more.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.poll) clearInterval(this.poll);
    if (this.restart) clearTimeout(this.restart);
    // A server still starting is not waited for: it has taken no request yet.
    if (this.forking && !this.forking.isDead()) this.forking.process.kill("SIGKILL");
    await this.reconciling;
    this.listener.close();
    if (!this.current) for (const { socket } of this.waiting.splice(0)) socket.destroy();
    this.handWaiting();
    if (this.sweep) clearInterval(this.sweep);
    const all = this.workers();
    this.current = null;
    await Promise.all(all.map((worker) => this.retire(worker)));
  }

  /** A visitor's connection: to the serving worker, or to wait for one. */
  private route(socket: net.Socket) {
    const worker = this.current?.worker;
    if (worker?.isConnected() && this.waiting.length === 0) this.hand(worker, socket);
    else this.hold(socket);
  }

  private hand(worker: Worker, socket: net.Socket) {
    // The socket is this process's until the worker has it: a channel that closed meanwhile leaves it to wait.
    worker.send(message<PrimaryMessage>({ type: "connection" }), socket, { keepOpen: false }, (error) => {
      if (error) this.hold(socket);
    });
  }

  private hold(socket: net.Socket) {
    if (this.waiting.length >= MAX_WAITING) {
      socket.destroy();
      return;
    }
    // A visitor who gives up while waiting: nothing to report.
    socket.on("error", () => undefined);
    this.waiting.push({ socket, since: Date.now() });
    this.sweep ??= setInterval(() => this.dropStale(), 1_000);
    this.handWaiting();
  }

  /** The connections that wait, to the serving worker, in the order they came. */
  private handWaiting() {
    const worker = this.current?.worker;
    if (!worker?.isConnected()) return;
    for (const { socket } of this.waiting.splice(0)) this.hand(worker, socket);
    if (this.sweep && this.waiting.length === 0) {
      clearInterval(this.sweep);
      this.sweep = null;
    }
  }

  private dropStale() {
    const now = Date.now();
    const stale = this.waiting.filter(({ since }) => now - since >= MAX_WAIT_MS);
    if (stale.length === 0) return;
    this.waiting = this.waiting.filter(({ since }) => now - since < MAX_WAIT_MS);
    for (const { socket } of stale) socket.destroy();
    this.options.log(
      "error",
      { dropped: stale.length },
      `server: ${stale.length} connections waited ${MAX_WAIT_MS / 1000} s for a server and were closed`,
    );
  }

  /** Whether a release can be run here: its record, its compiled server, and one that takes connections from here. */
  private runnable(id: string): boolean {
    const record = readReleaseRecord(this.options.deployDir, id);
    const site = siteDirOf(this.options.deployDir, id);
    return (
      record !== null &&
      carriesItsServer(record) &&
      fs.existsSync(path.join(site, ENTRY)) &&
      fs.existsSync(path.join(site, HANDOFF_MODULE))
    );
  }

  private wanted(): string | null {
    const live = liveReleaseId(this.options.deployDir);
    // A link to a release whose folder is gone (removed by hand), or to one made before releases carried
    // their own server or took connections from here, cannot be run: keep what runs.
    if (live !== null && !this.runnable(live)) return this.current?.release ?? null;
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
    if ("reason" in started) {
      this.options.log(
        "error",
        { release: wanted, reason: started.reason },
        `server: ${whatOf(wanted)} did not start (${started.reason}); ${this.current ? `${whatOf(this.current.release)} keeps serving` : "trying again"}`,
      );
      if (this.current) this.refused = wanted;
      else this.ended(wanted, started.end, started.lastLines);
      return;
    }
    // The service began to stop while it started: it takes no request.
    if (this.stoppedMeanwhile()) {
      await this.retire(started.worker);
      return;
    }
    const previous = this.current;
    this.current = started;
    this.refused = null;
    if (this.ends.release !== wanted) this.ends = { release: wanted, list: [] };
    started.worker.process.once("close", (code: number | null, signal: string | null) => {
      if (this.current?.worker === started.worker && !this.stopping) {
        this.current = null;
        this.ended(wanted, { code, signal }, started.lastLines);
      }
    });
    this.handWaiting();
    this.options.log(
      "info",
      { release: wanted, previous: previous?.release, startMs: Math.round(performance.now() - began) },
      `server: ${whatOf(wanted)} is serving${previous ? `; ${whatOf(previous.release)} finishes what it holds and stops` : ""}`,
    );
    // Not awaited: the old worker may take its whole grace, and a restart or a rollback of the new one must not
    // wait for it. It stays in `retiring`, which a stop waits for.
    if (previous) void this.retire(previous.worker);
  }

  /** A worker running `folder`'s server, once it is ready; or why it did not start. */
  private fork(folder: string): Promise<Running | NotStarted> {
    // Its output through here: written on as it comes, and its last lines kept for the record of a failure.
    cluster.setupPrimary({ exec: path.join(folder, ENTRY), cwd: folder, args: [], silent: true });
    const worker = cluster.fork();
    this.forking = worker;
    this.closings.set(worker, new Promise((resolve) => worker.process.once("close", () => resolve())));
    const running: Running = { worker, release: null, lastLines: [] };
    this.capture(worker, running.lastLines);
    const reply: Reply = (body) => {
      if (worker.isConnected()) worker.send(body);
    };
    // A message to a worker whose channel has just closed fails here, not where it was sent.
    worker.on("error", (error) => this.options.log("error", { err: error }, "server: a worker's channel failed"));
    const timeoutMs = this.options.startTimeoutMs ?? START_TIMEOUT_MS;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        worker.process.kill("SIGKILL");
        done({ code: null, signal: "SIGKILL" }, `it was not ready within ${Math.round(timeoutMs / 1000)} s`);
      }, timeoutMs);
      const onClose = (code: number | null, signal: string | null) =>
        done({ code, signal }, signal ? `it was killed (${signal})` : `it ended with exit code ${code ?? "none"}`);
      const onMessage = (raw: unknown) => {
        const received = readWorkerMessage(raw);
        if (received.known?.type === "ready") {
          if (this.forking !== worker) return;
          this.forking = null;
          clearTimeout(timer);
          worker.process.off("close", onClose);
          resolve({ ...running, release: this.releaseOf(folder) });
        } else this.options.onMessage?.(raw, reply);
      };
      const done = (end: NotStarted["end"], reason: string) => {
        if (this.forking !== worker) return;
        this.forking = null;
        clearTimeout(timer);
        worker.process.off("close", onClose);
        resolve({ reason, end, lastLines: running.lastLines });
      };
      worker.on("message", onMessage);
      worker.process.once("close", onClose);
    });
  }

  private releaseOf(folder: string): string | null {
    return folder === this.options.checkoutDir ? null : path.basename(path.dirname(folder));
  }

  /** Writes a worker's output on, line by line, keeping its last lines. */
  private capture(worker: Worker, lastLines: string[]) {
    const output =
      this.options.output ??
      ((stream, line) => (stream === "stdout" ? process.stdout : process.stderr).write(`${line}\n`));
    for (const stream of ["stdout", "stderr"] as const) {
      const source = worker.process[stream];
      if (!source) continue;
      readline.createInterface({ input: source, crlfDelay: Infinity }).on("line", (line) => {
        output(stream, line);
        lastLines.push(line);
        if (lastLines.length > LINES_KEPT) lastLines.shift();
      });
    }
  }

  /**
   * The live release's server ended by itself, or could not start with nothing else serving: started again
   * (at once, or after a pause), or the release rolled back (supervision.ts).
   */
  private ended(release: string | null, end: NotStarted["end"], lastLines: readonly string[]) {
    if (this.stopping) return;
    const now = Date.now();
    if (this.ends.release !== release) this.ends = { release, list: [] };
    this.ends.list = [...recentEnds(this.ends.list, now), { ...end, at: now }];
    const target = release === null ? null : this.rollbackTarget(release);
    const decision = afterEnd(this.ends.list, now, target !== null);
    if (decision.action === "roll back" && release !== null && target !== null) {
      this.rollBack(release, target, decision.ends, lastLines);
      void this.follow();
      return;
    }
    const delayMs = decision.action === "restart" ? decision.delayMs : 0;
    this.options.log(
      "error",
      { release, code: end.code, signal: end.signal, ends: this.ends.list.length, delayMs },
      `server: ${whatOf(release)}'s server ended (${describeEnd(end)}); starting it again ${delayMs === 0 ? "at once" : `in ${delayMs / 1000} s`}` +
        (this.ends.list.length > 1 && target === null && release !== null
          ? `: it ended ${this.ends.list.length} times within ${END_WINDOW_MS / 60_000} minutes and there is no release to roll back to`
          : ""),
    );
    this.scheduleRestart(delayMs);
  }

  /** The release that served before `release`, when it can be run and is not the one failing. */
  private rollbackTarget(release: string): string | null {
    const previous = previousReleaseId(this.options.deployDir);
    if (previous === null || previous === release || liveReleaseId(this.options.deployDir) !== release) return null;
    return readReleaseRecord(this.options.deployDir, previous)?.state === "good" && this.runnable(previous)
      ? previous
      : null;
  }

  /** Records `bad` as failed in service, with how its server ended and what it printed last, and makes `target` live. */
  private rollBack(bad: string, target: string, ends: readonly ServerEnd[], lastLines: readonly string[]) {
    const { deployDir } = this.options;
    const record = readReleaseRecord(deployDir, bad);
    const summary = `its server ended ${ends.length} times within ${END_WINDOW_MS / 60_000} minutes in service (${ends.map(describeEnd).join(", ")}); rolled back to release ${target}`;
    try {
      if (record) {
        writeReleaseRecord(deployDir, {
          ...record,
          state: "failed",
          failedStep: "service",
          reason: [summary, ...(lastLines.length > 0 ? ["its last lines:", ...lastLines] : [])].join("\n"),
        });
      }
      makeLive(deployDir, target);
    } catch (error) {
      this.options.log(
        "error",
        { err: error, release: bad },
        `server: could not roll release ${bad} back: ${(error as Error).message}`,
      );
      this.scheduleRestart(0);
      return;
    }
    this.options.log(
      "error",
      { release: bad, rolledBackTo: target, ends },
      `server: release ${bad} failed in service: ${summary}`,
    );
  }

  /**
   * Stops a worker: no new connection goes to it from here on (it is no longer `current`), and a message
   * (worker-link.ts) has it finish what it holds and exit; past its grace it is killed. Resolves when it ended
   * and its output has been written on, so a stop's lines come before the primary's own last one. A message,
   * not a signal, so that one from elsewhere (a terminal's Ctrl-C reaches the whole process group) is never
   * its second.
   */
  private async retire(worker: Worker): Promise<void> {
    this.retiring.add(worker);
    const kill = setTimeout(() => worker.process.kill("SIGKILL"), this.options.stopGraceMs);
    // After every connection already on its way to it: the channel delivers in order. Not a disconnect,
    // which would close the channel under connections still queued for it. A closed channel: it is ending.
    if (worker.isConnected()) worker.send(message<PrimaryMessage>({ type: "stop" }));
    await this.closings.get(worker);
    clearTimeout(kill);
    this.retiring.delete(worker);
  }

  private scheduleRestart(delayMs: number) {
    if (this.stopping || this.restart) return;
    this.restart = setTimeout(() => {
      this.restart = null;
      void this.follow();
    }, delayMs);
  }
}
