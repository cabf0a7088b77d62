/**
 * @jest-environment node
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const root = path.resolve(__dirname, "..");

/**
 * Logs two lines through `destination` and exits at once, as every stop of the server ends, while the one
 * thread of libuv's pool is busy (a long key derivation): a write handed to that pool waits behind it. The
 * messages, in the order they reached standard output (a pipe, as under the journal).
 */
const linesAtExit = async (destination: "the server's" | "pino's default"): Promise<string[]> => {
  const script = [
    'import { pbkdf2 } from "node:crypto";',
    'import pino from "pino";',
    "const { logOutput } = await import(process.argv[1]);",
    'pbkdf2("password", "salt", 500_000, 32, "sha512", () => undefined);',
    `const log = ${destination === "the server's" ? "pino(logOutput())" : "pino()"};`,
    'log.info("SIGTERM: finishing requests in flight, then stopping");',
    'log.info("stopped");',
    "process.exit(0);",
  ].join("\n");
  const { stdout } = await run(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e", script, path.join(root, "server/log-output.ts")],
    { cwd: root, env: { ...process.env, UV_THREADPOOL_SIZE: "1" } },
  );
  return stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { msg: string }).msg);
};

describe("the server's log output", () => {
  it("has every line on standard output, in order, when the process exits right after logging", async () => {
    expect(await linesAtExit("the server's")).toEqual([
      "SIGTERM: finishing requests in flight, then stopping",
      "stopped",
    ]);
  });

  it("tells the fault: pino's default output, which writes in the background, gets the same lines out of order or loses them", async () => {
    expect(await linesAtExit("pino's default")).not.toEqual([
      "SIGTERM: finishing requests in flight, then stopping",
      "stopped",
    ]);
  });
});
