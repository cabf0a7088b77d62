import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";

/**
 * The local Netlify Blobs server that @netlify/blobs ships, for tests and the load bench: blobs in a
 * temporary folder, a random port, a random token, in a child process (blobs-server-process.ts).
 * Clients reach it on 127.0.0.1; the package listens on every interface, so the token is what keeps
 * anyone else out for the seconds it runs.
 */
export const startBlobsServer = async () => {
  const directory = mkdtempSync(path.join(tmpdir(), "blobs-server-"));
  const token = randomUUID();
  const child = spawn(
    process.execPath,
    ["--import", "tsx", path.join(__dirname, "blobs-server-process.ts"), directory, token],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the Blobs server exited (${code ?? "signal"})`)));
    createInterface({ input: child.stdout }).once("line", (line) => resolve(Number(line)));
  });
  const url = `http://127.0.0.1:${port}`;
  const siteID = "test-site";
  return {
    url,
    token,
    siteID,
    directory,
    /**
     * The environment with which the code reaches this server with a site ID and a token, as the CLI
     * reaches the Netlify API (whose signed-URL detour this local server handles, but not for lists
     * with a prefix: the server is reached directly instead).
     */
    env: (store = "inquiries"): NodeJS.ProcessEnv => ({
      INQUIRY_OUTBOX: "blobs",
      INQUIRY_BLOBS_STORE: store,
      NETLIFY_SITE_ID: siteID,
      NETLIFY_BLOBS_TOKEN: token,
      INQUIRY_BLOBS_SERVER_URL: url,
    }),
    /** NETLIFY_BLOBS_CONTEXT as Netlify gives it to a modern function (the scheduled delivery's way). */
    functionContext: () =>
      Buffer.from(JSON.stringify({ siteID, token, edgeURL: url, uncachedEdgeURL: url })).toString("base64"),
    /** `event.blobs` and the site header, as a Lambda-compatible function receives them (the inquiry function's way). */
    lambdaEvent: () => ({
      blobs: Buffer.from(JSON.stringify({ url, url_uncached: url, token, primary_region: "dev" })).toString("base64"),
      headers: { "x-nf-site-id": siteID },
    }),
    close: async () => {
      child.removeAllListeners("exit");
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
      rmSync(directory, { recursive: true, force: true });
    },
  };
};
export type LocalBlobsServer = Awaited<ReturnType<typeof startBlobsServer>>;
