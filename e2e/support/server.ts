import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const root = path.resolve(__dirname, "..", "..");

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

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
    await new Promise((resolve) => setTimeout(resolve, 200));
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
  stop: () => Promise<void>;
}

export interface SiteOptions {
  /** Environment for the server, on top of this process's: inquiry delivery settings, say. */
  env?: Record<string, string>;
}

/** The command `npm run serve` runs: the production server (server/main.ts). */
export const serverCommand = [process.execPath, "--import", "tsx", path.join(root, "server", "main.ts")] as const;

/**
 * Serves the production build the way `npm start` does (the production server), on a
 * free loopback port, until stop() is called. Inquiries go to a temporary
 * outbox, and the spam limits that would stop a test typing fast or sending
 * many are lifted unless the test sets them.
 */
export const startSite = async (options: SiteOptions = {}): Promise<RunningSite> => {
  if (!fs.existsSync(path.join(root, "public", "index.html"))) {
    throw new Error("No production build in public/: run `npm run build` first.");
  }
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const dataDir = options.env?.INQUIRY_DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), "site-inquiries-"));
  const [command, ...args] = serverCommand;
  const child = spawn(command, args, {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      INQUIRY_DATA_DIR: dataDir,
      INQUIRY_MIN_FILL_SECONDS: "0",
      INQUIRY_RATE_LIMIT_REQUESTS: "100000",
      // Every test shares one loopback address; the site-wide flood guard is tested on its own.
      SITE_REQUESTS_PER_MINUTE: "0",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
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
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
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

/** A content file as the site was built from it. */
export const readContent = <T>(file: string): T =>
  JSON.parse(fs.readFileSync(path.join(root, "content", file), "utf8")) as T;
