/**
 * @jest-environment node
 */
// `npm run test:sandbox` (as root, after `npm run build`): the single server as docs/deploy-server.md sets it up,
// run under deploy/cardinal-site.service's sandbox as e2e/support/unit-sandbox.ts emulates it on a machine
// without systemd. The machine is set up as the guide says (the service user, the checkout at /srv, the
// environment file in /etc, Node 24 and npm at /usr/local/bin), with a bare repository on this machine in
// GitHub's place; pushes then go live, or fail with their real reason, through real installs and builds.
// Everything it makes is removed afterwards; it refuses to run where any of it already exists, unless a run of
// its own that was cut short left it (see CLAIM).
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import examples from "@octokit/webhooks-examples";
import { memoryLimit, type MemoryLimit } from "../testing/memory-limit";
import { fetchAsProxied } from "../testing/proxied-fetch";
import { healthDetailsHeaders, TEST_HEALTH_TOKEN } from "../testing/site-server";
import {
  execStart,
  grantedDirectories,
  readUnit,
  sandboxedCommand,
  serviceEnvironment,
  machineLayer,
  setting,
  socketActivatedCommand,
  socketOwnership,
  type MachineOptions,
} from "./support/unit-sandbox";
import { listReleases, type ListedRelease } from "../server/releases/release-store";
import { githubDelivery, pushBody } from "./support/deploy-repository";
import { postForm, postJson, quoteInquiry, validInquiry, type Send } from "./support/inquiry-posts";
import { COULD_NOT_HANDLE } from "../server/site/refusals";
import { DatabaseSync } from "node:sqlite";

const root = path.resolve(__dirname, "..");
const unitFile = path.join(root, "deploy", "cardinal-site.service");
const unit = readUnit(unitFile);
const USER = setting(unit, "User") ?? "";
// The builds' unit, started by its socket, as a user of its own.
const buildUnitFile = path.join(root, "deploy", "cardinal-site-build.service");
const buildSocketFile = path.join(root, "deploy", "cardinal-site-build.socket");
const buildUnit = readUnit(buildUnitFile);
const buildSocket = socketOwnership(readUnit(buildSocketFile));
const BUILD_USER = setting(buildUnit, "User") ?? "";
const CHECKOUT = setting(unit, "WorkingDirectory") ?? "";
const ENV_FILE = setting(unit, "EnvironmentFile") ?? "";
const ENV_EXAMPLE = path.join(root, "deploy", "cardinal-site.env.example");
const STATE = "/var/lib/cardinal-site";
const ORIGIN = "/srv/cardinal-site-origin.git";
const BACKUPS = "/var/backups/cardinal-site";
const SECRET = "the sandbox webhook secret, 32 characters or more";
const PUSH_EXAMPLE = (examples.find((definition) => definition.name === "push")?.examples[0] ?? {}) as Record<
  string,
  unknown
>;
// A real install and build at idle priority in the sandbox, on two cores.
const DEPLOY_TIMEOUT_MS = 15 * 60_000;
// Another run on the same machine, from start to end.
const CLAIM_WAIT_MS = 15 * 60_000;
// The machine claimed, set up as the guide says, and both units started.
const SETUP_TIMEOUT_MS = CLAIM_WAIT_MS + 10 * 60_000;
jest.setTimeout(DEPLOY_TIMEOUT_MS + 60_000);

/** What the test made on the machine, removed afterwards in reverse order. */
const made: (() => void)[] = [];

/**
 * A run's claim on the machine: its process and the boot it ran in, written before it makes anything and removed
 * after everything it made. A claim whose process is gone is a run cut short (killed, or its machine restarted),
 * and what it left is removed before this run sets up; a live claim is another run, waited for. Without a claim,
 * what exists is another install's, and refused.
 */
const CLAIM = "/var/tmp/cardinal-site-unit-sandbox.claim";
/** Where `discard` moves a folder aside, before the run's own process number. */
const discardedPrefix = (folder: string) => `${folder}.discarded-`;
const bootId = () => fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
const installedUnits = () =>
  [unitFile, buildUnitFile, buildSocketFile].map((file) => path.join("/etc/systemd/system", path.basename(file)));
/** Everything a run makes on the machine outside its own temporary folder. */
const machineFootprint = () => [
  CHECKOUT,
  ORIGIN,
  ENV_FILE,
  BACKUPS,
  buildSocket.path,
  ...[...grantedDirectories(unit), ...grantedDirectories(buildUnit)].map((folder) => folder.path),
  ...installedUnits(),
];
interface Claim {
  pid: number;
  boot: string;
  /** The process groups the run started (the units' sandboxes), which outlive it when it is killed. */
  groups: number[];
}
const readClaim = (): Claim | null => {
  try {
    return JSON.parse(fs.readFileSync(CLAIM, "utf8")) as Claim;
  } catch {
    return null;
  }
};
const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const claimHolder = (): number | null => {
  const claim = readClaim();
  return claim?.boot === bootId() && isAlive(claim.pid) ? claim.pid : null;
};
const claimGroup = (group: number) => {
  const claim = readClaim();
  if (claim?.pid === process.pid)
    fs.writeFileSync(CLAIM, JSON.stringify({ ...claim, groups: [...claim.groups, group] }));
};
/** Whether some process is removing this folder: the background removal of a run that has ended. */
const beingRemoved = (aside: string) =>
  fs
    .readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .some((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(aside);
      } catch {
        return false;
      }
    });
/**
 * The folders earlier runs moved aside whose removal never finished, as when the machine stopped mid-teardown. Their
 * files belong to users this run makes again, perhaps with the same numbers, so they must not outlive set-up.
 */
const removeAbandonedAsides = () => {
  for (const taken of machineFootprint()) {
    const folder = path.dirname(taken);
    for (const entry of fs.existsSync(folder) ? fs.readdirSync(folder) : []) {
      const aside = path.join(folder, entry);
      if (aside.startsWith(discardedPrefix(taken)) && !beingRemoved(aside))
        fs.rmSync(aside, { recursive: true, force: true });
    }
  }
};
const removeCutShortRun = (claim: Claim | null) => {
  for (const group of claim?.boot === bootId() ? claim.groups : []) {
    if (isAlive(-group)) process.kill(-group, "SIGKILL");
  }
  for (const user of [USER, BUILD_USER]) spawnSync("pkill", ["-KILL", "-u", user]);
  for (const taken of machineFootprint()) fs.rmSync(taken, { recursive: true, force: true });
  for (const user of [USER, BUILD_USER]) spawnSync("userdel", [user]);
};
const claimMachine = async () => {
  const waitUntil = Date.now() + CLAIM_WAIT_MS;
  for (let holder = claimHolder(); holder !== null; holder = claimHolder()) {
    if (Date.now() > waitUntil) throw new Error(`another run of this test (process ${holder}) holds ${CLAIM}`);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
  }
  if (fs.existsSync(CLAIM)) {
    process.stderr.write(`${CLAIM} is a run cut short: removing what it left on the machine\n`);
    removeCutShortRun(readClaim());
  }
  removeAbandonedAsides();
  fs.writeFileSync(CLAIM, JSON.stringify({ pid: process.pid, boot: bootId(), groups: [] } satisfies Claim));
};
/**
 * A folder the test made, moved aside at once and removed in the background at the lowest priority: its trees of
 * modules and caches took most of the teardown's time, which nothing after the test needs to wait for.
 */
const discard = (folder: string) => {
  if (!fs.existsSync(folder)) return;
  const aside = `${discardedPrefix(folder)}${process.pid}`;
  fs.renameSync(folder, aside);
  spawn("nice", ["-n", "19", "ionice", "-c", "3", "rm", "-rf", aside], { detached: true, stdio: "ignore" }).unref();
};
const work = fs.mkdtempSync(path.join(os.tmpdir(), "unit-sandbox-"));
made.push(() => discard(work));
// Root's git meets repositories the service user owns (the origin): it must not refuse them as dubious.
const rootGitConfig = path.join(work, "gitconfig");
fs.writeFileSync(rootGitConfig, "[safe]\n\tdirectory = *\n[user]\n\tname = Editor\n\temail = editor@example.com\n");
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_GLOBAL: rootGitConfig },
  }).trim();

let uid = 0;
let gid = 0;
let buildUid = 0;
let buildGid = 0;
let port = 0;
let server: ChildProcess | null = null;
let builder: ChildProcess | null = null;
let memory: MemoryLimit | null = null;
let buildMemory: MemoryLimit | null = null;
const serverOutput: string[] = [];
const builderOutput: string[] = [];
const figures: Record<string, number> = {};
/** A release's seconds for each of its steps, among the figures under the push's name: where its wait went. */
const stepFigures = (push: string, release: ListedRelease | undefined) => {
  for (const [step, seconds] of Object.entries(release?.seconds ?? {})) figures[`${push}.${step}`] = seconds;
};

/**
 * Node 24 and npm at /usr/local/bin, and root's copies of the operator's command and of the unit, as the guide
 * installs them from the checkout: the command in the sandbox's view, the unit where the command reads it. Both
 * are made on the first call, after beforeAll has refused a machine where a unit is installed already.
 */
const machine = (): MachineOptions => {
  const npmCli = execFileSync("sh", ["-c", 'readlink -f "$(command -v npm)"'], { encoding: "utf8" }).trim();
  const command = path.join(work, "cardinal-site");
  if (!fs.existsSync(command)) {
    for (const installed of installedUnits()) {
      fs.copyFileSync(path.join(CHECKOUT, "deploy", path.basename(installed)), installed);
      made.push(() => fs.rmSync(installed, { force: true }));
      fs.chownSync(installed, 0, 0);
      fs.chmodSync(installed, 0o644);
    }
    fs.copyFileSync(path.join(CHECKOUT, "deploy", "cardinal-site"), command);
    fs.chownSync(command, 0, 0);
    fs.chmodSync(command, 0o755);
  }
  return {
    emptied: ["/usr/local/bin"],
    machine: [
      [process.execPath, "/usr/local/bin/node"],
      [command, "/usr/local/bin/cardinal-site"],
    ],
    links: [[npmCli, "/usr/local/bin/npm"]],
  };
};

/** A command on the machine as set up (Node 24 at /usr/local/bin), as root, outside the service's sandbox. */
const onMachine = (command: readonly string[], env: NodeJS.ProcessEnv = {}) => {
  return spawnSync("bwrap", ["--dev-bind", "/", "/", ...machineLayer(machine()), "--", ...command], {
    encoding: "utf8",
    env: { PATH: "/usr/local/bin:/usr/bin:/bin", LANG: "C.UTF-8", ...env },
    timeout: 120_000,
  });
};

/**
 * Runs a unit's command line in a process group of its own, its output gathered into `output`; resolves once
 * the output since the start holds `ready`.
 */
const launch = async (
  command: readonly string[],
  env: NodeJS.ProcessEnv,
  output: string[],
  ready: string,
): Promise<ChildProcess> => {
  const [program, ...args] = command;
  const before = output.join("").length;
  const child = spawn(program!, args, { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  if (child.pid !== undefined) claimGroup(child.pid);
  child.stdout.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  await until(`"${ready}"`, () => (output.join("").slice(before).includes(ready) ? true : undefined));
  return child;
};

/** Starts the unit's ExecStart in its sandbox and memory cgroup, as systemd would; resolves with the seconds until it serves. */
const startService = async (): Promise<number> => {
  const command = sandboxedCommand(unit, execStart(unit), { uid, gid, ...machine() });
  const started = performance.now();
  server = await launch(
    [...(memory?.launcher ?? []), ...command],
    serviceEnvironment(unit, USER),
    serverOutput,
    '"msg":"serving ',
  );
  return (performance.now() - started) / 1000;
};

/**
 * The builds' unit as systemd runs it: its socket made where the .socket unit says, with its owner and mode,
 * and its service started in its sandbox and memory cgroup on the first connection, the socket handed over.
 */
const startBuildUnit = async (): Promise<void> => {
  fs.rmSync(buildSocket.path, { force: true });
  const command = sandboxedCommand(buildUnit, execStart(buildUnit), {
    uid: buildUid,
    gid: buildGid,
    socketActivated: true,
    ...machine(),
  });
  const env = serviceEnvironment(buildUnit, BUILD_USER);
  builder = await launch(
    socketActivatedCommand(readUnit(buildSocketFile), [...(buildMemory?.launcher ?? []), ...command], env),
    env,
    builderOutput,
    `Listening on ${buildSocket.path}`,
  );
  execFileSync("chown", [`${buildSocket.user}:${buildSocket.group}`, buildSocket.path]);
  fs.chmodSync(buildSocket.path, buildSocket.mode);
};

/** A command in the service's sandbox, as the service's user. */
const inSandbox = (command: readonly string[]) => {
  const [program, ...args] = sandboxedCommand(unit, command, { uid, gid, ...machine() });
  return spawnSync(program!, args, { encoding: "utf8", env: serviceEnvironment(unit, USER) });
};

/** A command in the build unit's sandbox, as the builds' user. */
const inBuildSandbox = (command: readonly string[]) => {
  const [program, ...args] = sandboxedCommand(buildUnit, command, { uid: buildUid, gid: buildGid, ...machine() });
  return spawnSync(program!, args, { encoding: "utf8", env: serviceEnvironment(buildUnit, BUILD_USER) });
};

/** The service's own process: bwrap's child (bwrap does not pass signals on to it). */
const servicePid = (): number => {
  const bwrap = server?.pid ?? 0;
  const children = fs.readFileSync(`/proc/${bwrap}/task/${bwrap}/children`, "utf8").trim().split(/\s+/);
  expect(children).toHaveLength(1);
  return Number(children[0]);
};

/** The live release's own server: the primary's child that runs a release's compiled server. */
const releaseServerPid = (): number | undefined => {
  const primary = servicePid();
  return fs
    .readFileSync(`/proc/${primary}/task/${primary}/children`, "utf8")
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number)
    .find((pid) => {
      try {
        return /\/releases\/releases\/[^/]+\/site\/dist\/server\/main\.js/.test(
          fs.readFileSync(`/proc/${pid}/cmdline`, "utf8"),
        );
      } catch {
        return false;
      }
    });
};

/** The primary's log lines whose message contains `text`, as JSON, oldest first. */
const primaryLines = (text: string): { readonly time: number; readonly msg: string }[] =>
  serverOutput
    .join("")
    .split("\n")
    .filter((line) => line.includes(text) && line.includes('"component":"primary"'))
    .map((line) => JSON.parse(line) as { time: number; msg: string });

const releases = (): ListedRelease[] => listReleases(path.join(STATE, "releases"));

const send: Send = fetchAsProxied;
/** /healthz's details, as the monitor holding the token reads them (the release that answered, whether a deploy runs). */
const healthDetails = async <T>(): Promise<T> =>
  (await (await send(`http://127.0.0.1:${port}/healthz`, { headers: healthDetailsHeaders })).json()) as T;

const headline = async (): Promise<string | undefined> => {
  const page = await send(`http://127.0.0.1:${port}/`);
  expect(page.status).toBe(200);
  return /<h1[^>]*>(.*?)<\/h1>/s.exec(await page.text())?.[1]?.replace(/<[^>]+>/g, "");
};

const until = async <T>(what: string, check: () => Promise<T | undefined> | T | undefined): Promise<T> => {
  const deadline = Date.now() + DEPLOY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const found = await check();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(
    `${what} did not happen within ${DEPLOY_TIMEOUT_MS / 60_000} minutes; the server said:\n${serverOutput.join("")}`,
  );
};

/** An editor's commit on the branch, pushed to the origin, and the webhook GitHub would send for it. */
const pushChange = async (
  message: string,
  change: (checkout: string) => void,
): Promise<{ commit: string; sentAt: number }> => {
  const editor = path.join(work, "editor");
  if (!fs.existsSync(editor)) git(work, "clone", "--quiet", "--no-local", ORIGIN, editor);
  change(editor);
  // New files too (a product category added as a file of its own), as the editing screen commits them.
  git(editor, "add", "--all");
  git(editor, "commit", "--quiet", "--message", message);
  git(editor, "push", "--quiet", "origin", "HEAD");
  const commit = git(editor, "rev-parse", "HEAD");
  const body = pushBody(PUSH_EXAMPLE, `refs/heads/${git(editor, "rev-parse", "--abbrev-ref", "HEAD")}`, commit);
  const sentAt = performance.now();
  const answer = await send(`http://127.0.0.1:${port}/api/deploy/github`, {
    method: "POST",
    headers: githubDelivery("push", body, SECRET),
    body,
  });
  // Taken to deploy, not ignored (a push to a branch the server does not deploy would leave every wait to time out).
  expect([answer.status, await answer.json()]).toEqual([202, { message: "deploying", commit }]);
  return { commit, sentAt };
};

/** The release whose own server answered. */
const servedRelease = async (): Promise<string | null> =>
  (await healthDetails<{ site: { servedRelease: string | null } }>()).site.servedRelease;

/**
 * Until the release of `commit` is live and its server alone answers (the one before it has stopped taking
 * connections: three answers in a row from it), its page showing `text`.
 */
const untilLive = (commit: string, text: string) =>
  until(`${commit.slice(0, 12)} live`, async () => {
    const release = releases().find((candidate) => candidate.commit === commit);
    if (release?.state === "failed") throw new Error(`the push failed: ${release.reason ?? ""}`);
    if (release?.state !== "good" || !release.live) return undefined;
    for (let answer = 0; answer < 3; answer += 1) if ((await servedRelease()) !== release.id) return undefined;
    return (await headline()) === text ? true : undefined;
  });

/** What the build probe tries to reach: the live release's home page when it was pushed. */
const probeTargets = { liveIndex: "" };

/**
 * A push's build, hostile: npm's prebuild script tries to read the secrets, the inquiries and the primary's
 * environment, and to write into the live release and the checkout, and prints how each attempt ended.
 */
const plantBuildProbe = (checkout: string) => {
  const live = releases().find((release) => release.live);
  probeTargets.liveIndex = path.join(STATE, "releases", "releases", live?.id ?? "", "site", "public", "index.html");
  const attempts = [
    ["read the environment file", `fs.readFileSync(${JSON.stringify(ENV_FILE)})`],
    ["read the inquiry database", `fs.readFileSync(${JSON.stringify(path.join(STATE, "inquiries.sqlite"))})`],
    ["list the service's state", `fs.readdirSync(${JSON.stringify(STATE)})`],
    ["read the primary's environment", `fs.readFileSync("/proc/${servicePid()}/environ")`],
    ["write into the live release", `fs.appendFileSync(${JSON.stringify(probeTargets.liveIndex)}, "<!-- planted -->")`],
    ["write into the checkout", `fs.appendFileSync(${JSON.stringify(path.join(CHECKOUT, "package.json"))}, " ")`],
  ];
  fs.writeFileSync(
    path.join(checkout, "build-probe.js"),
    `const fs = require("node:fs");\n${attempts
      .map(
        ([what, attempt]) =>
          `try { ${attempt}; console.log("build probe: ${what}: done"); } catch (error) { console.log("build probe: ${what}: refused (" + error.code + ")"); }`,
      )
      .join("\n")}\n`,
  );
  editJson(path.join(checkout, "package.json"), (data) => {
    (data.scripts as Record<string, string>).prebuild = "node build-probe.js";
  });
};

const editJson = (file: string, edit: (data: Record<string, unknown>) => void) => {
  const data = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
  edit(data);
  fs.writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
};

const setHeadline = (text: unknown) => (checkout: string) =>
  editJson(path.join(checkout, "content", "home.json"), (home) => {
    (home.hero as Record<string, unknown>).headline = text;
  });

beforeAll(async () => {
  if (process.getuid?.() !== 0)
    throw new Error("npm run test:sandbox sets up a user, /srv, /etc and /var: run it as root");
  for (const tool of ["bwrap", "setpriv", "systemd-analyze"]) {
    if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0) {
      throw new Error(`${tool} is missing: apt-get install bubblewrap util-linux systemd`);
    }
  }
  if (!fs.existsSync(path.join(root, "public", "index.html")) || !fs.existsSync(path.join(root, "dist", "server"))) {
    throw new Error("No build: run npm run build first");
  }
  await claimMachine();
  for (const taken of machineFootprint()) {
    if (fs.existsSync(taken)) throw new Error(`${taken} exists: this machine is not one to set up afresh`);
  }
  for (const user of [USER, BUILD_USER])
    if (spawnSync("id", [user]).status === 0) throw new Error(`the user ${user} exists already`);

  // The guide's steps, as root: the service's user and the builds'.
  const addUser = (name: string): { uid: number; gid: number } => {
    execFileSync("useradd", [
      "--system",
      "--home-dir",
      "/nonexistent",
      "--no-create-home",
      "--shell",
      "/usr/sbin/nologin",
      name,
    ]);
    made.push(() => void spawnSync("userdel", [name]));
    return {
      uid: Number(execFileSync("id", ["-u", name], { encoding: "utf8" })),
      gid: Number(execFileSync("id", ["-g", name], { encoding: "utf8" })),
    };
  };
  ({ uid, gid } = addUser(USER));
  ({ uid: buildUid, gid: buildGid } = addUser(BUILD_USER));
  // GitHub's place: this commit, in a bare repository the service user can fetch from.
  // --no-local: hard links into this checkout's objects would change their owner with the chown below.
  git(root, "clone", "--quiet", "--bare", "--no-local", root, ORIGIN);
  made.push(() => discard(ORIGIN));
  // The branch the guide's environment file deploys, at this commit, whatever branch (or none) this checkout is on.
  const deployBranch = /^DEPLOY_BRANCH=(\S+)$/m.exec(fs.readFileSync(ENV_EXAMPLE, "utf8"))?.[1] ?? "";
  git(ORIGIN, "update-ref", `refs/heads/${deployBranch}`, "HEAD");
  git(ORIGIN, "symbolic-ref", "HEAD", `refs/heads/${deployBranch}`);
  execFileSync("chown", ["-R", `${USER}:${USER}`, ORIGIN]);
  fs.mkdirSync(CHECKOUT);
  made.push(() => discard(CHECKOUT));
  execFileSync("chown", [`${USER}:${USER}`, CHECKOUT]);
  execFileSync(
    "setpriv",
    [`--reuid=${uid}`, `--regid=${gid}`, "--init-groups", "git", "clone", "--quiet", ORIGIN, CHECKOUT],
    {
      env: { PATH: "/usr/bin:/bin", HOME: "/nonexistent" },
    },
  );
  // The install and first build the guide runs (npm ci, npm run build), taken from this checkout's own: same commit.
  for (const folder of ["node_modules", "public", "dist"]) {
    execFileSync("cp", ["-a", path.join(root, folder), path.join(CHECKOUT, folder)]);
  }
  fs.rmSync(path.join(CHECKOUT, "node_modules", ".cache"), { recursive: true, force: true });
  execFileSync("chown", ["-R", `${USER}:${USER}`, CHECKOUT]);

  port = 9400 + (process.pid % 500);
  const sample = fs.readFileSync(ENV_EXAMPLE, "utf8");
  const values: Record<string, string | null> = {
    PORT: String(port),
    SMTP_URL: null,
    INQUIRY_TO: null,
    INQUIRY_FROM: null,
    DEPLOY_REPOSITORY: `file://${ORIGIN}`,
    DEPLOY_WEBHOOK_SECRET: `'${SECRET}'`,
    CMS_GITHUB_REPO: "cardinal-ridge-supply/site",
  };
  const envText = sample
    .split("\n")
    .map((line) => {
      const name = /^([A-Z_]+)=/.exec(line)?.[1];
      if (name === undefined || !(name in values)) return line;
      const value = values[name];
      return value === null ? `#${line}` : `${name}=${value}`;
    })
    .join("\n")
    // The steady traffic below comes from one address, past the per-visitor limits: a page every 20 ms and an
    // inquiry a second.
    .concat(`\nINQUIRY_RATE_LIMIT_REQUESTS=100000\nSITE_REQUESTS_PER_MINUTE=0\nHEALTH_TOKEN=${TEST_HEALTH_TOKEN}\n`);
  // Root's alone, as the guide installs it: systemd and the operator's command read it as root.
  fs.writeFileSync(ENV_FILE, envText, { mode: 0o600 });
  made.push(() => fs.rmSync(ENV_FILE, { force: true }));
  execFileSync("chown", ["root:root", ENV_FILE]);
  fs.chmodSync(ENV_FILE, 0o600);

  // The backups' folder as the guide makes it: the service user's, mode 700.
  fs.mkdirSync(BACKUPS, { mode: 0o700 });
  made.push(() => discard(BACKUPS));
  execFileSync("chown", [`${USER}:${USER}`, BACKUPS]);

  // What systemd does before it starts a service: the granted directories, owned by its user.
  for (const [of, user] of [
    [unit, USER],
    [buildUnit, BUILD_USER],
  ] as const) {
    for (const folder of grantedDirectories(of)) {
      fs.mkdirSync(folder.path, { mode: Number.parseInt(folder.mode, 8) });
      made.push(() => discard(folder.path));
      execFileSync("chown", [`${user}:${user}`, folder.path]);
    }
  }
  made.push(() => fs.rmSync(buildSocket.path, { force: true }));
  memory = memoryLimit(Number.parseInt(setting(unit, "MemoryMax") ?? "1G", 10) * 1024, "unit-sandbox");
  buildMemory = memoryLimit(Number.parseInt(setting(buildUnit, "MemoryMax") ?? "4G", 10) * 1024, "unit-sandbox-build");
  await startBuildUnit();
  figures.startSeconds = await startService();
}, SETUP_TIMEOUT_MS);

/**
 * The paths find prints for these arguments, however many: a whole disk's walk may print more than execFileSync's
 * default 1 MB. A directory another process removed after an earlier walk listed it is not a failure.
 */
const found = (args: readonly string[]): string[] => {
  const walk = spawnSync("find", args, { encoding: "utf8", maxBuffer: 1024 ** 3 });
  const complaints = walk.stderr.split("\n").filter((line) => line && !line.endsWith(": No such file or directory"));
  if (walk.error || walk.signal || (walk.status !== 0 && (walk.status !== 1 || complaints.length > 0)))
    throw new Error(`find ${args.slice(0, 3).join(" ")} … failed: ${walk.error?.message ?? walk.stderr}`);
  return walk.stdout.split("\n").filter(Boolean);
};

/**
 * A walk of the whole disk begun ahead of the last test's own, at the lowest priority: most of that walk's time went
 * to reading directories from the disk. This one reads them into the kernel's cache while the cut-short push builds,
 * so that the test's walk, unchanged, finds them in memory.
 */
let warmingWalk: ChildProcess | null = null;
let inodeCacheWarmed: Promise<void> = Promise.resolve();
const warmInodeCache = () => {
  const walk = spawn("nice", ["-n", "19", "ionice", "-c", "3", "find", "/", "-xdev", "-ignore_readdir_race"], {
    stdio: "ignore",
  });
  warmingWalk = walk;
  // A walk that cannot start only leaves the cache cold.
  inodeCacheWarmed = new Promise((resolve) => {
    walk.once("exit", () => resolve());
    walk.once("error", () => resolve());
  });
};

afterAll(async () => {
  if (warmingWalk?.exitCode === null) warmingWalk.kill("SIGKILL");
  for (const child of [server, builder]) {
    if (child?.pid && child.exitCode === null) {
      process.kill(-child.pid, "SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
    }
  }
  for (const undo of made.reverse()) undo();
  if (claimHolder() === process.pid) fs.rmSync(CLAIM);
  // A cgroup empties once the processes bwrap's death took with it have ended.
  for (const limit of [memory, buildMemory]) {
    for (let tries = 0; limit && tries < 50; tries += 1) {
      try {
        limit.remove();
        break;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }
  console.info(`The unit's sandbox: ${JSON.stringify(figures)}`);
  fs.mkdirSync(path.join(root, "reports"), { recursive: true });
  fs.writeFileSync(path.join(root, "reports", "unit-sandbox.json"), `${JSON.stringify(figures, null, 2)}\n`);
});

describe("the single server under its unit's sandbox", () => {
  it("has units systemd-analyze verifies, the service's and the builds' with an exposure score of at most 2.0", () => {
    const otherUnits = ["cardinal-site-backup.service", "cardinal-site-backup.timer", "cardinal-site-build.socket"];
    const verify = onMachine([
      "systemd-analyze",
      "verify",
      unitFile,
      buildUnitFile,
      ...otherUnits.map((file) => path.join(root, "deploy", file)),
    ]);
    expect([verify.status, verify.stdout, verify.stderr]).toEqual([0, "", ""]);
    for (const [file, figure] of [
      [unitFile, "exposure"],
      [buildUnitFile, "buildExposure"],
    ] as const) {
      const security = spawnSync("systemd-analyze", ["security", "--offline=true", file], { encoding: "utf8" });
      const name = path.basename(file).replace(/\./g, "\\.");
      const exposure = Number(new RegExp(`Overall exposure level for ${name}: ([\\d.]+)`).exec(security.stdout)?.[1]);
      figures[figure] = exposure;
      expect(exposure).toBeLessThanOrEqual(2);
    }
  });

  it("may write only to its state and cache directories and its own /tmp", () => {
    const probe = inSandbox([
      "/bin/sh",
      "-c",
      "for d in /srv/cardinal-site /etc /usr/local /var/lib /tmp /var/lib/cardinal-site /var/cache/cardinal-site /root; do " +
        'if touch "$d/.probe" 2>/dev/null; then echo "$d writable"; else echo "$d not writable"; fi; done; ls -A /root | wc -l',
    ]);
    expect(probe.stdout.trim().split("\n")).toEqual([
      "/srv/cardinal-site not writable",
      "/etc not writable",
      "/usr/local not writable",
      "/var/lib not writable",
      "/tmp writable",
      "/var/lib/cardinal-site writable",
      "/var/cache/cardinal-site writable",
      "/root not writable",
      "0",
    ]);
    // Its /tmp is its own: nothing it wrote there is on the machine's.
    expect(fs.existsSync("/tmp/.probe")).toBe(false);
  });

  it("builds as a user that may write only to the build's state and cache directories and its own /tmp, and read no secret", () => {
    const probe = inBuildSandbox([
      "/bin/sh",
      "-c",
      "for d in /srv/cardinal-site /etc /var/lib /tmp /var/lib/cardinal-site /var/cache/cardinal-site /var/lib/cardinal-site-build /var/cache/cardinal-site-build; do " +
        'if touch "$d/.probe" 2>/dev/null; then echo "$d writable"; else echo "$d not writable"; fi; done; ' +
        `for f in ${ENV_FILE} /var/lib/cardinal-site; do if { [ -d "$f" ] && ls "$f"; } >/dev/null 2>&1 || { [ -f "$f" ] && cat "$f"; } >/dev/null 2>&1; then echo "$f readable"; else echo "$f not readable"; fi; done`,
    ]);
    expect(probe.stdout.trim().split("\n")).toEqual([
      "/srv/cardinal-site not writable",
      "/etc not writable",
      "/var/lib not writable",
      "/tmp writable",
      "/var/lib/cardinal-site not writable",
      "/var/cache/cardinal-site not writable",
      "/var/lib/cardinal-site-build writable",
      "/var/cache/cardinal-site-build writable",
      `${ENV_FILE} not readable`,
      "/var/lib/cardinal-site not readable",
    ]);
  });

  it("the operator's command, unit and environment file as installed: none writable by the service user, the environment file readable by root alone", () => {
    const installed = [
      "/usr/local/bin/cardinal-site",
      ...[unitFile, buildUnitFile, buildSocketFile].map((file) =>
        path.join("/etc/systemd/system", path.basename(file)),
      ),
      ENV_FILE,
    ];
    // Each file's owner and mode, and whether the user could open it to write (without writing) or read it.
    const probe = [
      "/bin/sh",
      "-c",
      'for f in "$@"; do w=writable; r=readable; (: >>"$f") 2>/dev/null || w="not writable"; ' +
        'cat -- "$f" >/dev/null 2>&1 || r="not readable"; echo "$f: $(stat -L -c "%u %a" -- "$f"), $w, $r"; done',
      "sh",
      ...installed,
    ];
    const expected = [
      "/usr/local/bin/cardinal-site: 0 755, not writable, readable",
      "/etc/systemd/system/cardinal-site.service: 0 644, not writable, readable",
      "/etc/systemd/system/cardinal-site-build.service: 0 644, not writable, readable",
      "/etc/systemd/system/cardinal-site-build.socket: 0 644, not writable, readable",
      `${ENV_FILE}: 0 600, not writable, not readable`,
    ];
    // In the service's and the builds' sandboxes, and outside them, as either user, where the units and the
    // environment file are the machine's own files (the command is root's copy placed read-only in the
    // machine's view).
    expect(inSandbox(probe).stdout.trim().split("\n")).toEqual(expected);
    expect(inBuildSandbox(probe).stdout.trim().split("\n")).toEqual(expected);
    for (const [user, group] of [
      [uid, gid],
      [buildUid, buildGid],
    ]) {
      const outside = onMachine(["setpriv", `--reuid=${user}`, `--regid=${group}`, "--init-groups", ...probe]);
      expect(outside.stdout.trim().split("\n")).toEqual(expected);
    }

    fs.chmodSync(ENV_FILE, 0o640);
    try {
      const refused = onMachine(["cardinal-site", "inquiries", "--help"]);
      expect([refused.status, refused.stdout]).toEqual([1, ""]);
      expect(refused.stderr).toContain(`others than root may read ${ENV_FILE}, which holds the site's secrets`);
      expect(refused.stderr).toContain(`sudo chmod 600 ${ENV_FILE}`);
    } finally {
      fs.chmodSync(ENV_FILE, 0o600);
    }
    expect(onMachine(["cardinal-site", "inquiries", "--help"]).status).toBe(0);
  });

  it("serves the site and goes live with a pushed content change, reusing the checkout's modules", async () => {
    expect(await headline()).toBe("Premium Solutions for Government and Military");
    const { commit, sentAt } = await pushChange(
      "Hero headline",
      setHeadline("Uniforms and office furniture, on contract"),
    );
    await untilLive(commit, "Uniforms and office furniture, on contract");
    figures.webhookToLiveSeconds = (performance.now() - sentAt) / 1000;
    expect(releases()[0]).toMatchObject({ commit, state: "good", dependencies: "reused", build: "full" });
    stepFigures("firstPush", releases()[0]);
  });

  it("fails a broken push with its real reason, keeps the live release serving, and reports it degraded", async () => {
    const { commit } = await pushChange("A headline that is not text", setHeadline(42));
    const failed = await until("the failure", () => {
      const newest = releases()[0];
      return newest?.commit === commit && newest.state === "failed" ? newest : undefined;
    });
    expect(failed.failedStep).toBe("check");
    expect(failed.reason).toMatch(/^the content check failed \(exit code 1\)\n/);
    expect(failed.reason).toMatch(/home\.json/);
    expect(await headline()).toBe("Uniforms and office furniture, on contract");
    const health = await healthDetails<{ status: string }>();
    expect(health.status).toBe("degraded: the newest push failed to deploy");
    const listing = onMachine(["cardinal-site", "releases"]);
    expect(listing.status).toBe(0);
    expect(listing.stdout).toContain(commit.slice(0, 12));
    expect(listing.stdout).toContain("failed    at its check step");
    expect(listing.stdout).toMatch(/\n {6}\| the content check failed \(exit code 1\)\n/);
    expect(listing.stdout).toMatch(
      new RegExp(`log: ${STATE}/releases/releases/\\S+-${commit.slice(0, 12)}/build\\.log`),
    );
  });

  describe("under steady traffic: GET / every 20 ms over connections of their own, and an inquiry every second", () => {
    /** A request that failed: when it was sent, when it failed, and how. */
    interface Failure {
      readonly sentAt: number;
      readonly failedAt: number;
      readonly what: string;
    }
    const traffic = {
      pages: 0,
      inquiriesSent: 0,
      failures: [] as Failure[],
      inquiries: [] as string[],
    };
    /**
     * When a release's server process died on purpose (a kill, a bug that shows in service): a request inside
     * it at that instant may be lost with it, and is counted apart. No connection may be refused, ever.
     */
    const deaths: { readonly from: number; readonly to: number }[] = [];
    /** The failures that were refused connections: none ever may be. */
    const refusedConnections = () => traffic.failures.filter(({ what }) => what.includes("ECONNREFUSED"));
    const lostInDeaths = () =>
      traffic.failures.filter(({ sentAt, failedAt }) =>
        deaths.some(({ from, to }) => failedAt >= from && sentAt <= to),
      );
    /** The longest run of failed requests in a row within a window. */
    const longestRun = (from: number, to: number) => {
      const inWindow = traffic.failures.filter(({ failedAt }) => failedAt >= from && failedAt <= to);
      return inWindow.length === 0
        ? 0
        : Math.max(
            ...inWindow.map(
              ({ failedAt }) => inWindow.filter((other) => Math.abs(other.failedAt - failedAt) < 100).length,
            ),
          );
    };
    let running = true;
    let loops: Promise<void>[] = [];
    const every = async (ms: number, work: () => Promise<void>) => {
      while (running) {
        const began = Date.now();
        await work();
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, ms - (Date.now() - began))));
      }
    };

    beforeAll(() => {
      loops = [
        every(20, async () => {
          traffic.pages += 1;
          const sentAt = Date.now();
          try {
            const page = await send(`http://127.0.0.1:${port}/`);
            await page.arrayBuffer();
            if (page.status !== 200)
              traffic.failures.push({ sentAt, failedAt: Date.now(), what: `GET / ${page.status}` });
          } catch (error) {
            traffic.failures.push({ sentAt, failedAt: Date.now(), what: `GET / ${(error as Error).message}` });
          }
        }),
        every(1_000, async () => {
          const sentAt = Date.now();
          try {
            const answer = await postJson(
              `http://127.0.0.1:${port}/api/inquiry`,
              {
                ...validInquiry,
                message: `Steady traffic, inquiry ${(traffic.inquiriesSent += 1)}.`,
              },
              send,
            );
            const body = (await answer.json()) as { reference?: string };
            if (answer.status === 201 && body.reference) traffic.inquiries.push(body.reference);
            else
              traffic.failures.push({
                sentAt,
                failedAt: Date.now(),
                what: `POST ${answer.status} ${JSON.stringify(body)}`,
              });
          } catch (error) {
            traffic.failures.push({ sentAt, failedAt: Date.now(), what: `POST ${(error as Error).message}` });
          }
        }),
      ];
    });

    afterAll(async () => {
      running = false;
      await Promise.all(loops);
    });

    it("refuses no connection when the live release's server is killed, and serves again at once", async () => {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const killed = releaseServerPid();
      expect(killed).toBeDefined();
      const from = Date.now();
      // As the kernel's OOM killer or a native crash would end it.
      process.kill(killed ?? 0, "SIGKILL");
      await until("a new server of the same release", async () => {
        const next = releaseServerPid();
        return next !== undefined && next !== killed && (await send(`http://127.0.0.1:${port}/`)).status === 200
          ? true
          : undefined;
      });
      const to = Date.now();
      deaths.push({ from, to });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      figures.killToServingSeconds = (to - from) / 1000;
      figures.killRefused = refusedConnections().length;
      figures.killLost = lostInDeaths().length;
      figures.killLongestFailureRun = longestRun(from, to + 1_000);
      expect(figures.killRefused).toBe(0);
      expect(primaryLines("'s server ended (SIGKILL); starting it again at once")).toHaveLength(1);
    });

    it("takes an inquiry for a product category and an inquiry type an editor just published, by JSON and by the form", async () => {
      const { commit, sentAt } = await pushChange("Body armor, and fitting days", (checkout) => {
        plantBuildProbe(checkout);
        const tactical = JSON.parse(
          fs.readFileSync(path.join(checkout, "content", "products", "tactical.json"), "utf8"),
        ) as Record<string, unknown>;
        fs.writeFileSync(
          path.join(checkout, "content", "products", "body-armor.json"),
          `${JSON.stringify({ ...tactical, slug: "body-armor", order: 5, title: "Body Armor", shortTitle: "Body Armor" }, null, 2)}\n`,
        );
        editJson(path.join(checkout, "content", "inquiry.json"), (inquiry) => {
          (inquiry.inquiryTypes as unknown[]).push({ value: "fitting-day", label: "Training and fitting day" });
        });
        setHeadline("Body armor for every agency")(checkout);
      });
      await untilLive(commit, "Body armor for every agency");
      figures.contentPushSeconds = (performance.now() - sentAt) / 1000;
      expect(releases()[0]).toMatchObject({ commit, state: "good", build: "incremental" });
      const quote = await send(`http://127.0.0.1:${port}/contact/quote/`);
      const form = await quote.text();
      expect(form).toContain('value="body-armor"');
      expect(form).toContain("Training and fitting day");
      const byJson = await postJson(
        `http://127.0.0.1:${port}/api/inquiry`,
        { ...quoteInquiry, productCategory: "body-armor" },
        send,
      );
      expect([byJson.status, await byJson.text()]).toEqual([201, expect.stringContaining('"reference"')]);
      const typed = await postJson(
        `http://127.0.0.1:${port}/api/inquiry`,
        { ...validInquiry, inquiryType: "fitting-day" },
        send,
      );
      expect(typed.status).toBe(201);
      const byForm = await postForm(
        `http://127.0.0.1:${port}/api/inquiry`,
        {
          ...Object.fromEntries(Object.entries(quoteInquiry).filter(([, value]) => typeof value === "string")),
          compliance: quoteInquiry.compliance,
          productCategory: "body-armor",
          fill_ms: String(quoteInquiry.fill_ms),
        },
        send,
      );
      expect(byForm.status).toBe(201);
      expect(await byForm.text()).not.toContain("Choose one of the listed");
    });

    it("builds a push whose build tries to read the secrets and the inquiries and to change what serves: each attempt fails, and the build completes", () => {
      // The push above planted the probe as npm's prebuild script; its release went live (good, above).
      const probed = releases().find((release) => release.state === "good" && release.live);
      const log = fs.readFileSync(path.join(STATE, "releases", "releases", probed?.id ?? "", "build.log"), "utf8");
      const lines = log.split("\n").filter((line) => line.startsWith("build probe: "));
      // Refused by the files' owners and modes, or by the read-only system the unit's sandbox gives it.
      expect(lines.map((line) => line.replace(/: refused \((EACCES|EROFS)\)$/, ": refused"))).toEqual([
        "build probe: read the environment file: refused",
        "build probe: read the inquiry database: refused",
        "build probe: list the service's state: refused",
        "build probe: read the primary's environment: refused",
        "build probe: write into the live release: refused",
        "build probe: write into the checkout: refused",
      ]);
      expect(fs.readFileSync(probeTargets.liveIndex, "utf8")).not.toContain("planted");
    });

    it("answers with the server code a push changed, once that push is live", async () => {
      const { commit, sentAt } = await pushChange("A plainer refusal", (checkout) => {
        const refusals = path.join(checkout, "server", "site", "refusals.ts");
        fs.writeFileSync(
          refusals,
          fs.readFileSync(refusals, "utf8").replace(`"${COULD_NOT_HANDLE}"`, '"This request could not be handled."'),
        );
        setHeadline("Duty gear, delivered")(checkout);
        // Content removed and renamed in the same push: the incremental build must leave no trace of either.
        fs.rmSync(path.join(checkout, "content", "pages", "terms.json"));
        editJson(path.join(checkout, "content", "pages", "accessibility.json"), (page) => {
          page.slug = "accessibility-statement";
        });
        const navigation = path.join(checkout, "content", "navigation.json");
        const withoutTerms = (value: unknown): unknown =>
          Array.isArray(value)
            ? value.filter((item) => (item as { to?: unknown } | null)?.to !== "/terms/").map(withoutTerms)
            : typeof value === "object" && value !== null
              ? Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, withoutTerms(inner)]))
              : value === "/accessibility/"
                ? "/accessibility-statement/"
                : value;
        fs.writeFileSync(
          navigation,
          `${JSON.stringify(withoutTerms(JSON.parse(fs.readFileSync(navigation, "utf8"))), null, 2)}\n`,
        );
      });
      await untilLive(commit, "Duty gear, delivered");
      figures.codePushSeconds = (performance.now() - sentAt) / 1000;
      const live = releases()[0];
      expect(live).toMatchObject({ commit, state: "good", build: "incremental" });
      for (const [page, status] of [
        ["/terms/", 404],
        ["/terms", 404],
        ["/accessibility/", 404],
        ["/accessibility-statement/", 200],
      ] as const) {
        const answer = await send(`http://127.0.0.1:${port}${page}`, { redirect: "manual" });
        expect([page, answer.status]).toEqual([page, status]);
      }
      const built = path.join(STATE, "releases", "releases", live?.id ?? "", "site", "public");
      const leftovers = execFileSync(
        "find",
        [built, "-path", "*terms*", "-o", "-path", "*/accessibility/*", "-o", "-path", "*/accessibility"],
        {
          encoding: "utf8",
        },
      ).trim();
      expect(leftovers).toBe("");
      const refused = await send(`http://127.0.0.1:${port}/%`);
      expect([refused.status, await refused.json()]).toEqual([400, { error: "This request could not be handled." }]);
      const health = await healthDetails<{ site: { servedRelease: string } }>();
      expect(health.site.servedRelease).toBe(releases()[0]?.id);
    });

    it("keeps a release whose server cannot start out, and the live one serving", async () => {
      const { commit } = await pushChange("A server that cannot start", (checkout) => {
        const main = path.join(checkout, "server", "main.ts");
        fs.writeFileSync(
          main,
          fs
            .readFileSync(main, "utf8")
            .replace(
              "const main = async () => {",
              'const main = async () => {\n  if (process.pid > 0) throw new Error("this release\'s server cannot start");',
            ),
        );
        setHeadline("Never live")(checkout);
      });
      const failed = await until("the failure", () => {
        const newest = releases()[0];
        return newest?.commit === commit && newest.state === "failed" ? newest : undefined;
      });
      expect(failed.failedStep).toBe("start");
      expect(failed.reason).toMatch(/this release's server cannot start/);
      // The editor undoes it; the next push builds on a server that starts.
      const editor = path.join(work, "editor");
      git(editor, "revert", "--no-edit", "HEAD");
      git(editor, "push", "--quiet", "origin", "HEAD");
      expect(await headline()).toBe("Duty gear, delivered");
      const refused = await send(`http://127.0.0.1:${port}/%`);
      expect(await refused.json()).toEqual({ error: "This request could not be handled." });
    });

    it("rolls a release whose server ends by itself in service back to the release before, by itself", async () => {
      const before = releases().find((release) => release.live);
      const { commit } = await pushChange("A bug that shows only in service", (checkout) => {
        const main = path.join(checkout, "server", "main.ts");
        const source = fs.readFileSync(main, "utf8");
        const ready = "    primary.ready();\n";
        if (!source.includes(ready)) throw new Error("server/main.ts no longer tells the primary it is ready");
        // It passes its start check (run on its own), then ends 8 s after it begins to serve visitors.
        fs.writeFileSync(
          main,
          source.replace(
            ready,
            `${ready}    setTimeout(() => {\n      console.error("a bug that shows only in service");\n      process.exit(3);\n    }, 8_000);\n`,
          ),
        );
        setHeadline("Gone in eight seconds")(checkout);
      });
      const failed = await until("the rollback", () => {
        const release = releases().find((candidate) => candidate.commit === commit);
        return release?.state === "failed" ? release : undefined;
      });
      expect(failed.failedStep).toBe("service");
      expect(failed.reason).toMatch(
        /^its server ended 3 times within 5 minutes in service \(exit code 3, exit code 3, exit code 3\); rolled back to release /,
      );
      expect(failed.reason).toContain("a bug that shows only in service");
      await untilLive(before?.commit ?? "", "Duty gear, delivered");
      // Each end of its server, the last of which rolled it back: a request inside the process may be lost with it.
      const ends = primaryLines(`release ${failed.id}'s server ended`);
      const rolledBack = primaryLines(`release ${failed.id} failed in service`);
      for (const { time } of [...ends, ...rolledBack]) deaths.push({ from: time - 1_000, to: time + 1_000 });
      const [firstEnd] = ends;
      const [back] = primaryLines(`release ${before?.id ?? ""} is serving`).slice(-1);
      figures.serviceFailureFirstEndToPreviousSeconds = ((back?.time ?? 0) - (firstEnd?.time ?? 0)) / 1000;
      figures.serviceFailureLost = lostInDeaths().length - (figures.killLost ?? 0);
      expect(refusedConnections()).toEqual([]);
      // Reported: degraded, and the operator's listing names the step and the reason.
      const health = await healthDetails<{ status: string }>();
      expect(health.status).toBe("degraded: the newest release failed in service and was rolled back");
      const listing = onMachine(["cardinal-site", "releases"]);
      expect(listing.stdout).toContain("failed    at its service step");
      expect(listing.stdout).toContain("| its server ended 3 times within 5 minutes in service");
      // The same push delivered again (a new delivery of the same head) does not deploy it again.
      const body = pushBody(PUSH_EXAMPLE, "refs/heads/main", commit);
      const again = await send(`http://127.0.0.1:${port}/api/deploy/github`, {
        method: "POST",
        headers: githubDelivery("push", body, SECRET),
        body,
      });
      expect(again.status).toBe(202);
      await until("the deploy's end", async () =>
        (await healthDetails<{ site: { deploying: boolean } }>()).site.deploying ? undefined : true,
      );
      expect(releases().filter((release) => release.commit === commit)).toHaveLength(1);
      // The editor undoes it, so that later pushes do not carry the bug.
      const editor = path.join(work, "editor");
      git(editor, "revert", "--no-edit", "HEAD");
      git(editor, "push", "--quiet", "origin", "HEAD");
    });

    it("rolls back to the pages and the server of an earlier release", async () => {
      const earlier = releases().find(
        (release) =>
          release.state === "good" &&
          release.commit !== releases().find((r) => r.live)?.commit &&
          release.build === "incremental",
      );
      expect(earlier).toBeDefined();
      // As the guide says: once /healthz says no deploy runs (the failed release's files are being removed).
      await until("the deploy's end", async () =>
        (await healthDetails<{ site: { deploying: boolean } }>()).site.deploying ? undefined : true,
      );
      const rollback = onMachine(["cardinal-site", "releases", "--rollback", earlier?.commit ?? ""]);
      if (rollback.status !== 0) throw new Error(`the rollback failed: ${rollback.stderr}`);
      await untilLive(earlier?.commit ?? "", "Body armor for every agency");
      const refused = await send(`http://127.0.0.1:${port}/%`);
      expect(await refused.json()).toEqual({ error: COULD_NOT_HANDLE });
    });

    it("failed no request and stored every inquiry it accepted exactly once", () => {
      running = false;
      // None refused, and none failed but the few inside a server process at the instant it died.
      const lost = lostInDeaths();
      expect(refusedConnections()).toEqual([]);
      expect(traffic.failures.filter((failure) => !lost.includes(failure))).toEqual([]);
      // A page and an inquiry at most in flight at each of the four deaths (the kill, three ends in service).
      expect(lost.length).toBeLessThanOrEqual(8);
      figures.lostInDeaths = lost.length;
      expect(traffic.pages).toBeGreaterThan(100);
      expect(traffic.inquiries.length).toBeGreaterThan(20);
      figures.pagesDuringSwitches = traffic.pages;
      figures.inquiriesDuringSwitches = traffic.inquiries.length;
      const database = new DatabaseSync(path.join(STATE, "inquiries.sqlite"), { readOnly: true });
      try {
        const stored = database
          .prepare("SELECT reference, COUNT(*) AS copies FROM inquiries GROUP BY reference")
          .all() as {
          reference: string;
          copies: number;
        }[];
        const copies = new Map(stored.map((row) => [row.reference, row.copies]));
        for (const reference of traffic.inquiries) expect([reference, copies.get(reference)]).toEqual([reference, 1]);
      } finally {
        database.close();
      }
    });
  });

  it("serves the last live release after every process of the unit is killed mid-release, and the next push goes live", async () => {
    warmInodeCache();
    const live = await headline();
    const { commit } = await pushChange("Cut short", setHeadline("Cut short by a power loss"));
    await until("the build under way", () => {
      const release = releases().find((candidate) => candidate.commit === commit && candidate.state === "building");
      const log = release ? path.join(STATE, "releases", "releases", release.id, "build.log") : null;
      // Once its build step has begun: the caches are mid-change, the hardest moment to lose power.
      return log !== null && fs.existsSync(log) && fs.readFileSync(log, "utf8").includes("$ npm run build")
        ? true
        : undefined;
    });
    // A power loss: every process of both units at once, the build's included; then the machine starts again.
    const ended = [server, builder].map((child) => new Promise((resolve) => child?.once("exit", resolve)));
    for (const pid of [...(memory?.processes() ?? []), ...(buildMemory?.processes() ?? [])]) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    await Promise.all(ended);
    await startBuildUnit();
    figures.bootToServingSeconds = await startService();
    expect(await headline()).toBe(live);
    // Reported as not made once the dead process's lock has gone stale, not left as building.
    const interrupted = await until("the interrupted release's record", () => {
      const release = releases().find((candidate) => candidate.commit === commit);
      return release?.state === "failed" ? release : undefined;
    });
    expect(interrupted.failedStep).toBe("interrupted");
    // The next push, with a new lockfile: a full build through the release's own npm ci.
    const next = await pushChange("A new patch version", (checkout) => {
      for (const file of ["package.json", "package-lock.json"]) {
        editJson(path.join(checkout, file), (data) => {
          data.version = "1.0.1";
          const packages = data.packages as Record<string, Record<string, unknown>> | undefined;
          if (packages?.[""]) packages[""].version = "1.0.1";
        });
      }
      setHeadline("Office supplies for every agency")(checkout);
    });
    await untilLive(next.commit, "Office supplies for every agency");
    figures.lockfilePushSeconds = (performance.now() - next.sentAt) / 1000;
    stepFigures("lockfilePush", releases()[0]);
    expect(releases()[0]).toMatchObject({
      commit: next.commit,
      state: "good",
      dependencies: "installed",
      build: "full",
    });
    const health = await healthDetails<{ status: string }>();
    expect(health.status).toBe("ok");
  });

  it("answers the operator's commands through cardinal-site: help, export as JSON, retention on demand", () => {
    const help = onMachine(["cardinal-site", "help"]);
    expect([help.status, help.stdout]).toEqual([0, expect.stringMatching(/^cardinal-site COMMAND/)]);
    const inquiriesHelp = onMachine(["cardinal-site", "inquiries", "--help"]);
    expect([inquiriesHelp.status, inquiriesHelp.stdout]).toEqual([0, expect.stringMatching(/^inquiries: /)]);
    const exported = onMachine(["cardinal-site", "inquiries", "--export-email", "buyer@example.gov"]);
    expect(exported.status).toBe(0);
    expect(JSON.parse(exported.stdout)).toEqual([]);
    const retention = onMachine(["cardinal-site", "inquiries", "--retention"]);
    expect([retention.status, retention.stdout]).toEqual([
      0,
      "retention: removed 0 inquiries past 24 months and 0 unreleased suspected spam past 30 days\n",
    ]);
  });

  it("wrote nothing outside the directories its unit grants, and stops cleanly on SIGTERM", async () => {
    // Besides what the unit grants: what the guide gives the user outside the service (its checkout, the
    // backups' folder that the backup unit writes to) and this test's stand-in for GitHub.
    // The builds' user: its own directories alone. The builds' socket is the service user's, as its unit says.
    const granted = [
      ...[...grantedDirectories(unit), ...grantedDirectories(buildUnit)].map((folder) => folder.path),
      buildSocket.path,
      CHECKOUT,
      BACKUPS,
      ORIGIN,
    ];
    // Folders earlier runs moved aside and are still removing in the background hold files of users with the
    // numbers this run's may have been given again; no process of this run's units can reach them.
    const asides = machineFootprint().map((taken) => `${discardedPrefix(taken)}*`);
    const pruned = [...granted, ...asides].flatMap((folder) => ["-path", folder, "-prune", "-o"]);
    await inodeCacheWarmed;
    // A process makes or moves a file only in a directory it may write to: one its user or group owns, or one anyone
    // may write to. So the walk reads every directory but looks at the inodes of directories alone, and then lists
    // what those few hold; a file another process removes meanwhile is not a failure of the walk.
    const writable = ["-type", "d", "("];
    for (const user of [USER, BUILD_USER]) writable.push("-user", user, "-o", "-group", user, "-perm", "-g=w", "-o");
    writable.push("-perm", "-o=w", ")", "-print");
    const directories = found(["/", "-xdev", "-ignore_readdir_race", ...pruned, ...writable]);
    expect(directories.length).toBeGreaterThan(0);
    const owned: string[] = [];
    // Where a umask leaves directories writable by anyone there are tens of thousands of them: they go to find in
    // batches that fit a command line.
    for (let start = 0; start < directories.length; start += 1000) {
      const batch = directories.slice(start, start + 1000);
      owned.push(
        ...found([
          ...batch,
          "-maxdepth",
          "1",
          "-ignore_readdir_race",
          ...pruned,
          "(",
          "-user",
          USER,
          "-o",
          "-user",
          BUILD_USER,
          ")",
          "-print",
        ]),
      );
    }
    expect(owned).toEqual([]);
    const exited = new Promise<number | null>((resolve) => server?.once("exit", (code) => resolve(code)));
    process.kill(servicePid(), "SIGTERM");
    expect(await exited).toBe(0);
    // The primary alone gets the signal (KillMode=mixed); it stops the release's server with a message, and
    // stops last, once that one has finished what it held.
    const lines = serverOutput.join("").trim().split("\n").slice(-4);
    const pids = lines.map((line) => (JSON.parse(line) as { pid: number }).pid);
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual([
      "SIGTERM: finishing requests in flight, then stopping",
      "stop: finishing requests in flight, then stopping",
      "stopped",
      "stopped",
    ]);
    expect([pids[0] === pids[3], pids[1] === pids[2], pids[0] === pids[1]]).toEqual([true, true, false]);
  });

  it("restores a backup with the service stopped, keeping nothing of the database it replaces", () => {
    const backup = path.join(BACKUPS, `inquiries-${new Date().toISOString().slice(0, 10)}.sqlite`);
    expect(onMachine(["cardinal-site", "inquiries", "--backup", backup]).status).toBe(0);
    fs.writeFileSync(path.join(STATE, "inquiries.sqlite-wal"), "pages of an erased inquiry");
    const restore = onMachine(["cardinal-site", "restore", backup]);
    expect([restore.status, restore.stdout]).toEqual([
      0,
      expect.stringMatching(/^Restored .* as \/var\/lib\/cardinal-site\/inquiries\.sqlite\./),
    ]);
    expect(
      fs
        .readdirSync(STATE)
        .filter((file) => file.startsWith("inquiries"))
        .sort(),
    ).toEqual(["inquiries.sqlite"]);
    expect(fs.statSync(path.join(STATE, "inquiries.sqlite"))).toMatchObject({ uid, gid, mode: 0o100600 });
    expect(onMachine(["cardinal-site", "inquiries", "--retention"]).status).toBe(0);
  });
});
