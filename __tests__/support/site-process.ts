import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { freeLoopbackPort } from "../../server/free-port";
import { processUsage, serverCommand } from "../../testing/site-server";

const root = path.resolve(__dirname, "../..");

export interface SiteProcess {
  readonly child: ChildProcess;
  readonly port: number;
  readonly origin: string;
  /** Every line the server has logged so far (stdout and stderr). */
  readonly lines: string[];
  /** Resolves with the first logged line that matches, waiting for it if need be. */
  readonly waitForLine: (pattern: RegExp, timeoutMs?: number) => Promise<string>;
  /** Resolves with the exit code (or signal) once the process has ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resident memory in kB and CPU time in clock ticks, from /proc. */
  readonly usage: () => { rssMb: number; cpuMs: number };
  /** Ends the process if it still runs. */
  readonly stop: () => Promise<void>;
}

/**
 * The compiled server in a process of its own, as `npm run serve` starts it, on a free loopback port.
 * `preload` modules are loaded before it, for a test that needs a hook inside the process.
 * `fileSizeLimitKb` caps the size of any file it writes (the shell's `ulimit -f`), as a full disk would:
 * a write past it fails (Node ignores the SIGXFSZ that comes with it).
 */
export const startSiteProcess = async (
  env: NodeJS.ProcessEnv,
  preload: readonly string[] = [],
  { fileSizeLimitKb }: { readonly fileSizeLimitKb?: number } = {},
): Promise<SiteProcess> => {
  const port = await freeLoopbackPort();
  const [node = process.execPath, ...nodeArgs] = serverCommand({ preload });
  const [command, args] =
    fileSizeLimitKb === undefined
      ? [node, nodeArgs]
      : // POSIX sh counts the limit in 512-byte blocks.
        ["/bin/sh", ["-c", `ulimit -f ${fileSizeLimitKb * 2} && exec "$0" "$@"`, node, ...nodeArgs]];
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, NODE_ENV: "production", HOST: "127.0.0.1", PORT: String(port), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  const take = (data: Buffer) => {
    for (const line of data.toString("utf8").split("\n").filter(Boolean)) {
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (waiter.pattern.test(line)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    }
  };
  child.stdout.on("data", take);
  child.stderr.on("data", take);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const waitForLine = (pattern: RegExp, timeoutMs = 15_000) => {
    const found = lines.find((line) => pattern.test(line));
    if (found) return Promise.resolve(found);
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no log line matching ${pattern} within ${timeoutMs} ms:\n${lines.join("\n")}`)),
        timeoutMs,
      );
      waiters.push({
        pattern,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
      });
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`the server exited before logging ${pattern}:\n${lines.join("\n")}`));
      });
    });
  };
  const usage = () => processUsage(child.pid ?? 0);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await exited;
    }
  };
  try {
    await waitForLine(/serving .* on http/);
  } catch (error) {
    await stop();
    throw error;
  }
  return { child, port, origin: `http://127.0.0.1:${port}`, lines, waitForLine, exited, usage, stop };
};
