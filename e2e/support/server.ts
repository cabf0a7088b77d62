import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

const root = path.resolve(__dirname, "..", "..");

const freePort = (): Promise<number> =>
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
    if (child.exitCode !== null) throw new Error(`gatsby serve exited with code ${child.exitCode}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`gatsby serve did not answer ${url} within ${timeoutMs / 1000} s`);
};

export interface RunningSite {
  origin: string;
  url: (pathname: string) => string;
  stop: () => Promise<void>;
}

/**
 * Serves the production build the way `npm start` does (gatsby serve), on a
 * free loopback port, until stop() is called.
 */
export const startSite = async (): Promise<RunningSite> => {
  if (!fs.existsSync(path.join(root, "public", "index.html"))) {
    throw new Error("No production build in public/: run `npm run build` first.");
  }
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const child = spawn(
    process.execPath,
    [require.resolve("gatsby/cli.js"), "serve", "--port", String(port), "--host", "127.0.0.1"],
    { cwd: root, env: { ...process.env, GATSBY_TELEMETRY_DISABLED: "1" }, stdio: "ignore" },
  );
  await waitUntilServing(`${origin}/`, child, 60_000);
  return {
    origin,
    url: (pathname) => `${origin}${pathname}`,
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
