// First: on too old a Node this stops with the version to install, before any other import can fail.
import "../require-node";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import pino from "pino";
import { logOutput } from "../log-output";
import { buildRequest, Frame, FrameReader, frame, spawnJob, type Job } from "./build-host";

/**
 * The build unit's process (deploy/cardinal-site-build.service): it runs the deployer's build commands in its
 * build folder, as a user of its own that can read neither the environment file nor the inquiry database and
 * can write nothing but its own folders. systemd hands it the listening socket (cardinal-site-build.socket),
 * which only the service's user may connect to. Each connection runs one command (`build-host.ts`).
 */

// Past this after the deployer's SIGTERM, or as soon as its connection closes, the whole group is killed.
const KILL_AFTER_MS = 10_000;

/** What a build's program gets of this process's own environment, whatever the deployer sends. */
const OWN = ["PATH", "HOME", "USER", "LOGNAME", "LANG", "TMPDIR", "SHELL"];

export interface BuildRunnerOptions {
  /** The folder every command runs in: the build's work tree, its modules and its caches. */
  readonly buildDir: string;
  readonly log: pino.Logger;
}

/** Serves build commands on `server`; the function it returns kills every command still running. */
export const serveBuilds = (server: net.Server, { buildDir, log }: BuildRunnerOptions): (() => void) => {
  fs.mkdirSync(buildDir, { recursive: true });
  const running = new Set<Job>();
  const own = Object.fromEntries(OWN.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])));
  server.on("connection", (connection) => {
    const reader = new FrameReader();
    let job: Job | null = null;
    // Once its command has ended, a connection's close kills nothing (its process group may be another's by then).
    let finished = false;
    let kill: NodeJS.Timeout | null = null;
    const killSoon = () => {
      kill ??= setTimeout(() => job?.signal("SIGKILL"), KILL_AFTER_MS);
    };
    const refuse = (why: string) => {
      log.warn({ why }, "build: a connection refused");
      connection.end(frame(Frame.ended, JSON.stringify({ error: why })));
    };
    connection.on("error", () => undefined);
    connection.on("close", () => {
      if (!finished) job?.signal("SIGKILL");
    });
    connection.on("data", (chunk: Buffer) => {
      try {
        reader.read(chunk, (type, payload) => {
          if (job === null) {
            if (type !== Frame.request) throw new Error("the first frame is not a request");
            const request = buildRequest.safeParse(JSON.parse(payload.toString("utf8")));
            if (!request.success) throw new Error(`not a request of protocol 1: ${request.error.message}`);
            job = start(request.data.command, { ...request.data.env, ...own });
            return;
          }
          if (finished) return;
          if (type === Frame.stdin) {
            if (!job.stdin.write(payload)) {
              connection.pause();
              job.stdin.once("drain", () => connection.resume());
            }
          } else if (type === Frame.stdinEnd) job.stdin.end();
          else if (type === Frame.signal) {
            const name = payload.toString("utf8");
            if (name !== "SIGTERM") throw new Error(`not a signal it sends: ${name}`);
            job.signal("SIGTERM");
            killSoon();
          } else throw new Error(`a frame of type ${type}`);
        });
      } catch (error) {
        if (job) job.signal("SIGKILL");
        refuse((error as Error).message);
      }
    });

    const start = (command: readonly [string, ...string[]], env: NodeJS.ProcessEnv): Job => {
      const started = spawnJob(command, buildDir, env);
      running.add(started);
      connection.write(frame(Frame.started, ""));
      const forward = (type: number) => (data: Buffer) => {
        if (!connection.write(frame(type, data))) {
          started.stdout.pause();
          connection.once("drain", () => started.stdout.resume());
        }
      };
      started.stdout.on("data", forward(Frame.stdout));
      started.stderr.on("data", (data: Buffer) => connection.write(frame(Frame.stderr, data)));
      started.ended.then(
        (ended) => {
          finished = true;
          running.delete(started);
          if (kill) clearTimeout(kill);
          // Input the command left unread no longer holds the connection paused.
          connection.resume();
          connection.end(frame(Frame.ended, JSON.stringify(ended)));
        },
        (error: unknown) => {
          finished = true;
          running.delete(started);
          connection.resume();
          connection.end(
            frame(Frame.ended, JSON.stringify({ error: `${command[0]} could not start: ${(error as Error).message}` })),
          );
        },
      );
      return started;
    };
  });
  return () => {
    for (const job of running) job.signal("SIGKILL");
  };
};

/** The socket systemd passed: one, as file descriptor 3 (sd_listen_fds(3)). The tests call serveBuilds. */
const listenTarget = (): { fd: number } => {
  if (process.env.LISTEN_FDS === "1" && process.env.LISTEN_PID === String(process.pid)) return { fd: 3 };
  throw new Error("no socket from systemd: cardinal-site-build.socket starts this service");
};

if (require.main === module) {
  const log = pino({ base: { component: "build" } }, logOutput());
  const state = process.env.STATE_DIRECTORY;
  if (!state) throw new Error("no build folder: the unit's StateDirectory= gives it");
  const buildDir = path.join(state, "build");
  const server = net.createServer({ pauseOnConnect: false });
  const killAll = serveBuilds(server, { buildDir, log });
  server.listen(listenTarget(), () => log.info({ buildDir }, `build: taking builds in ${buildDir}`));
  // A stop ends the build under way: the deployer records its release as failed and builds again later.
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      killAll();
      process.exit(0);
    });
  }
}
