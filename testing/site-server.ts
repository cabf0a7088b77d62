import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { freeLoopbackPort } from "../server/free-port";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { SingleFileName } from "../src/content-contract/content-files";
import type { SingleFileContent } from "../src/content-contract/types";

// Servers that the tests, the bench and `npm run bench:inquiries` start themselves. The shared server of a
// browser-test run is Playwright's webServer (playwright.config.ts); startSite() is for what needs a server
// of its own: the delivery tests (each with its mail server and webhook receiver in the environment) and
// the bench, which runs outside Playwright Test.

const root = path.resolve(__dirname, "..");

/** The HEALTH_TOKEN of every server the tests and the bench start, in their process or in one of its own. */
export const TEST_HEALTH_TOKEN = "test-health-token-0123456789abcdef";

/** What a request for /healthz's details sends: without the token, a server gives the status alone. */
export const healthDetailsHeaders = { Authorization: `Bearer ${TEST_HEALTH_TOKEN}` } as const;

/**
 * What every server the tests start needs besides a port and an outbox: inquiries may be sent as fast
 * as a test types and as often as the tests send them, and the site-wide flood guard is off because
 * every test comes from the same loopback address (the guard is tested on its own, in jest).
 */
export const testServerEnv = {
  HOST: "127.0.0.1",
  HEALTH_TOKEN: TEST_HEALTH_TOKEN,
  INQUIRY_MIN_FILL_SECONDS: "0",
  INQUIRY_RATE_LIMIT_REQUESTS: "100000",
  SITE_REQUESTS_PER_MINUTE: "0",
  // Deliveries are counted by what reaches the mail and webhook stand-ins: the daily digest of held inquiries,
  // which would join them from its hour on, is on only where a test is about it (e2e/held-inquiries.test.ts).
  INQUIRY_DIGEST_HOUR: "off",
} as const;

/** Stops a run that has no build to serve, with what to do, instead of a server that answers 404 to everything. */
export const requireBuild = () => {
  if (!fs.existsSync(path.join(root, "public", "index.html"))) {
    throw new Error("No production build in public/: run `npm run build` first.");
  }
};

/**
 * freeLoopbackPort() (server/free-port.ts) for a Playwright config, which must know its webServer's address before anything async can
 * run: the same lookup in a child process, waited for. As a string, the form an environment variable takes.
 */
export const freePortNow = (): string =>
  execFileSync(
    process.execPath,
    [
      "-e",
      'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { process.stdout.write(String(s.address().port)); s.close(); })',
    ],
    { encoding: "utf8" },
  );

/** A process's resident memory (MB) and the CPU time it has used (ms), read from /proc. */
export const processUsage = (pid: number): { rssMb: number; cpuMs: number } => {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th, in
  // clock ticks of 1/100 s (USER_HZ on Linux).
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  const ticks = Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  return { rssMb: rssKb / 1024, cpuMs: ticks * 10 };
};

/** How long RunningSite.ask waits for the server's answer. */
const ASK_TIMEOUT_MS = 10_000;

// Playwright's webServer does this for the one server it starts from the config; these servers are started
// by fixtures and by the bench, with an environment chosen at run time.
const waitUntilServing = async (url: string, child: ChildProcess, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await sleep(200);
  }
  throw new Error(`the server did not answer ${url} within ${timeoutMs / 1000} s`);
};

export interface RunningSite {
  origin: string;
  url: (pathname: string) => string;
  /** The inquiry outbox of this server: a fresh temporary folder unless INQUIRY_DATA_DIR was given. */
  dataDir: string;
  /** What the server has printed so far. */
  output: () => string;
  /** The server's process, for figures read from /proc. */
  pid: number;
  /** Sends a question over the message channel (SiteOptions.channel); the server's answer, within ASK_TIMEOUT_MS. */
  ask: (question: string) => Promise<unknown>;
  stop: () => Promise<void>;
}

export interface SiteOptions {
  /** Environment for the server, on top of this process's: inquiry delivery settings, say. */
  env?: Record<string, string>;
  /**
   * A command the server is started through, its own command line appended (a memory limit's wrapper,
   * say): the server then runs as what that command execs.
   */
  launcher?: readonly string[];
  /** A port chosen beforehand (freePortNow), for a browser that must know the address before it starts. */
  port?: number;
  /** What serverCommand adds to the server's command line: a bench's `--expose-gc` and probe, say. */
  node?: ServerNodeOptions;
  /** A message channel (Node's IPC) to the server, for a probe loaded into it that answers questions. */
  channel?: boolean;
}

export interface ServerNodeOptions {
  /** Node's own flags (`--expose-gc`). */
  readonly flags?: readonly string[];
  /** Modules loaded into the server before it starts: a hook or a probe of a test or bench. */
  readonly preload?: readonly string[];
}

/**
 * The command `npm run serve` runs, the compiled production server (dist/server/main.js), as every test and
 * bench starts it: with node's `flags` and `preload` modules if given (TypeScript ones through tsx, which
 * then loads only them: the server itself stays the compiled JavaScript production runs).
 */
export const serverCommand = ({ flags = [], preload = [] }: ServerNodeOptions = {}): string[] => [
  process.execPath,
  ...flags,
  ...(preload.length > 0 ? ["--import", "tsx"] : []),
  ...preload.flatMap((file) => ["--import", file]),
  compiledServer(),
];

/** The compiled server's entry point; `npm run build` (or `npm run build:server` alone) writes it. */
const compiledServer = (): string => {
  const entry = path.join(root, "dist", "server", "main.js");
  if (!fs.existsSync(entry)) throw new Error("No compiled server in dist/: run `npm run build:server` first.");
  return entry;
};

/**
 * Serves the production build the way `npm start` does (the production server), on a
 * free loopback port, until stop() is called. Inquiries go to a temporary
 * outbox, and the spam limits that would stop a test typing fast or sending
 * many are lifted unless the test sets them.
 */
export const startSite = async (options: SiteOptions = {}): Promise<RunningSite> => {
  requireBuild();
  const port = options.port ?? (await freeLoopbackPort());
  const origin = `http://127.0.0.1:${port}`;
  const dataDir = options.env?.INQUIRY_DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), "site-inquiries-"));
  const commandLine: readonly string[] = [...(options.launcher ?? []), ...serverCommand(options.node)];
  const [command = process.execPath, ...args] = commandLine;
  const child = spawn(command, args, {
    cwd: root,
    env: {
      ...process.env,
      ...testServerEnv,
      PORT: String(port),
      INQUIRY_DATA_DIR: dataDir,
      ...options.env,
    },
    stdio: options.channel ? ["ignore", "pipe", "pipe", "ipc"] : ["ignore", "pipe", "pipe"],
  });
  let output = "";
  // Both are pipes, as stdio says; its two forms leave the types unsure of it.
  for (const stream of [child.stdout, child.stderr])
    stream?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  try {
    await waitUntilServing(`${origin}/`, child, 60_000);
  } catch (error) {
    throw new Error(`${(error as Error).message}; it printed:\n${output}`);
  }
  return {
    origin,
    url: (pathname) => `${origin}${pathname}`,
    dataDir,
    output: () => output,
    pid: child.pid ?? 0,
    ask: (question) =>
      new Promise((resolve, reject) => {
        if (!child.connected) {
          reject(new Error("the server has no message channel: start it with channel: true"));
          return;
        }
        const answered = (message: unknown) => {
          clearTimeout(timer);
          resolve(message);
        };
        // A late answer must not be taken for the next question's.
        const timer = setTimeout(() => {
          child.off("message", answered);
          reject(new Error(`the server did not answer ${question} within ${ASK_TIMEOUT_MS / 1000} s`));
        }, ASK_TIMEOUT_MS);
        child.once("message", answered);
        child.send(question);
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) {
          resolve();
          return;
        }
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
};

/** Every page of the site, from the sitemap the build wrote, plus the home page. */
export const sitePaths = (): string[] => {
  const sitemap = fs.readFileSync(path.join(root, "public", "sitemap-0.xml"), "utf8");
  const paths = [...sitemap.matchAll(/<loc>https?:\/\/[^/]+(\/[^<]*)<\/loc>/g)].map((match) => match[1]!);
  return [...new Set(["/", ...paths])].sort();
};

/**
 * A content file as the site was built from it, typed by the content contract: the build that the
 * tests and the bench run against checked the file against it.
 */
export const readContent = <F extends SingleFileName>(file: F): SingleFileContent[F] =>
  JSON.parse(fs.readFileSync(path.join(root, "content", file), "utf8")) as SingleFileContent[F];
