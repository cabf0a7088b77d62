import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { PassThrough, type Readable, type Writable } from "node:stream";
import lockfile from "proper-lockfile";
import { freeLoopbackPort } from "../free-port";
import { localBuildHost, socketBuildHost, spawnJob, type BuildHost, type Command, type Job } from "./build-host";
import {
  buildDirOf,
  buildLogOf,
  buildStateFile,
  readBuildState,
  writeBuildState,
  deployStatus,
  listReleases,
  liveReleaseId,
  makeLive,
  modulesStoreOf,
  newReleaseId,
  releaseDir,
  releasesToPrune,
  rememberDelivery,
  siteDirOf,
  sourceDirOf,
  writeReleaseRecord,
  type FailedStep,
  type DeployStatus,
  type ReleaseRecord,
} from "./release-store";
import type { DeploySettings } from "./settings";

/**
 * Deploys of the single server: fetch a commit of the branch into a release folder of its own, install
 * only when the lockfile changed, run the content check and `gatsby build` in child processes at a lower
 * priority and with a heap limit, then switch `live` to it in one step. A failure at any point leaves the
 * live release as it was and says why in the release's record. Every install, build and removal of files
 * runs in a child process, so the server's event loop only waits for them. One deploy at a time, across processes
 * (the server's webhook and `releases --deploy` take the same lock); requests that arrive
 * during a deploy are folded into one more deploy of the newest commit asked for.
 */

/** Whether a deploy runs, and the commit that waits for it to end. */
export type DeployActivity = Pick<DeployStatus, "running" | "queued">;

/** Whether a push was taken, and the words for GitHub's list of deliveries. */
export interface DeployAcceptance {
  readonly accepted: boolean;
  readonly message: string;
}

export interface DeploySteps {
  readonly install: Command;
  readonly check: Command;
  readonly build: Command;
  /** The release's own server, started in the build folder on a loopback port of its own before the release may go live. */
  readonly start: Command;
  /** Variables the steps get besides the build's allowed ones (the tests' stand-in build reads one). */
  readonly env?: Readonly<Record<string, string>>;
}

const defaultSteps: DeploySteps = {
  install: ["npm", "ci", "--no-audit", "--no-fund"],
  check: ["npm", "run", "check:content"],
  build: ["npm", "run", "build"],
  start: [process.execPath, "dist/server/main.js"],
};

export interface DeployerOptions {
  readonly settings: DeploySettings;
  /** An operational line, and its fields (release, commit, step, seconds) for the logger to carry. */
  readonly log: (line: string, fields?: Readonly<Record<string, unknown>>) => void;
  /** A folder whose node_modules may be reused when its lockfile is the same: the server's own checkout. */
  readonly modulesFrom?: string;
  /** Where the builds run; by default the build unit through DEPLOY_BUILD_SOCKET, else this process's user. */
  readonly buildHost?: BuildHost;
  /** Called after a release went live, in the same process; what it throws is logged, never a failure. */
  readonly onLive?: (release: ReleaseRecord) => void;
  /** Called whenever a deploy begins or ends, or a push starts or stops waiting (what `activity()` says). */
  readonly onActivity?: (activity: DeployActivity) => void;
  readonly steps?: DeploySteps;
  readonly now?: () => Date;
  /** How long the release's own server may take to answer its health check before the release fails. */
  readonly startTimeoutMs?: number;
}

const LOCK_FILE = "deploy.lock";
const MIRROR = "mirror.git";
const LOCK_POLL_MS = 1_000;
// A lock not renewed for this long is a dead process's (its holder renews it every half of this).
const LOCK_STALE_MS = 10_000;
// What a failure's reason keeps of the step's output: enough to see the error, not the whole build.
const REASON_LINES = 12;

class StepFailure extends Error {}

/** Which step a release is at, and the seconds each has taken so far. */
interface Progress {
  step: FailedStep;
  readonly seconds: Record<string, number>;
  /** What is known of the release so far: whether it builds from nothing, whether its modules were installed. */
  made: Pick<ReleaseRecord, "dependencies" | "build">;
}

// The release's own server must answer its health check within this; it starts in a second or two.
const START_TIMEOUT_MS = 60_000;
const START_POLL_MS = 250;
// After its check, the started server gets this long to stop on SIGTERM before it is killed.
const START_STOP_MS = 10_000;

/** What the build folder keeps from one build to the next; everything else is the commit's. */
const BUILD_STATE = ["node_modules", ".cache", "public", "dist"] as const;
/** What a full build starts without: the build's caches and outputs (the modules go with their lockfile). */
const BUILD_OUTPUTS = [".cache", "public", "dist"] as const;

/**
 * The inputs whose change makes a build start from nothing rather than from the caches: the lockfile (other
 * tools), Gatsby's own files (its plugins and hooks) and the content contract (the GraphQL types). A change
 * anywhere else (content, components, the server) is one Gatsby's, webpack's and tsc's caches know how to take.
 */
const fullBuildKey = (build: string): string => {
  const hash = createHash("sha256");
  const contract = path.join("src", "content-contract");
  const files = [
    "package-lock.json",
    ...fs.readdirSync(build).filter((file) => /^gatsby-[a-z]+\.tsx?$/.test(file)),
    ...(fs.existsSync(path.join(build, contract))
      ? fs
          .readdirSync(path.join(build, contract), { recursive: true, encoding: "utf8" })
          .map((file) => path.join(contract, file))
      : []),
  ].sort();
  for (const file of files) {
    const full = path.join(build, file);
    if (!fs.statSync(full, { throwIfNoEntry: false })?.isFile()) continue;
    hash.update(`${file}\0`).update(fs.readFileSync(full)).update("\0");
  }
  return hash.digest("hex");
};

/** In the build folder's node_modules: the hash of the lockfile they were installed from. */
const MODULES_MARKER = ".deploy-lockfile-sha256";
/** Where a command runs in the build folder, on the build host (`build-host.ts`). */
const BUILD_FOLDER = Symbol("the build folder");
/** In the build folder, for the start check's server: its inquiry store, never copied into a release. */
const START_CHECK_DIR = ".start-check";

// A removal has no deadline of its own; this only stops one that hangs on a dead file system.
const REMOVAL_TIMEOUT_MS = 30 * 60_000;

interface RunOptions {
  /** Where it runs: a folder of the deployer's own, or the build folder, as the build's user. */
  readonly cwd: string | typeof BUILD_FOLDER;
  /** When the whole deploy must be done (ms since the epoch). */
  readonly deadline: number;
  readonly env: NodeJS.ProcessEnv;
  /** The release's build log, which gets the command and its output; without it stdout is the result. */
  readonly logFile?: number;
  readonly lowPriority?: boolean;
  /** Its standard input (a tar stream); without it the program reads an empty one. */
  readonly input?: Readable;
  /** Where its standard output goes (a tar stream), instead of the log or the result. */
  readonly output?: Writable;
  /** Hears of the program once it runs (the start check stops its server this way). */
  readonly onStart?: (job: Job) => void;
}

/** One end of a transfer: a command and where it runs. */
interface TransferEnd {
  readonly command: Command;
  readonly cwd: string | typeof BUILD_FOLDER;
}

const pick = (prefixes: readonly string[], names: readonly string[]): NodeJS.ProcessEnv =>
  Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => names.includes(name) || prefixes.some((prefix) => name.startsWith(prefix)),
    ),
  );

/** What a system program needs of the environment. */
const SYSTEM = [
  "PATH",
  "HOME",
  "USER",
  "LANG",
  "LC_ALL",
  "TZ",
  "TMPDIR",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
];

/** git's: the system's, its own settings, and SSH's for a deploy key. */
const gitEnvironment = () => pick(["GIT_"], [...SYSTEM, "SSH_AUTH_SOCK"]);

/**
 * The build's environment: the system's, npm's, Gatsby's and the editing screen's build settings, and
 * nothing else. Never the server's secrets (CMS_GITHUB_CLIENT_SECRET, DEPLOY_WEBHOOK_SECRET, SMTP_URL,
 * a token in DEPLOY_REPOSITORY, ...): the build runs the repository's code and its dependencies'.
 */
const buildEnvironment = (): NodeJS.ProcessEnv => {
  const env = pick(["npm_config_", "NPM_CONFIG_", "GATSBY_", "CMS_"], SYSTEM);
  delete env.CMS_GITHUB_CLIENT_SECRET;
  delete env.CMS_GITHUB_CLIENT_ID;
  return env;
};

const ANSI_ESCAPE = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*[A-Za-z]`, "g");

const sha256OfFile = (file: string): string | null => {
  try {
    return createHash("sha256").update(fs.readFileSync(file)).digest("hex");
  } catch {
    return null;
  }
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The lock of the releases before proper-lockfile was a file holding its process's pid; one left by a process
 * that died in a deploy would stop every lock from being taken, since proper-lockfile's lock is a folder.
 */
const removeFileLock = (lockPath: string) => {
  if (fs.statSync(lockPath, { throwIfNoEntry: false })?.isFile()) fs.rmSync(lockPath, { force: true });
};

/**
 * Takes the deploy lock (proper-lockfile: a `deploy.lock` folder whose time the holder renews), waiting
 * while another live process holds it, or, with `wait` false, giving up at once with null. A lock its
 * holder stopped renewing (a process that died) is taken over. Returns the function that gives it back.
 */
export async function acquireDeployLock(deployDir: string, signal?: AbortSignal): Promise<() => void>;
export async function acquireDeployLock(
  deployDir: string,
  signal: AbortSignal | undefined,
  wait: false,
): Promise<(() => void) | null>;
export async function acquireDeployLock(
  deployDir: string,
  signal?: AbortSignal,
  wait = true,
): Promise<(() => void) | null> {
  removeFileLock(path.join(deployDir, LOCK_FILE));
  for (;;) {
    try {
      const lockfilePath = path.join(deployDir, LOCK_FILE);
      await lockfile.lock(deployDir, {
        lockfilePath,
        stale: LOCK_STALE_MS,
        // The default throws from a timer, which would end the server: a lock lost (its folder removed by
        // hand, the machine asleep past the stale time) only means another deploy may now start.
        onCompromised: () => undefined,
      });
      return () => {
        try {
          lockfile.unlockSync(deployDir, { lockfilePath });
        } catch (error) {
          // A lock lost meanwhile (see onCompromised) is no longer this process's to remove.
          if ((error as NodeJS.ErrnoException).code !== "ENOTACQUIRED") throw error;
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ELOCKED") throw error;
    }
    if (!wait) return null;
    if (signal?.aborted) throw new Error("stopped while waiting for another deploy");
    await sleep(LOCK_POLL_MS);
  }
}

/** The last lines of a step's output, for a failure's reason. */
class OutputTail {
  private lines: string[] = [];
  private partial = "";
  add(chunk: Buffer) {
    const text = this.partial + chunk.toString("utf8");
    const parts = text.split("\n");
    this.partial = parts.pop() ?? "";
    // Gatsby redraws its progress with escape sequences (ESC [ ... letter); the reason keeps the words.
    const clean = parts.map((line) => line.replace(ANSI_ESCAPE, "").trimEnd()).filter(Boolean);
    this.lines = [...this.lines, ...clean].slice(-REASON_LINES);
  }
  text(): string {
    return [...this.lines, this.partial.trim()].filter(Boolean).join("\n");
  }
}

export class Deployer {
  private readonly settings: DeploySettings;
  private readonly log: (line: string, fields?: Readonly<Record<string, unknown>>) => void;
  private readonly steps: DeploySteps;
  private readonly now: () => Date;
  private running: Promise<void> | null = null;
  private queued: string | null = null;
  private readonly jobs = new Set<Job>();
  private readonly stopping = new AbortController();
  private readonly buildHost: BuildHost;

  constructor(private readonly options: DeployerOptions) {
    this.settings = options.settings;
    this.log = options.log;
    this.steps = options.steps ?? defaultSteps;
    this.now = options.now ?? (() => new Date());
    const { dir, buildSocket } = this.settings;
    this.buildHost =
      options.buildHost ?? (buildSocket ? socketBuildHost(buildSocket) : localBuildHost(buildDirOf(dir)));
  }

  /**
   * Asks for a deploy of a commit of the branch (by default its head when the deploy starts). While one
   * runs, the newest request waits and the ones before it are dropped: the last push wins, none is built twice.
   * A commit whose release the primary rolled back for failing in service is not built again this way:
   * only a new push, or `releases --deploy`, deploys it.
   */
  request(commit = "HEAD"): void {
    if (this.stopping.signal.aborted) return;
    if (this.running) this.queued = commit;
    else this.running = this.loop(commit);
    this.changed();
  }

  private changed() {
    this.options.onActivity?.(this.activity());
  }

  /**
   * GitHub's push of `commit` in delivery `delivery`: taken (a deploy starts or waits), answered as taken and
   * ignored when that delivery was taken before (a replay, or GitHub's redelivery of one that succeeded), or
   * refused while the server stops, so that GitHub lists it as failed and it can be delivered again.
   */
  accept(commit: string, delivery: string | null): DeployAcceptance {
    if (this.stopping.signal.aborted) {
      return { accepted: false, message: "This server is stopping: redeliver the push once it runs again." };
    }
    if (delivery !== null && !rememberDelivery(this.settings.dir, delivery)) {
      return { accepted: true, message: `ignored: delivery ${delivery} was received before` };
    }
    this.request(commit);
    return { accepted: true, message: "deploying" };
  }

  /** Whether a deploy runs, and what waits: from memory, for questions asked often. */
  activity(): DeployActivity {
    return { running: this.running !== null, queued: this.queued };
  }

  /** Resolves when no deploy runs or waits. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  status(): DeployStatus {
    return deployStatus(this.settings.dir, this.running !== null, this.queued);
  }

  /** Ends the build under way (its release fails as interrupted) and drops what waits. */
  async stop(): Promise<void> {
    this.stopping.abort();
    this.queued = null;
    for (const job of this.jobs) job.signal("SIGKILL");
    await this.idle();
  }

  private async loop(first: string): Promise<void> {
    let next: string | null = first;
    try {
      while (next !== null && !this.stopping.signal.aborted) {
        await this.deployOnce(next, { againAfterService: false }).catch((error: unknown) =>
          this.log(`deploy: ${(error as Error).message}`, { err: error }),
        );
        next = this.queued;
        this.queued = null;
        this.changed();
      }
    } finally {
      this.running = null;
      this.changed();
    }
  }

  /**
   * One deploy, from fetch to switch; resolves with the release (or null when the commit was already live, or
   * failed in service and `againAfterService` is false, as for a push).
   */
  async deployOnce(commitWanted = "HEAD", { againAfterService = true } = {}): Promise<ReleaseRecord | null> {
    const { dir } = this.settings;
    fs.mkdirSync(dir, { recursive: true });
    const release = await acquireDeployLock(dir, this.stopping.signal);
    // One deadline for the whole deploy (DEPLOY_BUILD_TIMEOUT_MINUTES), from fetch to switch.
    const deadline = Date.now() + this.settings.buildTimeoutMs;
    try {
      await this.finishEarlierRuns();
      const commit = await this.fetch(commitWanted, deadline);
      const liveId = liveReleaseId(dir);
      const live = listReleases(dir).find((candidate) => candidate.id === liveId);
      if (live?.commit === commit) {
        this.log(`deploy: ${commit.slice(0, 12)} is already live`, { commit });
        return null;
      }
      const newest = listReleases(dir).find((candidate) => candidate.commit === commit);
      if (!againAfterService && newest?.failedStep === "service") {
        this.log(
          `deploy: ${commit.slice(0, 12)} was rolled back for failing in service; it is deployed again only by a new push or releases --deploy`,
          { commit, release: newest.id },
        );
        return null;
      }
      return await this.build(commit, deadline);
    } finally {
      release();
    }
  }

  /**
   * At the server's start: a deploy that the process before it was running when it died (a power loss, a
   * kill) is recorded as failed at once its lock is free, rather than listed as building until the next push.
   */
  async recoverInterrupted(): Promise<void> {
    if (!listReleases(this.settings.dir).some((release) => release.state === "building")) return;
    const release = await acquireDeployLock(this.settings.dir, this.stopping.signal);
    try {
      await this.finishEarlierRuns();
    } finally {
      release();
    }
  }

  /**
   * What an earlier process left unfinished: a deploy that was under way when it died is marked failed, so it
   * is never taken for one running, and a failed release's files that a stop kept it from removing go now.
   */
  private async finishEarlierRuns() {
    for (const stale of listReleases(this.settings.dir).filter((candidate) => candidate.state === "building")) {
      writeReleaseRecord(this.settings.dir, {
        ...stale,
        state: "failed",
        finishedAt: this.now().toISOString(),
        failedStep: "interrupted",
        reason: "interrupted: the process running this deploy ended before it finished",
      });
    }
    const leftOver = listReleases(this.settings.dir)
      .filter((release) => release.state === "failed")
      .map((release) => siteDirOf(this.settings.dir, release.id))
      .filter((site) => fs.existsSync(site));
    await this.remove(leftOver);
  }

  /**
   * Removes folders (a failed release's site, pruned releases) with `rm -rf` in a child process at idle
   * priority: a release holds a hundred thousand files, and removing them inside the server would stall
   * every request meanwhile.
   */
  private async remove(folders: readonly string[]): Promise<void> {
    if (folders.length === 0) return;
    await this.run("removing files", ["rm", "-rf", "--", ...folders], {
      cwd: this.settings.dir,
      deadline: Date.now() + REMOVAL_TIMEOUT_MS,
      env: { PATH: process.env.PATH },
      lowPriority: true,
    });
  }

  /**
   * Runs one program to its end and resolves with what it printed on stdout; a failure, the deploy's
   * deadline or a stop rejects with the step's name, how it ended and the end of its output. Every program
   * leads a process group of its own, so a deadline or a stop ends its whole tree.
   */
  private run(name: string, command: Command, options: RunOptions): Promise<string> {
    if (this.stopping.signal.aborted)
      return Promise.reject(new StepFailure(`${name} was not started: the server is stopping`));
    // chrt's SCHED_IDLE runs the step, and its children (Gatsby's workers) with it, only on CPU time the
    // site leaves unused; nice(1) orders it among other such work. With nice 10 alone, GET / p95 during a
    // build was 4x its idle figure on 2 cores (bench/deploy.ts).
    const argv: Command = options.lowPriority
      ? ["chrt", "--idle", "0", "nice", "-n", String(this.settings.buildNice), ...command]
      : command;
    if (options.logFile !== undefined) fs.writeSync(options.logFile, `\n$ ${command.join(" ")}\n`);
    const job =
      options.cwd === BUILD_FOLDER ? this.buildHost.start(argv, options.env) : spawnJob(argv, options.cwd, options.env);
    this.jobs.add(job);
    options.onStart?.(job);
    if (options.input) options.input.pipe(job.stdin);
    else job.stdin.end();
    const tail = new OutputTail();
    const out: Buffer[] = [];
    const take = (chunk: Buffer) => {
      // A log that cannot be written (a full disk) loses its lines, never the process: the tail keeps the reason.
      try {
        if (options.logFile !== undefined) fs.writeSync(options.logFile, chunk);
      } catch {
        // The step fails by itself, or finishes without its log.
      }
      tail.add(chunk);
    };
    if (options.output) job.stdout.pipe(options.output);
    else job.stdout.on("data", (chunk: Buffer) => (options.logFile === undefined ? out.push(chunk) : take(chunk)));
    job.stderr.on("data", take);
    let timedOut = false;
    const timer = setTimeout(
      () => {
        timedOut = true;
        job.signal("SIGKILL");
      },
      Math.max(0, options.deadline - Date.now()),
    );
    return job.ended.then(
      ({ code, signal }) => {
        clearTimeout(timer);
        this.jobs.delete(job);
        if (code === 0) return Buffer.concat(out).toString("utf8").trim();
        const how = this.stopping.signal.aborted
          ? "was stopped with the server"
          : timedOut
            ? "ran past the deploy's time limit (DEPLOY_BUILD_TIMEOUT_MINUTES) and was stopped"
            : signal
              ? `was killed (${signal})`
              : `failed (exit code ${code})`;
        throw new StepFailure(`${name} ${how}\n${tail.text()}`);
      },
      (error: unknown) => {
        clearTimeout(timer);
        this.jobs.delete(job);
        throw new StepFailure(`${name} could not start: ${(error as Error).message}`);
      },
    );
  }

  /**
   * One program's standard output into another's input (a tar stream between the build folder and the
   * deployer's folders); if either fails, the other is killed and the transfer fails with the first reason.
   */
  private async transfer(name: string, from: TransferEnd, to: TransferEnd, deadline: number): Promise<void> {
    const pipe = new PassThrough();
    const started: Job[] = [];
    const onStart = (job: Job) => started.push(job);
    const env = { PATH: process.env.PATH };
    const ends = [
      this.run(name, to.command, { cwd: to.cwd, deadline, env, input: pipe, onStart }),
      this.run(name, from.command, { cwd: from.cwd, deadline, env, output: pipe, onStart }),
    ];
    try {
      await Promise.all(
        ends.map((end) =>
          end.catch((error: unknown) => {
            for (const job of started) job.signal("SIGKILL");
            throw error;
          }),
        ),
      );
    } finally {
      await Promise.allSettled(ends);
    }
  }

  private git(args: readonly string[], cwd: string, deadline: number): Promise<string> {
    // git's own environment only, and never a prompt for a password it would wait on forever.
    return this.run(`git ${args[0] ?? ""}`, ["git", ...args], {
      cwd,
      deadline,
      env: { ...gitEnvironment(), GIT_TERMINAL_PROMPT: "0" },
    });
  }

  /** Fetches the branch into the mirror; returns the full hash of the commit to deploy. */
  private async fetch(commitWanted: string, deadline: number): Promise<string> {
    const { dir, repository, branch } = this.settings;
    if (!repository) throw new Error("DEPLOY_REPOSITORY is not set: there is nothing to fetch from");
    const mirror = path.join(dir, MIRROR);
    if (!fs.existsSync(path.join(mirror, "HEAD"))) {
      fs.mkdirSync(mirror, { recursive: true });
      await this.git(["init", "--bare", "--quiet"], mirror, deadline);
    }
    await this.git(
      ["fetch", "--quiet", "--no-tags", "--force", "--", repository, `+refs/heads/${branch}:refs/heads/${branch}`],
      mirror,
      deadline,
    );
    const head = await this.git(["rev-parse", "--verify", `refs/heads/${branch}^{commit}`], mirror, deadline);
    // Always the branch's head as fetched now, never the commit a delivery names: GitHub does not promise
    // deliveries in order, and a redelivered or replayed push would otherwise put an older commit live.
    if (commitWanted !== "HEAD" && commitWanted !== head) {
      this.log(
        `deploy: ${commitWanted.slice(0, 12)} was pushed; the branch is now at ${head.slice(0, 12)}, which is deployed`,
      );
    }
    return head;
  }

  /** Runs one step of the build in the build folder, at idle priority, its output in the build log. */
  private runStep(name: string, command: Command, logFile: number, deadline: number): Promise<void> {
    return this.run(name, command, {
      cwd: BUILD_FOLDER,
      deadline,
      logFile,
      lowPriority: true,
      env: {
        ...buildEnvironment(),
        ...this.steps.env,
        // Each of the build's Node processes gets this heap; past it the build fails, not the machine.
        NODE_OPTIONS: `--max-old-space-size=${this.settings.buildMemoryMb}`,
        GATSBY_TELEMETRY_DISABLED: "1",
        // Plain output for the log.
        CI: "true",
      },
    }).then(() => undefined);
  }

  /**
   * The source folder at `commit`: a work tree of the mirror that only the deployer writes, checked out over
   * the commit before (so unchanged files keep their times, which the build's caches compare) and cleaned of
   * every file the commit does not have.
   */
  private async checkOut(commit: string, deadline: number): Promise<string> {
    const { dir } = this.settings;
    const source = sourceDirOf(dir);
    const mirror = path.join(dir, MIRROR);
    if (!fs.existsSync(path.join(source, ".git"))) {
      await this.remove([source]);
      await this.git(["worktree", "prune"], mirror, deadline);
      await this.git(["worktree", "add", "--quiet", "--detach", "--force", source, commit], mirror, deadline);
      return source;
    }
    await this.git(["checkout", "--quiet", "--detach", "--force", commit], source, deadline);
    await this.git(["clean", "-ffdxq"], source, deadline);
    return source;
  }

  /**
   * The build folder at the commit: everything but the build's own state (its modules, Gatsby's .cache,
   * public/ and dist/) removed, then the source folder's files copied in as a tar stream: the build's user can
   * read nothing of the deployer's, and the deployer writes nothing of the build's.
   * The files take the time of this copy, not their commit's (`--touch`): gatsby-source-filesystem reuses a
   * cached hash for a file whose modification time and inode match an earlier file's, and each copy frees the
   * inodes of the files it replaces for other files, which a checkout had given the same time; a file took
   * another's hash, and its images were processed again. No earlier file had this copy's time, so every hash
   * is computed afresh from the file's content, and unchanged images keep their processed copies; webpack and
   * tsc judge a file changed by its content too.
   */
  private async sendSource(source: string, deadline: number): Promise<void> {
    const kept = BUILD_STATE.flatMap((name) => ["!", "-name", name]);
    await this.transfer(
      "copying the commit into the build folder",
      { command: ["tar", "--exclude=./.git", "-cf", "-", "."], cwd: source },
      {
        command: [
          "sh",
          "-c",
          'find . -mindepth 1 -maxdepth 1 "$@" -exec rm -rf -- {} + && exec tar --touch -xf -',
          "sh",
          ...kept,
        ],
        cwd: BUILD_FOLDER,
      },
      deadline,
    );
  }

  /** A command in the build folder, its output the answer (a marker's text); it rejects where the command fails. */
  private inBuild(name: string, command: Command, deadline: number): Promise<string> {
    return this.run(name, command, { cwd: BUILD_FOLDER, deadline, env: { PATH: process.env.PATH } });
  }

  /**
   * Modules for the build folder: kept when its lockfile is the one they were installed from, else copied
   * from the server's own checkout when its lockfile is the same (hard links where the build's user may make
   * them, else a copy), else installed.
   */
  private async prepareModules(
    source: string,
    lockfileHash: string | null,
    logFile: number,
    deadline: number,
  ): Promise<"reused" | "installed"> {
    const marker = path.join("node_modules", MODULES_MARKER);
    const installedFrom = await this.inBuild(
      "reading the modules' lockfile hash",
      // A hash is 64 characters: a longer marker (a build's doing) is not read whole into this process.
      ["sh", "-c", `head -c 64 ${marker} 2>/dev/null || true`],
      deadline,
    );
    if (lockfileHash !== null && installedFrom === lockfileHash) return "reused";
    await this.inBuild("removing the modules", ["rm", "-rf", "node_modules"], deadline);
    const installed = (await this.copyCheckoutModules(source, lockfileHash, deadline)) ? "reused" : "installed";
    if (installed === "installed") await this.runStep("npm ci", this.steps.install, logFile, deadline);
    if (lockfileHash !== null) {
      // Written beside, then renamed: a marker is never half a hash. A project without dependencies has no
      // node_modules after npm ci.
      await this.inBuild(
        "marking the modules",
        [
          "sh",
          "-c",
          `mkdir -p node_modules && printf %s "$0" > ${marker}.tmp && mv ${marker}.tmp ${marker}`,
          lockfileHash,
        ],
        deadline,
      );
    }
    return installed;
  }

  /** The server's own checkout's modules into the build folder, when its lockfile is the one given. */
  private async copyCheckoutModules(source: string, lockfileHash: string | null, deadline: number): Promise<boolean> {
    const from = this.options.modulesFrom;
    if (
      lockfileHash === null ||
      from === undefined ||
      sha256OfFile(path.join(from, "package-lock.json")) !== lockfileHash ||
      sha256OfFile(path.join(source, "package-lock.json")) !== lockfileHash ||
      !fs.existsSync(path.join(from, "node_modules"))
    ) {
      return false;
    }
    for (const [name, command] of [
      ["linking node_modules", ["cp", "-al", path.join(from, "node_modules"), "node_modules"]],
      ["copying node_modules", ["cp", "-a", path.join(from, "node_modules"), "node_modules"]],
    ] as const) {
      try {
        await this.inBuild(name, command, deadline);
        // Gatsby and webpack rewrite files in here in place; a hard-linked copy would change the checkout's.
        await this.inBuild(
          "removing the modules' caches",
          ["rm", "-rf", path.join("node_modules", ".cache")],
          deadline,
        );
        return true;
      } catch (error) {
        if (this.stopping.signal.aborted) throw error;
        this.log(`deploy: ${name} failed: ${(error as Error).message.split("\n")[1] ?? ""}`);
        await this.inBuild("removing the modules", ["rm", "-rf", "node_modules"], deadline);
      }
    }
    return false;
  }

  /**
   * The release's site folder, from the build folder: every file but the build's caches, as the deployer's
   * own copy that no build can change. The modules are the store's for the release's lockfile (copied from
   * the build once per lockfile), linked rather than copied: a release never changes them.
   */
  private async copyOut(site: string, lockfileHash: string | null, deadline: number): Promise<void> {
    const excluded = [".git", ".cache", "node_modules", START_CHECK_DIR].map((name) => `--exclude=./${name}`);
    await this.transfer(
      "copying the build",
      { command: ["tar", ...excluded, "-cf", "-", "."], cwd: BUILD_FOLDER },
      { command: ["tar", "-xf", "-"], cwd: site },
      deadline,
    );
    if (lockfileHash === null) {
      await this.copyModules(site, deadline);
      return;
    }
    const store = path.join(modulesStoreOf(this.settings.dir), lockfileHash);
    if (!fs.existsSync(store)) {
      fs.mkdirSync(modulesStoreOf(this.settings.dir), { recursive: true });
      const partial = fs.mkdtempSync(`${store}.partial-`);
      await this.copyModules(partial, deadline);
      fs.renameSync(partial, store);
    }
    fs.symlinkSync(path.relative(site, path.join(store, "node_modules")), path.join(site, "node_modules"));
  }

  /** The build folder's modules, if it has any, into `folder` of the deployer's, without the build's caches in them. */
  private copyModules(folder: string, deadline: number): Promise<void> {
    return this.transfer(
      "copying node_modules",
      {
        command: [
          "sh",
          "-c",
          "if [ -d node_modules ]; then exec tar --exclude=node_modules/.cache -cf - node_modules; else exec tar -cf - -T /dev/null; fi",
        ],
        cwd: BUILD_FOLDER,
      },
      { command: ["tar", "-xf", "-"], cwd: folder },
      deadline,
    );
  }

  /**
   * The release's own server, started in the build folder as the build's user, as it will run but on a
   * loopback port of its own, with an empty inquiry store of its own and none of the server's settings (its
   * secrets least of all): it must answer /healthz and the home page with 200 within the start timeout. Then
   * it is stopped. A release whose server does not start never goes live; one that starts but fails with the
   * server's own settings is rolled back in service.
   */
  private async startCheck(logFile: number, deadline: number): Promise<void> {
    const port = await freeLoopbackPort();
    await this.inBuild("clearing the start check's store", ["rm", "-rf", START_CHECK_DIR], deadline);
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      NODE_ENV: "production",
      ...this.steps.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      INQUIRY_DATA_DIR: START_CHECK_DIR,
      INQUIRY_OUTBOX: "sqlite",
    };
    const startDeadline = Math.min(deadline, Date.now() + (this.options.startTimeoutMs ?? START_TIMEOUT_MS));
    // Set from the program's callbacks: whether the check is over, and how the server ended before it was.
    const state: { job: Job | null; checked: boolean; over: boolean; ended: Error | null } = {
      job: null,
      checked: false,
      over: false,
      ended: null,
    };
    const server = this.run("the release's server", this.steps.start, {
      cwd: BUILD_FOLDER,
      // Its own deadline ends it only if it outlives the check and its stop.
      deadline: startDeadline + START_STOP_MS,
      env,
      logFile,
      onStart: (started) => {
        state.job = started;
      },
    });
    // Until it answers: the server ending first (a crash at start) is the reason, not the time-out.
    const exited = server.then(
      () => {
        state.over = true;
        if (!state.checked)
          state.ended ??= new StepFailure("the release's server ended by itself before it answered its health check");
      },
      (error: unknown) => {
        state.over = true;
        if (!state.checked) state.ended ??= error as Error;
      },
    );
    try {
      await this.awaitAnswers(port, startDeadline, state);
    } finally {
      // Stopped as systemd stops a server, then killed with its whole group if it does not end in time.
      state.checked = true;
      const started = state.job;
      if (started && !state.over) {
        started.signal("SIGTERM");
        const kill = setTimeout(() => started.signal("SIGKILL"), START_STOP_MS);
        await exited;
        clearTimeout(kill);
      } else {
        await exited;
      }
      await this.inBuild("clearing the start check's store", ["rm", "-rf", START_CHECK_DIR], deadline).catch(
        () => undefined,
      );
    }
  }

  /** Until the server on `port` answers /healthz, then /, with 200; what it answers otherwise, or its end, fails it. */
  private async awaitAnswers(port: number, deadline: number, state: { readonly ended: Error | null }): Promise<void> {
    for (const target of ["/healthz", "/"]) {
      for (;;) {
        if (state.ended) throw state.ended;
        if (Date.now() > deadline) {
          throw new StepFailure(
            `the release's server did not answer ${target} with 200 within ${Math.round((this.options.startTimeoutMs ?? START_TIMEOUT_MS) / 1000)} s`,
          );
        }
        const status = await fetch(`http://127.0.0.1:${port}${target}`, { signal: AbortSignal.timeout(5_000) }).then(
          async (answer) => {
            // The status is the answer; the body (the build's server's, of any size) is not read.
            await answer.body?.cancel();
            return answer.status;
          },
          () => null,
        );
        if (status === 200) break;
        if (status !== null && target === "/") throw new StepFailure(`the release's server answered / with ${status}`);
        // 503: its store not writable yet; anything else is an answer it should not give.
        if (status !== null && status !== 503)
          throw new StepFailure(`the release's server answered /healthz with ${status}`);
        await sleep(START_POLL_MS);
      }
    }
  }

  private async build(commit: string, deadline: number): Promise<ReleaseRecord> {
    const { dir, branch } = this.settings;
    const started = this.now();
    const id = newReleaseId(dir, commit, started);
    const site = siteDirOf(dir, id);
    fs.mkdirSync(site, { recursive: true });
    const record: ReleaseRecord = { id, commit, branch, startedAt: started.toISOString(), state: "building" };
    writeReleaseRecord(dir, record);
    this.log(`deploy: building ${commit.slice(0, 12)} as release ${id}`, { release: id, commit });
    const progress: Progress = { step: "fetch", seconds: {}, made: {} };
    const logFile = fs.openSync(buildLogOf(dir, id), "a");
    let made: Pick<ReleaseRecord, "dependencies" | "build">;
    try {
      made = await this.makeRelease(commit, site, { logFile, deadline, progress });
    } catch (error) {
      fs.closeSync(logFile);
      return this.fail(record, progress, error);
    }
    fs.closeSync(logFile);
    return this.switchTo({
      ...record,
      ...made,
      state: "good",
      finishedAt: this.now().toISOString(),
      seconds: progress.seconds,
    });
  }

  /** Runs `work` as the release's step `name`, adding the seconds it took to the step's. */
  private async timed<T>(progress: Progress, name: FailedStep, work: () => Promise<T>): Promise<T> {
    progress.step = name;
    const began = performance.now();
    try {
      return await work();
    } finally {
      const seconds = (progress.seconds[name] ?? 0) + (performance.now() - began) / 1000;
      progress.seconds[name] = Math.round(seconds * 10) / 10;
    }
  }

  /**
   * Every step of a release, from the checkout of its commit to its own server's start on a port of its own;
   * throws at the first that fails, the progress saying which.
   */
  private async makeRelease(
    commit: string,
    site: string,
    { logFile, deadline, progress }: { logFile: number; deadline: number; progress: Progress },
  ): Promise<Pick<ReleaseRecord, "dependencies" | "build">> {
    const { dir } = this.settings;
    const source = await this.timed(progress, "fetch", async () => {
      const checkedOut = await this.checkOut(commit, deadline);
      await this.sendSource(checkedOut, deadline);
      return checkedOut;
    });
    const state = readBuildState(dir);
    // Where it builds is part of the key: another build folder (the build unit's, or this user's) has none of
    // these caches, and a build there starts from nothing.
    const key = createHash("sha256")
      .update(`${fullBuildKey(source)}\0${this.buildHost.description}`)
      .digest("hex");
    const incremental = state !== null && state.key === key;
    progress.made = { build: incremental ? "incremental" : "full" };
    if (!incremental) {
      fs.rmSync(buildStateFile(dir), { force: true });
      await this.inBuild("removing the build's caches", ["rm", "-rf", ...BUILD_OUTPUTS], deadline);
    }
    const lockfileHash = sha256OfFile(path.join(source, "package-lock.json"));
    const dependencies = await this.timed(progress, "install", () =>
      this.prepareModules(source, lockfileHash, logFile, deadline),
    );
    progress.made = { ...progress.made, dependencies };
    await this.timed(progress, "check", () => this.runStep("the content check", this.steps.check, logFile, deadline));
    // From here until the build has succeeded, the caches' state is unknown: a failed or cut-short build
    // makes the next one full. A failed content check leaves them as they were.
    fs.rmSync(buildStateFile(dir), { force: true });
    await this.timed(progress, "build", () => this.runStep("gatsby build", this.steps.build, logFile, deadline));
    writeBuildState(dir, { key, commit });
    await this.timed(progress, "verify", async () => {
      await this.copyOut(site, lockfileHash, deadline);
      for (const file of ["index.html", "404.html", "_headers"]) {
        if (!fs.existsSync(path.join(site, "public", file))) throw new StepFailure(`the build wrote no public/${file}`);
      }
    });
    await this.timed(progress, "start", () => this.startCheck(logFile, deadline));
    return { dependencies, build: incremental ? "incremental" : "full" };
  }

  /** Records why a release failed and removes its files; the live release is untouched. */
  private async fail(
    building: ReleaseRecord,
    { step, seconds, made }: Progress,
    error: unknown,
  ): Promise<ReleaseRecord> {
    const { dir } = this.settings;
    const { id, commit } = building;
    const reason = error instanceof StepFailure ? error.message : `unexpected: ${(error as Error).message}`;
    const record: ReleaseRecord = {
      ...building,
      ...made,
      state: "failed",
      finishedAt: this.now().toISOString(),
      failedStep: step,
      reason,
      seconds,
    };
    this.log(
      `deploy: ${commit.slice(0, 12)} failed at its ${step} step, the live site is unchanged: ` +
        `${reason.split("\n")[0] ?? ""} (${buildLogOf(dir, id)})`,
      { release: id, commit, step, seconds, buildLog: buildLogOf(dir, id) },
    );
    // What a failed build leaves behind is only its record and its log. A record that cannot be written (a
    // full disk) still leaves the folder removed, which frees the space.
    try {
      writeReleaseRecord(dir, record);
    } finally {
      await this.remove([siteDirOf(dir, id)]).catch((removal: unknown) =>
        this.log(`deploy: could not remove the failed release's files: ${(removal as Error).message}`),
      );
    }
    await this.prune(null);
    return record;
  }

  /** Records a good release and makes it live; past the switch nothing fails it. */
  private async switchTo(record: ReleaseRecord): Promise<ReleaseRecord> {
    const { dir } = this.settings;
    const { id, commit, seconds = {} } = record;
    writeReleaseRecord(dir, record);
    const previous = liveReleaseId(dir);
    makeLive(dir, id);
    this.log(
      `deploy: ${commit.slice(0, 12)} is live (release ${id}, ${record.build ?? "full"} build, ${Object.entries(seconds)
        .map(([name, s]) => `${name} ${s} s`)
        .join(", ")})`,
      { release: id, commit, build: record.build, dependencies: record.dependencies, seconds },
    );
    try {
      this.options.onLive?.(record);
    } catch (error) {
      this.log(`deploy: after the switch: ${(error as Error).message}`);
    }
    await this.prune(previous);
    return record;
  }

  /** Removes releases rollback no longer needs; a failure to remove one is logged, never a failed deploy. */
  private async prune(previousLive: string | null) {
    try {
      const removed = releasesToPrune(this.settings.dir, this.settings.keep, previousLive);
      if (removed.length > 0) {
        await this.remove(removed.map((id) => releaseDir(this.settings.dir, id)));
        this.log(`deploy: removed ${removed.length} older release${removed.length === 1 ? "" : "s"}`, { removed });
      }
      await this.remove(this.unusedModules());
    } catch (error) {
      this.log(`deploy: could not remove an older release: ${(error as Error).message}`);
    }
  }

  /** The store's modules no release links to any more, and copies a deploy cut short left partial. */
  private unusedModules(): string[] {
    const { dir } = this.settings;
    const store = modulesStoreOf(dir);
    if (!fs.existsSync(store)) return [];
    const linked = new Set(
      listReleases(dir).flatMap((release) => {
        try {
          return [
            path.resolve(
              siteDirOf(dir, release.id),
              fs.readlinkSync(path.join(siteDirOf(dir, release.id), "node_modules")),
            ),
          ];
        } catch {
          return [];
        }
      }),
    );
    return fs
      .readdirSync(store)
      .map((entry) => path.join(store, entry))
      .filter((folder) => !linked.has(path.join(folder, "node_modules")));
  }
}
