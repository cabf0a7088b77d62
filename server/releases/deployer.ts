import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import {
  BUILD_LOG,
  listReleases,
  liveReleaseId,
  makeLive,
  newReleaseId,
  pruneReleases,
  publicDirOf,
  releaseDir,
  siteDirOf,
  writeReleaseRecord,
  type ListedRelease,
  type ReleaseRecord,
} from "./release-store";
import type { DeploySettings } from "./settings";

/**
 * Deploys of the single server: fetch a commit of the branch into a release folder of its own, install
 * only when the lockfile changed, run the content check and `gatsby build` in child processes at a lower
 * priority and with a heap limit, then switch `live` to it in one step. A failure at any point leaves the
 * live release as it was and says why in the release's record. One deploy at a time, across processes
 * (the server's webhook and `npm run releases -- --deploy` take the same lock); requests that arrive
 * during a deploy are folded into one more deploy of the newest commit asked for.
 */

/** A step's command: the program and its arguments, run in the release's site folder. */
export type Command = readonly [string, ...string[]];

export interface DeploySteps {
  readonly install: Command;
  readonly check: Command;
  readonly build: Command;
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
  /** Called after a release went live, in the same process (the server reloads nothing else). */
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
// What a failure's reason keeps of the step's output: enough to see the error, not the whole build.
const REASON_LINES = 12;

class StepFailure extends Error {}

const ANSI_ESCAPE = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*[A-Za-z]`, "g");

const sha256OfFile = (file: string): string | null => {
  try {
    return createHash("sha256").update(fs.readFileSync(file)).digest("hex");
  } catch {
    return null;
  }
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const processAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

/**
 * Takes the deploy lock, waiting while another live process holds it; a lock left by a process that
 * died is taken over. Returns the function that gives it back.
 */
export const acquireDeployLock = async (deployDir: string, signal?: AbortSignal): Promise<() => void> => {
  const file = path.join(deployDir, LOCK_FILE);
  for (;;) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: "wx" });
      return () => fs.rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = Number(fs.readFileSync(file, "utf8").trim());
    if (!Number.isInteger(holder) || holder <= 0 || !processAlive(holder)) {
      fs.rmSync(file, { force: true });
      continue;
    }
    if (signal?.aborted) throw new Error("stopped while waiting for another deploy");
    await sleep(LOCK_POLL_MS);
  }
};

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
  private child: ReturnType<typeof spawn> | null = null;
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
    if (this.child?.pid) this.killGroup(this.child.pid);
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
    try {
      this.failInterrupted();
      const commit = await this.fetch(commitWanted);
      const liveId = liveReleaseId(dir);
      const live = listReleases(dir).find((candidate) => candidate.id === liveId);
      if (live?.commit === commit) {
        this.log(`deploy: ${commit.slice(0, 12)} is already live`);
        return null;
      }
      return await this.build(commit);
    } finally {
      release();
    }
  }

  /** A deploy that was under way when its process died is marked failed, so it is never taken for one running. */
  private failInterrupted() {
    for (const stale of listReleases(this.settings.dir).filter((candidate) => candidate.state === "building")) {
      writeReleaseRecord(this.settings.dir, {
        ...stale,
        state: "failed",
        finishedAt: this.now().toISOString(),
        reason: "interrupted: the process running this deploy ended before it finished",
      });
      fs.rmSync(siteDirOf(this.settings.dir, stale.id), { recursive: true, force: true });
    }
  }

  private git(args: readonly string[], cwd: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const child = spawn("git", args, {
        cwd,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, GIT_TERMINAL_PROMPT: "0" },
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
      child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
      child.once("error", reject);
      child.once("close", (code) => {
        if (code === 0) resolve(Buffer.concat(out).toString("utf8").trim());
        else reject(new StepFailure(`git ${args[0] ?? ""} failed: ${Buffer.concat(err).toString("utf8").trim()}`));
      });
    });
  }

  /** Fetches the branch into the mirror; returns the full hash of the commit to deploy. */
  private async fetch(commitWanted: string): Promise<string> {
    const { dir, repository, branch } = this.settings;
    if (!repository) throw new Error("DEPLOY_REPOSITORY is not set: there is nothing to fetch from");
    const mirror = path.join(dir, MIRROR);
    if (!fs.existsSync(path.join(mirror, "HEAD"))) {
      fs.mkdirSync(mirror, { recursive: true });
      await this.git(["init", "--bare", "--quiet"], mirror);
    }
    await this.git(
      ["fetch", "--quiet", "--no-tags", "--force", "--", repository, `+refs/heads/${branch}:refs/heads/${branch}`],
      mirror,
    );
    const head = await this.git(["rev-parse", "--verify", `refs/heads/${branch}^{commit}`], mirror);
    if (commitWanted === "HEAD" || !/^[0-9a-f]{40}$/.test(commitWanted)) return head;
    // A push's commit, when it is on the branch as fetched; a later force-push may have dropped it, and
    // then the branch's head is what the newest push wants.
    const onBranch = await this.git(["merge-base", "--is-ancestor", commitWanted, head], mirror).then(
      () => true,
      () => false,
    );
    return onBranch ? commitWanted : head;
  }

  private killGroup(pid: number) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }

  /** Runs one step in the release's site folder, its output appended to the build log; throws with its tail on failure. */
  private runStep(name: string, command: Command, cwd: string, logFile: number): Promise<void> {
    const { buildNice, buildMemoryMb, buildTimeoutMs } = this.settings;
    const [program, ...args] = command;
    fs.writeSync(logFile, `\n$ ${command.join(" ")}\n`);
    return new Promise((resolve, reject) => {
      // chrt's SCHED_IDLE runs the step, and its children (Gatsby's workers) with it, only on CPU time the
      // site leaves unused; nice(1) orders it among other such work. With nice 10 alone, GET / p95 during a
      // build was 4x its idle figure on 2 cores (bench/deploy.ts). detached makes it the leader of a process
      // group, so a timeout or a stop ends the whole tree.
      const child = spawn("chrt", ["--idle", "0", "nice", "-n", String(buildNice), program, ...args], {
        cwd,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        env: {
          ...process.env,
          // Each of the build's Node processes gets this heap; past it the build fails, not the machine.
          NODE_OPTIONS: `--max-old-space-size=${buildMemoryMb}`,
          GATSBY_TELEMETRY_DISABLED: "1",
          // Plain output for the log, and no Netlify adapter: this is the single server's build.
          CI: "true",
          NETLIFY: "",
          NETLIFY_LOCAL: "",
        },
      });
      this.child = child;
      const tail = new OutputTail();
      const take = (chunk: Buffer) => {
        fs.writeSync(logFile, chunk);
        tail.add(chunk);
      };
      child.stdout.on("data", take);
      child.stderr.on("data", take);
      const timer = setTimeout(() => {
        if (child.pid) this.killGroup(child.pid);
      }, buildTimeoutMs);
      child.once("error", (error) => {
        clearTimeout(timer);
        this.child = null;
        reject(new StepFailure(`${name} could not start: ${error.message}`));
      });
      child.once("close", (code, signal) => {
        clearTimeout(timer);
        this.child = null;
        if (code === 0) {
          resolve();
          return;
        }
        const how = this.stopping.signal.aborted
          ? "was stopped with the server"
          : signal
            ? `was killed (${signal}${signal === "SIGKILL" ? ": out of memory, the time limit or an operator" : ""})`
            : `failed (exit code ${code})`;
        reject(new StepFailure(`${name} ${how}\n${tail.text()}`));
      });
    });
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

  /** Links the modules in (hard links: seconds, and no second copy on disk); the build cache stays behind. */
  private async linkModules(fromSite: string, toSite: string): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const child = spawn("cp", ["-al", path.join(fromSite, "node_modules"), path.join(toSite, "node_modules")], {
        stdio: "ignore",
      });
      child.once("error", reject);
      child.once("close", (code) =>
        code === 0 ? resolve() : reject(new StepFailure(`copying node_modules failed (exit code ${code})`)),
      );
    });
    // Gatsby and webpack rewrite files in here in place; a hard-linked copy would change the other release's.
    fs.rmSync(path.join(toSite, "node_modules", ".cache"), { recursive: true, force: true });
  }

  private async extract(commit: string, site: string): Promise<void> {
    const mirror = path.join(this.settings.dir, MIRROR);
    await new Promise<void>((resolve, reject) => {
      const archive = spawn("git", ["archive", "--format=tar", commit], {
        cwd: mirror,
        stdio: ["ignore", "pipe", "pipe"],
      });
      const tar = spawn("tar", ["-x", "-C", site], { stdio: ["pipe", "ignore", "pipe"] });
      archive.stdout.pipe(tar.stdin);
      let failed = false;
      const fail = (what: string) => {
        if (failed) return;
        failed = true;
        reject(new StepFailure(what));
      };
      archive.once("error", (error) => fail(`git archive could not start: ${error.message}`));
      tar.once("error", (error) => fail(`tar could not start: ${error.message}`));
      archive.once("close", (code) => code !== 0 && fail(`git archive failed (exit code ${code})`));
      tar.once("close", (code) => (code === 0 ? !failed && resolve() : fail(`tar failed (exit code ${code})`)));
    });
  }

  private async build(commit: string): Promise<ReleaseRecord> {
    const { dir, branch } = this.settings;
    const started = this.now();
    const id = newReleaseId(dir, commit, started);
    const site = siteDirOf(dir, id);
    fs.mkdirSync(site, { recursive: true });
    let record: ReleaseRecord = { id, commit, branch, startedAt: started.toISOString(), state: "building" };
    writeReleaseRecord(dir, record);
    this.log(`deploy: building ${commit.slice(0, 12)} as release ${id}`);
    const seconds: Record<string, number> = {};
    const timed = async <T>(step: string, work: () => Promise<T>): Promise<T> => {
      const began = performance.now();
      try {
        return await work();
      } finally {
        seconds[step] = Math.round((performance.now() - began) / 100) / 10;
      }
    };
    const logFile = fs.openSync(path.join(releaseDir(dir, id), BUILD_LOG), "a");
    try {
      await timed("fetch", () => this.extract(commit, site));
      const reusable = this.reusableModules(sha256OfFile(path.join(site, "package-lock.json")));
      if (reusable) await timed("install", () => this.linkModules(reusable, site));
      else await timed("install", () => this.runStep("npm ci", this.steps.install, site, logFile));
      record = { ...record, dependencies: reusable ? "reused" : "installed" };
      await timed("check", () => this.runStep("the content check", this.steps.check, site, logFile));
      await timed("build", () => this.runStep("gatsby build", this.steps.build, site, logFile));
      const publicDir = publicDirOf(dir, id);
      for (const file of ["index.html", "404.html", "_headers"]) {
        if (!fs.existsSync(path.join(publicDir, file))) throw new StepFailure(`the build wrote no public/${file}`);
      }
      record = { ...record, state: "good", finishedAt: this.now().toISOString(), seconds };
      writeReleaseRecord(dir, record);
      makeLive(dir, id);
      this.log(
        `deploy: ${commit.slice(0, 12)} is live (release ${id}, ${Object.entries(seconds)
          .map(([step, s]) => `${step} ${s} s`)
          .join(", ")})`,
      );
      this.options.onLive?.(record);
      const removed = pruneReleases(dir, this.settings.keep);
      if (removed.length) this.log(`deploy: removed ${removed.length} older release${removed.length === 1 ? "" : "s"}`);
      return record;
    } catch (error) {
      const reason = error instanceof StepFailure ? error.message : `unexpected: ${(error as Error).message}`;
      record = { ...record, state: "failed", finishedAt: this.now().toISOString(), reason, seconds };
      writeReleaseRecord(dir, record);
      // The live release is untouched; what a failed build leaves behind is only its record and its log.
      fs.rmSync(site, { recursive: true, force: true });
      this.log(`deploy: ${commit.slice(0, 12)} failed, the live site is unchanged: ${reason.split("\n")[0] ?? ""}`);
      pruneReleases(dir, this.settings.keep);
      return record;
    } finally {
      fs.closeSync(logFile);
    }
  }
}
