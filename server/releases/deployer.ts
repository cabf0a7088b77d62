import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import lockfile from "proper-lockfile";
import {
  buildLogOf,
  listReleases,
  liveReleaseId,
  makeLive,
  newReleaseId,
  publicDirOf,
  releaseDir,
  releasesToPrune,
  siteDirOf,
  writeReleaseRecord,
  type FailedStep,
  type ListedRelease,
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

/** A step's command: the program and its arguments, run in the release's site folder. */
export type Command = readonly [string, ...string[]];

export interface DeploySteps {
  readonly install: Command;
  readonly check: Command;
  readonly build: Command;
  /** Variables the steps get besides the build's allowed ones (the tests' stand-in build reads one). */
  readonly env?: Readonly<Record<string, string>>;
}

export const defaultSteps: DeploySteps = {
  install: ["npm", "ci", "--no-audit", "--no-fund"],
  check: ["npm", "run", "check:content"],
  build: ["npm", "run", "build"],
};

export interface DeployerOptions {
  readonly settings: DeploySettings;
  readonly log: (line: string) => void;
  /** A folder whose node_modules may be reused when its lockfile is the same: the server's own checkout. */
  readonly modulesFrom?: string;
  /**
   * Reads a built release as the server will serve it, throwing when it cannot (a headers file it cannot
   * parse, no 404 page): such a release fails before it goes live.
   */
  readonly verify?: (releaseId: string) => void;
  /** Called after a release went live, in the same process; what it throws is logged, never a failure. */
  readonly onLive?: (release: ReleaseRecord) => void;
  readonly steps?: DeploySteps;
  readonly now?: () => Date;
}

export interface DeployStatus {
  readonly running: boolean;
  /** A commit waiting for the deploy under way to end (the newest asked for). */
  readonly queued: string | null;
  readonly live: ListedRelease | null;
  /** The newest deploy, live or not: its state, and why it failed. */
  readonly last: ListedRelease | null;
}

const LOCK_FILE = "deploy.lock";
const MIRROR = "mirror.git";
const LOCK_POLL_MS = 1_000;
// A lock not renewed for this long is a dead process's (its holder renews it every half of this).
const LOCK_STALE_MS = 10_000;
// What a failure's reason keeps of the step's output: enough to see the error, not the whole build.
const REASON_LINES = 12;

class StepFailure extends Error {}

// A removal has no deadline of its own; this only stops one that hangs on a dead file system.
const REMOVAL_TIMEOUT_MS = 30 * 60_000;

interface RunOptions {
  readonly cwd: string;
  /** When the whole deploy must be done (ms since the epoch). */
  readonly deadline: number;
  readonly env: NodeJS.ProcessEnv;
  /** The release's build log, which gets the command and its output; without it stdout is the result. */
  readonly logFile?: number;
  readonly lowPriority?: boolean;
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
  private readonly log: (line: string) => void;
  private readonly steps: DeploySteps;
  private readonly now: () => Date;
  private running: Promise<void> | null = null;
  private queued: string | null = null;
  private readonly children = new Set<ReturnType<typeof spawn>>();
  private readonly stopping = new AbortController();

  constructor(private readonly options: DeployerOptions) {
    this.settings = options.settings;
    this.log = options.log;
    this.steps = options.steps ?? defaultSteps;
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Asks for a deploy of a commit of the branch (by default its head when the deploy starts). While one
   * runs, the newest request waits and the ones before it are dropped: the last push wins, none is built twice.
   */
  request(commit = "HEAD"): void {
    if (this.stopping.signal.aborted) return;
    if (this.running) {
      this.queued = commit;
      return;
    }
    this.running = this.loop(commit);
  }

  /** Resolves when no deploy runs or waits. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  status(): DeployStatus {
    const releases = listReleases(this.settings.dir);
    return {
      running: this.running !== null,
      queued: this.queued,
      live: releases.find((release) => release.live) ?? null,
      last: releases[0] ?? null,
    };
  }

  /** Ends the build under way (its release fails as interrupted) and drops what waits. */
  async stop(): Promise<void> {
    this.stopping.abort();
    this.queued = null;
    for (const child of this.children) if (child.pid) this.killGroup(child.pid);
    await this.idle();
  }

  private async loop(first: string): Promise<void> {
    let next: string | null = first;
    try {
      while (next !== null && !this.stopping.signal.aborted) {
        await this.deployOnce(next).catch((error: unknown) => this.log(`deploy: ${(error as Error).message}`));
        next = this.queued;
        this.queued = null;
      }
    } finally {
      this.running = null;
    }
  }

  /** One deploy, from fetch to switch; resolves with the release (or null when the commit was already live). */
  async deployOnce(commitWanted = "HEAD"): Promise<ReleaseRecord | null> {
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
        this.log(`deploy: ${commit.slice(0, 12)} is already live`);
        return null;
      }
      return await this.build(commit, deadline);
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
   * deadline or a stop rejects with the step's name, how it ended and the end of its output. Every child
   * leads a process group of its own (detached), so a deadline or a stop ends its whole tree.
   */
  private run(name: string, command: Command, options: RunOptions): Promise<string> {
    if (this.stopping.signal.aborted)
      return Promise.reject(new StepFailure(`${name} was not started: the server is stopping`));
    const [program, ...args] = command;
    // chrt's SCHED_IDLE runs the step, and its children (Gatsby's workers) with it, only on CPU time the
    // site leaves unused; nice(1) orders it among other such work. With nice 10 alone, GET / p95 during a
    // build was 4x its idle figure on 2 cores (bench/deploy.ts).
    const [file, ...argv] = options.lowPriority
      ? ["chrt", "--idle", "0", "nice", "-n", String(this.settings.buildNice), program, ...args]
      : [program, ...args];
    if (options.logFile !== undefined) fs.writeSync(options.logFile, `\n$ ${command.join(" ")}\n`);
    return new Promise((resolve, reject) => {
      const child = spawn(file, argv, {
        cwd: options.cwd,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        env: options.env,
      });
      this.children.add(child);
      const tail = new OutputTail();
      const out: Buffer[] = [];
      const take = (chunk: Buffer) => {
        if (options.logFile !== undefined) fs.writeSync(options.logFile, chunk);
        tail.add(chunk);
      };
      child.stdout.on("data", (chunk: Buffer) => (options.logFile === undefined ? out.push(chunk) : take(chunk)));
      child.stderr.on("data", take);
      let timedOut = false;
      const timer = setTimeout(
        () => {
          timedOut = true;
          if (child.pid) this.killGroup(child.pid);
        },
        Math.max(0, options.deadline - Date.now()),
      );
      const settle = () => {
        clearTimeout(timer);
        this.children.delete(child);
      };
      child.once("error", (error) => {
        settle();
        reject(new StepFailure(`${name} could not start: ${error.message}`));
      });
      child.once("close", (code, signal) => {
        settle();
        if (code === 0) {
          resolve(Buffer.concat(out).toString("utf8").trim());
          return;
        }
        const how = this.stopping.signal.aborted
          ? "was stopped with the server"
          : timedOut
            ? "ran past the deploy's time limit (DEPLOY_BUILD_TIMEOUT_MINUTES) and was stopped"
            : signal
              ? `was killed (${signal})`
              : `failed (exit code ${code})`;
        reject(new StepFailure(`${name} ${how}\n${tail.text()}`));
      });
    });
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

  private killGroup(pid: number) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }

  /** Runs one step of the build in the release's site folder, at idle priority, its output in the build log. */
  private runStep(name: string, command: Command, cwd: string, logFile: number, deadline: number): Promise<void> {
    return this.run(name, command, {
      cwd,
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

  /** The node_modules of a release (or of the server's own folder) whose lockfile is this one's. */
  private reusableModules(lockfileHash: string | null): string | null {
    if (!lockfileHash) return null;
    const candidates = listReleases(this.settings.dir)
      .filter((release) => release.state === "good")
      .map((release) => siteDirOf(this.settings.dir, release.id));
    if (this.options.modulesFrom) candidates.push(this.options.modulesFrom);
    return (
      candidates.find(
        (site) =>
          sha256OfFile(path.join(site, "package-lock.json")) === lockfileHash &&
          fs.existsSync(path.join(site, "node_modules")),
      ) ?? null
    );
  }

  /**
   * Links the modules in (hard links: seconds, and no second copy on disk); the build cache stays behind.
   * Where hard links cannot be made (the server's checkout is another mount in the unit's sandbox, or
   * another file system) they are copied instead; false where neither works: the caller installs.
   */
  private async linkModules(fromSite: string, toSite: string, deadline: number): Promise<boolean> {
    const target = path.join(toSite, "node_modules");
    const source = path.join(fromSite, "node_modules");
    const ways = [
      ["linking node_modules", ["cp", "-al", source, target]],
      ["copying node_modules", ["cp", "-a", source, target]],
    ] as const;
    for (const [name, command] of ways) {
      try {
        await this.run(name, command, { cwd: toSite, deadline, env: { PATH: process.env.PATH } });
        // Gatsby and webpack rewrite files in here in place; a hard-linked copy would change the other release's.
        await this.remove([path.join(target, ".cache")]);
        return true;
      } catch (error) {
        if (this.stopping.signal.aborted) throw error;
        this.log(`deploy: ${name} failed: ${(error as Error).message.split("\n")[1] ?? ""}`);
        await this.remove([target]);
      }
    }
    this.log("deploy: installing the modules instead");
    return false;
  }

  /** The commit's files into the release's site folder, through a tar file (no pipe between two processes to mind). */
  private async extract(commit: string, site: string, deadline: number): Promise<void> {
    const archive = path.join(path.dirname(site), "source.tar");
    await this.git(
      ["archive", "--format=tar", `--output=${archive}`, commit],
      path.join(this.settings.dir, MIRROR),
      deadline,
    );
    try {
      await this.run("tar", ["tar", "-x", "-f", archive, "-C", site], {
        cwd: site,
        deadline,
        env: { PATH: process.env.PATH },
      });
    } finally {
      fs.rmSync(archive, { force: true });
    }
  }

  private async build(commit: string, deadline: number): Promise<ReleaseRecord> {
    const { dir, branch } = this.settings;
    const started = this.now();
    const id = newReleaseId(dir, commit, started);
    const site = siteDirOf(dir, id);
    fs.mkdirSync(site, { recursive: true });
    let record: ReleaseRecord = { id, commit, branch, startedAt: started.toISOString(), state: "building" };
    writeReleaseRecord(dir, record);
    this.log(`deploy: building ${commit.slice(0, 12)} as release ${id}`);
    const seconds: Record<string, number> = {};
    let step: FailedStep = "fetch";
    const timed = async <T>(name: FailedStep, work: () => Promise<T>): Promise<T> => {
      step = name;
      const began = performance.now();
      try {
        return await work();
      } finally {
        seconds[name] = Math.round((performance.now() - began) / 100) / 10;
      }
    };
    const logFile = fs.openSync(buildLogOf(dir, id), "a");
    try {
      await timed("fetch", () => this.extract(commit, site, deadline));
      const reusable = this.reusableModules(sha256OfFile(path.join(site, "package-lock.json")));
      const linked = reusable !== null && (await timed("install", () => this.linkModules(reusable, site, deadline)));
      if (!linked) await timed("install", () => this.runStep("npm ci", this.steps.install, site, logFile, deadline));
      record = { ...record, dependencies: linked ? "reused" : "installed" };
      await timed("check", () => this.runStep("the content check", this.steps.check, site, logFile, deadline));
      await timed("build", () => this.runStep("gatsby build", this.steps.build, site, logFile, deadline));
      step = "verify";
      const publicDir = publicDirOf(dir, id);
      for (const file of ["index.html", "404.html", "_headers"]) {
        if (!fs.existsSync(path.join(publicDir, file))) throw new StepFailure(`the build wrote no public/${file}`);
      }
      // What the server will read of it (its headers file, its 404 page), read now: a release it could
      // not serve fails here, before it is live.
      try {
        this.options.verify?.(id);
      } catch (error) {
        throw new StepFailure(`the built site cannot be served: ${(error as Error).message}`);
      }
    } catch (error) {
      const reason = error instanceof StepFailure ? error.message : `unexpected: ${(error as Error).message}`;
      record = { ...record, state: "failed", finishedAt: this.now().toISOString(), failedStep: step, reason, seconds };
      fs.closeSync(logFile);
      this.log(
        `deploy: ${commit.slice(0, 12)} failed at its ${step} step, the live site is unchanged: ` +
          `${reason.split("\n")[0] ?? ""} (${buildLogOf(dir, id)})`,
      );
      // The live release is untouched; what a failed build leaves behind is only its record and its log.
      // A record that cannot be written (a full disk) still leaves the folder removed, which frees the space.
      try {
        writeReleaseRecord(dir, record);
      } finally {
        await this.remove([site]).catch((removal: unknown) =>
          this.log(`deploy: could not remove the failed release's files: ${(removal as Error).message}`),
        );
      }
      await this.prune(null);
      return record;
    }
    fs.closeSync(logFile);
    record = { ...record, state: "good", finishedAt: this.now().toISOString(), seconds };
    writeReleaseRecord(dir, record);
    const previous = liveReleaseId(dir);
    makeLive(dir, id);
    this.log(
      `deploy: ${commit.slice(0, 12)} is live (release ${id}, ${Object.entries(seconds)
        .map(([step, s]) => `${step} ${s} s`)
        .join(", ")})`,
    );
    // Past the switch nothing fails the release: it is live and stays so.
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
      if (removed.length === 0) return;
      await this.remove(removed.map((id) => releaseDir(this.settings.dir, id)));
      this.log(`deploy: removed ${removed.length} older release${removed.length === 1 ? "" : "s"}`);
    } catch (error) {
      this.log(`deploy: could not remove an older release: ${(error as Error).message}`);
    }
  }
}
