import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import { PassThrough, Writable, type Readable } from "node:stream";
import * as z from "zod/mini";

/**
 * Where a release's build runs: the install, the content check, `gatsby build`, `tsc` and the start check. On
 * the single server that is the build unit's process (`build-runner.ts`), a user of its own that cannot read the
 * environment file or the inquiry database, reached over its socket (DEPLOY_BUILD_SOCKET); without that socket
 * (development, the tests) the deployer's own user runs them in `DEPLOY_DIR/build`. Either way a command runs in
 * the build folder, its standard input and output can carry a tar stream, and it can be signalled and killed.
 */

/** A program and its arguments. */
export type Command = readonly [string, ...string[]];

interface Ended {
  readonly code: number | null;
  readonly signal: string | null;
}

export interface Job {
  /** The program's standard input; end it to close the program's. */
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** How it ended; rejects when it could not be started (or the build's process could not be reached). */
  readonly ended: Promise<Ended>;
  /** Sends a signal to its whole process group. */
  signal(name: "SIGTERM" | "SIGKILL"): void;
}

export interface BuildHost {
  /** What the logs and the docs call it. */
  readonly description: string;
  /** Starts `command` in the build folder, with `env` over the build's user's own PATH, HOME and locale. */
  start(command: Command, env: NodeJS.ProcessEnv): Job;
}

/** A child process of this one, leading a process group of its own so that a kill ends its whole tree. */
export const spawnJob = (command: Command, cwd: string, env: NodeJS.ProcessEnv): Job => {
  const [program, ...args] = command;
  const child = spawn(program, args, { cwd, env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
  // A program that ends without reading its input closes the pipe; the write error is its end's to report.
  child.stdin.on("error", () => undefined);
  const ended = new Promise<Ended>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => resolve({ code, signal }));
  });
  return {
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: child.stderr,
    ended,
    signal: (name) => {
      try {
        if (child.pid) process.kill(-child.pid, name);
      } catch {
        // Already gone.
      }
    },
  };
};

/** The deployer's own user, in the folder it builds in. */
export const localBuildHost = (buildDir: string): BuildHost => ({
  description: `the deployer's own user in ${buildDir}`,
  start: (command, env) => {
    fs.mkdirSync(buildDir, { recursive: true });
    return spawnJob(command, buildDir, env);
  },
});

const BUILD_PROTOCOL_VERSION = 1;

/** A connection's first frame: what to run, and the variables it gets besides the build unit's own. */
export const buildRequest = z.object({
  protocol: z.literal(BUILD_PROTOCOL_VERSION),
  command: z.tuple([z.string()], z.string()),
  env: z.record(z.string(), z.string()),
});
type BuildRequest = z.infer<typeof buildRequest>;

/**
 * Frames on the build socket: a type byte, the payload's length (4 bytes, big-endian), the payload. The
 * deployer sends the request, then standard input and signals; the build's process sends the program's output
 * and its end. Closing the connection kills the program's whole process group.
 */
export const Frame = {
  request: 0x00,
  stdin: 0x01,
  stdinEnd: 0x02,
  signal: 0x03,
  started: 0x10,
  stdout: 0x11,
  stderr: 0x12,
  ended: 0x13,
} as const;
const HEADER = 5;
/** No frame is larger: a request with its environment, or one chunk of output. */
const MAX_FRAME = 4 * 1024 * 1024;
/** The most of a stream one frame carries. */
const CHUNK = 1024 * 1024;

export const frame = (type: number, payload: Buffer | string): Buffer => {
  const body = typeof payload === "string" ? Buffer.from(payload) : payload;
  const header = Buffer.alloc(HEADER);
  header.writeUInt8(type, 0);
  header.writeUInt32BE(body.length, 1);
  return Buffer.concat([header, body]);
};

/** Splits a connection's bytes into frames; a frame over MAX_FRAME is an error (the peer is not ours). */
export class FrameReader {
  private pending: Buffer = Buffer.alloc(0);

  read(chunk: Buffer, onFrame: (type: number, payload: Buffer) => void): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    while (this.pending.length >= HEADER) {
      const length = this.pending.readUInt32BE(1);
      if (length > MAX_FRAME) throw new Error(`a frame of ${length} bytes`);
      if (this.pending.length < HEADER + length) return;
      const type = this.pending.readUInt8(0);
      const payload = this.pending.subarray(HEADER, HEADER + length);
      this.pending = this.pending.subarray(HEADER + length);
      onFrame(type, payload);
    }
  }
}

const endedFrame = z.union([
  z.object({ code: z.nullable(z.number()), signal: z.nullable(z.string()) }),
  z.object({ error: z.string() }),
]);

// systemd starts the build unit on the first connection in a second or two; past this, it is not coming.
const START_TIMEOUT_MS = 30_000;

/** The build unit's process, through its socket: each command is a connection of its own. */
export const socketBuildHost = (socketPath: string, startTimeoutMs = START_TIMEOUT_MS): BuildHost => ({
  description: `the build unit, through ${socketPath}`,
  start: (command, env) => {
    const connection = net.createConnection(socketPath);
    // A unit that failed to start leaves the connection waiting in the socket's queue: give up on it.
    const unanswered = setTimeout(
      () =>
        connection.destroy(
          new Error(
            `the build unit did not take the command within ${startTimeoutMs / 1000} s (systemctl status cardinal-site-build)`,
          ),
        ),
      startTimeoutMs,
    );
    const request: BuildRequest = { protocol: BUILD_PROTOCOL_VERSION, command: [...command], env: stringsOf(env) };
    connection.write(frame(Frame.request, JSON.stringify(request)));
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const stdin = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        // The command has ended (or was killed): what it did not read goes nowhere.
        if (connection.destroyed) {
          done();
          return;
        }
        let flowing = true;
        for (let at = 0; at < chunk.length; at += CHUNK) {
          flowing = connection.write(frame(Frame.stdin, chunk.subarray(at, at + CHUNK)));
        }
        // Waits while the socket is full, so that a large tar stream is not held in memory; a close (the
        // command ended without reading it all) ends the wait too.
        if (flowing) {
          done();
          return;
        }
        const go = () => {
          connection.off("drain", go);
          connection.off("close", go);
          done();
        };
        connection.on("drain", go);
        connection.on("close", go);
      },
      final: (done) => {
        if (!connection.destroyed) connection.write(frame(Frame.stdinEnd, ""));
        done();
      },
    });
    stdin.on("error", () => undefined);
    // Killed from here (a deadline, a stop): the command ends as a local one killed would.
    let killed = false;
    const ended = new Promise<Ended>((resolve, reject) => {
      const reader = new FrameReader();
      let result: Ended | null = null;
      let settled = false;
      const finish = (error: Error | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(unanswered);
        stdout.end();
        stderr.end();
        if (result) resolve(result);
        else if (killed) resolve({ code: null, signal: "SIGKILL" });
        else reject(error ?? new Error("the build's process closed the connection before the command ended"));
      };
      connection.on("data", (chunk: Buffer) => {
        try {
          reader.read(chunk, (type, payload) => {
            if (type === Frame.started) clearTimeout(unanswered);
            else if (type === Frame.stdout) {
              // A full pipe pauses the socket until its reader catches up.
              if (!stdout.write(payload)) {
                connection.pause();
                stdout.once("drain", () => connection.resume());
              }
            } else if (type === Frame.stderr) stderr.write(payload);
            else if (type === Frame.ended) {
              const parsed = endedFrame.parse(JSON.parse(payload.toString("utf8")));
              if ("error" in parsed) throw new Error(parsed.error);
              result = parsed;
              // Its last frame: closed at once, whatever of its input the command left unread.
              connection.destroy();
            }
          });
        } catch (error) {
          connection.destroy(error as Error);
        }
      });
      connection.on("error", (error) => finish(error));
      connection.once("close", () => finish(null));
    });
    return {
      stdin,
      stdout,
      stderr,
      ended,
      signal: (name) => {
        // SIGKILL is the connection's close: the build's process kills the group when its deployer goes.
        if (name === "SIGKILL") {
          killed = true;
          connection.destroy();
        } else if (!connection.destroyed) connection.write(frame(Frame.signal, name));
      },
    };
  },
});

const stringsOf = (env: NodeJS.ProcessEnv): Record<string, string> =>
  Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
