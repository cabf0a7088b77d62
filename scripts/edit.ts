// npm run edit: everything an editor needs on their own machine, in one command. It starts the site's
// develop server (`gatsby develop`, which shows a saved change at once) and Decap's local backend
// (decap-server, which writes the editing screen's saves into content/ of this folder), prints where
// both are, and stops both on Ctrl-C. A save is an ordinary change to the files: commit it as any other.
//
// The editing screen looks for decap-server on port 8081 (Decap's local_backend default); the site's port
// is PORT (8000 by default). DECAP_SERVER_PORT moves decap-server, for tests that route to it themselves.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { readSettings, runtimeEnvironment, settingsPart } from "../server/settings/catalog";
import { readToolSetting } from "../testing/tool-settings";

const root = path.resolve(__dirname, "..");
// The server's own defaults are not an editor's: the develop site listens where Gatsby's does.
const settings = readSettings([settingsPart(["HOST", "PORT"])]);
const host = settings.HOST ?? "localhost";
const sitePort = settings.PORT ?? 8000;
const decapPort = readToolSetting("DECAP_SERVER_PORT");
const siteUrl = `http://${host}:${sitePort}/`;

interface Child {
  readonly name: string;
  readonly process: ChildProcess;
  readonly exited: Promise<number>;
}

/** Each in its own process group, so that stopping it stops what it started too (gatsby's workers). */
const start = (name: string, args: readonly string[], env: NodeJS.ProcessEnv): Child => {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...runtimeEnvironment(), ...env },
    stdio: "inherit",
    detached: true,
  });
  const exited = new Promise<number>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0))),
  );
  return { name, process: child, exited };
};

const children = [
  start("decap-server", [require.resolve("decap-server/dist/index.js")], {
    PORT: String(decapPort),
    // Only this machine may write to the working tree through it.
    BIND_HOST: "127.0.0.1",
    GIT_REPO_DIRECTORY: root,
    MODE: "fs",
  }),
  start("gatsby develop", [require.resolve("gatsby/cli.js"), "develop", "--host", host, "--port", String(sitePort)], {
    GATSBY_TELEMETRY_DISABLED: "1",
  }),
];

/** Sends `signal` to each child still running and to what it started (its process group). */
const signalChildren = (signal: NodeJS.Signals) => {
  for (const { process: child } of children) {
    if (child.exitCode === null && child.pid !== undefined) {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // Already gone.
      }
    }
  }
};

let stopping = false;
const stop = async (code: number) => {
  if (stopping) return;
  stopping = true;
  signalChildren("SIGTERM");
  const forced = setTimeout(() => signalChildren("SIGKILL"), 10_000);
  await Promise.all(children.map((child) => child.exited));
  clearTimeout(forced);
  process.exit(code);
};

process.on("SIGINT", () => void stop(0));
process.on("SIGTERM", () => void stop(0));
for (const child of children) {
  void child.exited.then((code) => {
    if (stopping) return;
    console.error(`\n${child.name} stopped (exit code ${code}); stopping the rest.`);
    void stop(code === 0 ? 1 : code);
  });
}

/** Waits for the develop server's first page, then says where everything is. */
const announce = async () => {
  for (;;) {
    if (stopping) return;
    try {
      const response = await fetch(siteUrl);
      if (response.ok) break;
    } catch {
      // Not listening yet.
    }
    await sleep(1000);
  }
  console.log(
    [
      "",
      "Ready to edit:",
      `  Site (shows each save at once)  ${siteUrl}`,
      `  Editing screen                  ${siteUrl}admin/`,
      `  (decap-server, which saves into content/, on http://127.0.0.1:${decapPort}/)`,
      "Press Ctrl-C to stop both.",
      "",
    ].join("\n"),
  );
};
void announce();
