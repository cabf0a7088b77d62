// npm run bench:deploy: what an editor waits for on the single server, and what the site's visitors feel
// meanwhile. The project's own HEAD in a local bare repository stands in for GitHub; the production server
// runs with releases (DEPLOY_*) and serves the existing build of public/ until the first release. The
// bench commits a new hero headline, sends the signed push GitHub would, and measures:
// - seconds from the webhook to the first answer of / that carries the new headline, for five pushes: the
//   first (a full build in the empty build folder), three content-only ones (incremental builds; the editor's
//   wait is their median) and one that also changes the server's code (an incremental build and the server
//   compiled again); each goes live by starting the release's own server, then switching the primary's worker
//   to it;
// - Gatsby's own phases in the median content push's and the code push's builds, read from their build logs: where each
//   second of a push goes, and the sum of those that take the same time whatever changed, against which
//   npm run check:budgets judges the median content push's and the code push's webhook to live (bench/budgets.ts,
//   FIXED_BUILD_PHASES);
// - GET / p99 and the slowest answer through the median content push's switch (3 s either side of it);
// - GET / p50 and p95 while idle (before) and while the build runs, one request at a time every 50 ms, each
//   over a connection of its own, as the guide's reverse proxy reaches the server (testing/proxied-fetch.ts);
// - the build's peak memory: the proportional set size (PSS) of every process under the server but the
//   server, each shared page counted once in all; the sum of their RSS, which counts a page shared by
//   gatsby's workers once per worker, is reported beside it.
// Then a broken push, after four older good releases were planted beside the live one (DEPLOY_KEEP=1): GET /
// p95, p99 and the slowest answer while that release installs, fails its content check and has its files
// removed, and while the older releases are pruned, each a tree of about as many files as node_modules; these
// short phases are sampled every 10 ms.
// It fails, writing nothing, when the page does not show the new headline or /healthz names another
// commit. Adds its figures to reports/bench.json (npm run check:budgets judges them).
import { execFileSync } from "node:child_process";
import { createHmac } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { enterRunTempRoot } from "../testing/run-temp-root";
import { fetchAsProxied } from "../testing/proxied-fetch";
import { healthDetailsHeaders, startSite, type RunningSite } from "../testing/site-server";
import { buildLogOf, listReleases, siteDirOf, writeReleaseRecord } from "../server/releases/release-store";
import { addToReport, type DeployFigures, type Latency } from "./report";
import { fixedPhaseSeconds, pushOverFixedPhases } from "./budgets";

const root = path.resolve(__dirname, "..");
// DEPLOY_WEBHOOK_SECRET: the server refuses one under 32 characters.
const WEBHOOK_SECRET = "bench webhook secret, 32 characters at least";
const HEADLINE = "Uniforms and office furniture, on contract";
/** The content-only pushes, one headline each: the editor's wait is their median, as a slow spell moves one of three. */
const CONTENT_HEADLINES = [
  "Duty gear and office supplies, on contract",
  "Duty gear, delivered to every agency",
  "Office supplies and duty gear, on schedule",
];
const CODE_HEADLINE = "Office furniture for every agency";
// Around the moment the new release's server takes over: the switch's samples.
const SWITCH_WINDOW_MS = 3_000;
const SAMPLE_EVERY_MS = 50;
// A failed release is removed within a second or two: sampled every 50 ms, its 95th percentile would be its
// second-slowest answer. Sampled this often it is a percentile, still one request at a time.
const SHORT_PHASE_SAMPLE_EVERY_MS = 10;
const IDLE_SECONDS = 10;
const DEPLOY_TIMEOUT_MS = 15 * 60_000;

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "Bench",
      GIT_AUTHOR_EMAIL: "bench@example.com",
      GIT_COMMITTER_NAME: "Bench",
      GIT_COMMITTER_EMAIL: "bench@example.com",
    },
  }).trim();

/** The deploys as /healthz's details tell them (startSite gives the server the token these send). */
const deploysOf = async (site: RunningSite) => {
  const answer = await fetchAsProxied(site.url("/healthz"), { headers: healthDetailsHeaders });
  const { site: deploys } = (await answer.json()) as {
    site?: {
      liveCommit?: string;
      deploying?: boolean;
      lastDeploy?: { commit: string; state: string; reason: string | null } | null;
    };
  };
  return deploys;
};

const percentile = (values: readonly number[], fraction: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round((sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? NaN) * 10) / 10;
};

/** The processes below `pid` (its children, theirs, ...), from /proc. */
const descendantsOf = (pid: number): number[] => {
  const parents = new Map<number, number>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // Ended while being read.
    }
  }
  const found: number[] = [];
  const visit = (parent: number) => {
    for (const [child, ppid] of parents) {
      if (ppid !== parent) continue;
      found.push(child);
      visit(child);
    }
  };
  visit(pid);
  return found;
};

/** A release's own server (the primary's worker), which is the site, not the build. */
const isSiteServer = (pid: number): boolean => {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(path.join("dist", "server", "main.js"));
  } catch {
    return false;
  }
};

interface ProcessMemory {
  readonly rssMb: number;
  readonly pssMb: number;
}

/**
 * A process's resident memory (MB) from /proc/PID/smaps_rollup: RSS, and PSS (a page shared by n processes
 * counts 1/n in each); 0 for a figure it lacks, and both 0 for a process that ended while the bench looked.
 */
const memoryMbOf = (pid: number): ProcessMemory => {
  try {
    const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    const mbOf = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(rollup)?.[1] ?? 0) / 1024;
    return { rssMb: mbOf("Rss"), pssMb: mbOf("Pss") };
  } catch {
    return { rssMb: 0, pssMb: 0 };
  }
};

const latencyOf = (samples: readonly number[]): Latency => ({
  p50Ms: percentile(samples, 0.5),
  p95Ms: percentile(samples, 0.95),
  p99Ms: percentile(samples, 0.99),
  maxMs: Math.round(Math.max(...samples) * 10) / 10,
  requests: samples.length,
});

const timedGet = async (url: string): Promise<{ ms: number; html: string }> => {
  const started = performance.now();
  const response = await fetchAsProxied(url);
  const html = await response.text();
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status} during the deploy`);
  return { ms: performance.now() - started, html };
};

export const measureDeploy = async (): Promise<DeployFigures> => {
  if (!fs.existsSync(path.join(root, "public", "_headers")))
    throw new Error("No build in public/: run npm run build first.");
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "bench-deploy-"));
  const origin = path.join(work, "origin.git");
  const editor = path.join(work, "editor");
  git(work, "clone", "--quiet", "--bare", root, origin);
  git(work, "clone", "--quiet", origin, editor);
  const branch = git(editor, "rev-parse", "--abbrev-ref", "HEAD");
  const homeFile = path.join(editor, "content", "home.json");
  const home = JSON.parse(fs.readFileSync(homeFile, "utf8")) as { hero: { headline: string } };
  home.hero.headline = HEADLINE;
  // The editing screen's layout (Prettier's), as an editor's commit would have it: a one-line change.
  fs.writeFileSync(
    homeFile,
    execFileSync(process.execPath, [require.resolve("prettier/bin/prettier.cjs"), "--stdin-filepath", homeFile], {
      input: JSON.stringify(home),
      encoding: "utf8",
      cwd: editor,
    }),
  );
  git(editor, "commit", "--quiet", "--all", "--message", "Hero headline");
  git(editor, "push", "--quiet", "origin", branch);
  const commit = git(editor, "rev-parse", "HEAD");

  const site: RunningSite = await startSite({
    env: {
      DEPLOY_DIR: path.join(work, "releases"),
      DEPLOY_REPOSITORY: `file://${origin}`,
      DEPLOY_BRANCH: branch,
      DEPLOY_WEBHOOK_SECRET: WEBHOOK_SECRET,
      DEPLOY_KEEP: "1",
    },
  });
  try {
    const idle: number[] = [];
    const idleUntil = performance.now() + IDLE_SECONDS * 1000;
    while (performance.now() < idleUntil) {
      idle.push((await timedGet(site.url("/"))).ms);
      await sleep(SAMPLE_EVERY_MS);
    }

    const sent = performance.now();
    await sendPush(site, branch, commit);

    const during: number[] = [];
    let peakPssMb = 0;
    let peakRssSumMb = 0;
    let liveAfterMs: number | null = null;
    while (liveAfterMs === null) {
      if (performance.now() - sent > DEPLOY_TIMEOUT_MS) throw new Error("the deploy did not go live within 15 minutes");
      const build = descendantsOf(site.pid)
        .filter((pid) => !isSiteServer(pid))
        .map(memoryMbOf);
      const summed = (figure: keyof ProcessMemory) => build.reduce((sum, memory) => sum + memory[figure], 0);
      peakPssMb = Math.max(peakPssMb, summed("pssMb"));
      peakRssSumMb = Math.max(peakRssSumMb, summed("rssMb"));
      const { ms, html } = await timedGet(site.url("/"));
      if (html.includes(HEADLINE)) liveAfterMs = performance.now() - sent;
      else during.push(ms);
      const last = (await deploysOf(site))?.lastDeploy;
      if (last?.commit === commit && last.state === "failed")
        throw new Error(`the deploy failed: ${last.reason ?? ""}`);
      await sleep(SAMPLE_EVERY_MS);
    }
    const liveCommit = (await deploysOf(site))?.liveCommit;
    if (liveCommit !== commit) throw new Error(`/healthz names ${String(liveCommit)}, not ${commit}`);
    const deployDir = path.join(work, "releases");
    const first = listReleases(deployDir).find((record) => record.commit === commit);
    const pushing: Pushing = { site, deployDir, editor, branch };
    const contentPushes: MeasuredPush[] = [];
    for (const headline of CONTENT_HEADLINES) contentPushes.push(await measurePush(pushing, headline, () => undefined));
    const byWait = [...contentPushes].sort((a, b) => a.seconds - b.seconds);
    const contentPush = byWait[Math.floor(byWait.length / 2)];
    if (!contentPush) throw new Error("no content push was measured");
    const codePush = await measurePush(pushing, CODE_HEADLINE, (checkout) => {
      const refusals = path.join(checkout, "server", "site", "refusals.ts");
      fs.writeFileSync(
        refusals,
        fs.readFileSync(refusals, "utf8").replace("could not be handled.", "could not be handled here."),
      );
    });
    const { duringFailedRelease, duringPrune } = await measureFailureAndPrune(pushing);
    return {
      firstPushSeconds: Math.round(liveAfterMs / 100) / 10,
      firstPushStepSeconds: first?.seconds ?? {},
      webhookToLiveSeconds: contentPush.seconds,
      contentPushesSeconds: contentPushes.map((push) => push.seconds),
      codePushSeconds: codePush.seconds,
      stepSeconds: contentPush.stepSeconds,
      contentPushPhases: contentPush.phases,
      codePushPhases: codePush.phases,
      throughSwitch: contentPush.throughSwitch,
      idle: latencyOf(idle),
      duringBuild: latencyOf(during),
      duringFailedRelease,
      duringPrune,
      buildPeakMemoryMb: Math.round(peakPssMb),
      buildPeakRssSumMb: Math.round(peakRssSumMb),
    };
  } catch (error) {
    // What the server said (a failed step, a worker that ended) is what explains a failed bench.
    console.error(`The server's last lines:\n${site.output().trim().split("\n").slice(-40).join("\n")}`);
    throw error;
  } finally {
    await site.stop();
  }
};

/** What the pushes of one bench run share: the server, its releases, and the editor's clone and branch. */
interface Pushing {
  readonly site: RunningSite;
  readonly deployDir: string;
  readonly editor: string;
  readonly branch: string;
}

/** One push followed until it was live: its wait, the answers around its switch, its release's steps and phases. */
interface MeasuredPush {
  readonly seconds: number;
  readonly throughSwitch: Latency;
  readonly stepSeconds: Readonly<Record<string, number>>;
  readonly phases: Readonly<Record<string, number>>;
}

/**
 * A commit with a new headline (and whatever `change` does), pushed and followed until / shows it: the seconds
 * from the webhook, every GET / within SWITCH_WINDOW_MS of the first answer that showed it, and its release's
 * steps and Gatsby's phases.
 */
const measurePush = async (
  { site, deployDir, editor, branch }: Pushing,
  headline: string,
  change: (checkout: string) => void,
): Promise<MeasuredPush> => {
  const homeFile = path.join(editor, "content", "home.json");
  const home = JSON.parse(fs.readFileSync(homeFile, "utf8")) as { hero: { headline: string } };
  home.hero.headline = headline;
  fs.writeFileSync(homeFile, `${JSON.stringify(home, null, 2)}\n`);
  change(editor);
  git(editor, "commit", "--quiet", "--all", "--message", headline);
  git(editor, "push", "--quiet", "origin", branch);
  const commit = git(editor, "rev-parse", "HEAD");
  const samples: { at: number; ms: number }[] = [];
  const sent = performance.now();
  await sendPush(site, branch, commit);
  let liveAt: number | null = null;
  while (liveAt === null || performance.now() < liveAt + SWITCH_WINDOW_MS) {
    if (performance.now() - sent > DEPLOY_TIMEOUT_MS) throw new Error(`${headline} did not go live within 15 minutes`);
    const at = performance.now();
    const { ms, html } = await timedGet(site.url("/"));
    samples.push({ at, ms });
    if (liveAt === null && html.includes(headline)) liveAt = at + ms;
    const release = listReleases(deployDir).find((record) => record.commit === commit);
    if (release?.state === "failed") throw new Error(`${headline} failed: ${release.reason ?? ""}`);
    await sleep(SAMPLE_EVERY_MS);
  }
  const around = samples
    .filter((sample) => Math.abs(sample.at - liveAt) <= SWITCH_WINDOW_MS)
    .map((sample) => sample.ms);
  // Read while this push is live: DEPLOY_KEEP=1 prunes its release, its build log with it, once the next goes live.
  const release = listReleases(deployDir).find((record) => record.commit === commit);
  if (!release) throw new Error(`${headline} went live with no release record`);
  return {
    seconds: Math.round((liveAt - sent) / 100) / 10,
    throughSwitch: latencyOf(around),
    stepSeconds: release.seconds ?? {},
    phases: buildPhases(buildLogOf(deployDir, release.id)),
  };
};

const sendPush = async (site: RunningSite, branch: string, commit: string) => {
  const body = JSON.stringify({ ref: `refs/heads/${branch}`, after: commit, deleted: false });
  const signature = `sha256=${createHmac("sha256", WEBHOOK_SECRET).update(body).digest("hex")}`;
  const answer = await fetchAsProxied(site.url("/api/deploy/github"), {
    method: "POST",
    headers: { "content-type": "application/json", "x-github-event": "push", "x-hub-signature-256": signature },
    body,
  });
  if (answer.status !== 202) throw new Error(`the webhook answered ${answer.status}: ${await answer.text()}`);
};

/** Older good releases beside the live one, each with a hard-linked copy of its modules, as kept releases have. */
const plantOlderReleases = (deployDir: string, count: number) => {
  const [live] = listReleases(deployDir);
  if (!live) throw new Error("no live release to copy");
  for (let index = 0; index < count; index += 1) {
    const id = `20200101T00000${index}.000Z-${"0".repeat(12)}`;
    const site = siteDirOf(deployDir, id);
    fs.mkdirSync(site, { recursive: true });
    execFileSync("cp", [
      "-al",
      path.join(siteDirOf(deployDir, live.id), "node_modules"),
      path.join(site, "node_modules"),
    ]);
    writeReleaseRecord(deployDir, { ...live, id, startedAt: `2020-01-01T00:00:0${index}.000Z`, state: "good" });
  }
};

/**
 * A broken push (its headline not text: the content check fails after the modules are linked in), sampled
 * until the failed release's files are gone, then until the older releases are pruned.
 */
const measureFailureAndPrune = async ({ site, deployDir, editor, branch }: Pushing) => {
  // The push before may still be pruning its own older releases: planted ones must wait for this push's.
  for (;;) {
    if ((await deploysOf(site))?.deploying === false) break;
    await sleep(SAMPLE_EVERY_MS);
  }
  plantOlderReleases(deployDir, 4);
  const homeFile = path.join(editor, "content", "home.json");
  const home = JSON.parse(fs.readFileSync(homeFile, "utf8")) as { hero: { headline: unknown } };
  home.hero.headline = 42;
  fs.writeFileSync(homeFile, `${JSON.stringify(home, null, 2)}\n`);
  git(editor, "commit", "--quiet", "--all", "--message", "A headline that is not text");
  git(editor, "push", "--quiet", "origin", branch);
  const broken = git(editor, "rev-parse", "HEAD");
  const outputBefore = site.output().length;
  const failing: number[] = [];
  const pruning: number[] = [];
  const started = performance.now();
  await sendPush(site, branch, broken);
  const failedAndRemoved = () => {
    const release = listReleases(deployDir).find((record) => record.commit === broken);
    return release?.state === "failed" && !fs.existsSync(siteDirOf(deployDir, release.id));
  };
  for (;;) {
    if (performance.now() - started > DEPLOY_TIMEOUT_MS)
      throw new Error("the broken push did not fail within 15 minutes");
    // This push's prune, which follows its failure, not the one before it.
    const since = site.output().slice(outputBefore);
    const failedAt = since.indexOf(`deploy: ${broken.slice(0, 12)} failed at its`);
    const pruned = failedAt >= 0 && /deploy: removed \d+ older releases?/.test(since.slice(failedAt));
    // A prune over within one interval still gets the request made as it ended, never a figure of none.
    if (pruned && pruning.length > 0) break;
    (pruned || failedAndRemoved() ? pruning : failing).push((await timedGet(site.url("/"))).ms);
    await sleep(SHORT_PHASE_SAMPLE_EVERY_MS);
  }
  const reason = listReleases(deployDir).find((record) => record.commit === broken)?.failedStep;
  if (reason !== "check") throw new Error(`the broken push failed at ${String(reason)}, not at its content check`);
  return { duringFailedRelease: latencyOf(failing), duringPrune: latencyOf(pruning) };
};

/**
 * Where a release's build spent its seconds, as its log has them: each phase Gatsby reports as
 * "success <phase> - <seconds>s", and its whole run ("Done building in"); the rest of the build step is the
 * server's tsc and npm.
 */
const buildPhases = (buildLog: string): Record<string, number> => {
  const phases: Record<string, number> = {};
  const log = fs.readFileSync(buildLog, "utf8");
  for (const [, phase, seconds] of log.matchAll(/^success (.+?) - ([\d.]+)s/gm)) {
    if (phase !== undefined && seconds !== undefined)
      phases[phase] = Math.round(((phases[phase] ?? 0) + Number(seconds)) * 10) / 10;
  }
  const whole = /^info Done building in ([\d.]+) sec/m.exec(log)?.[1];
  if (whole !== undefined) phases["gatsby build in all"] = Math.round(Number(whole) * 10) / 10;
  return phases;
};

/** The phases that took a tenth of a second or more, slowest first. */
const describePhases = (phases: Readonly<Record<string, number>>) =>
  Object.entries(phases)
    .filter(([, seconds]) => seconds >= 0.1)
    .sort(([, a], [, b]) => b - a)
    .map(([phase, seconds]) => `${phase} ${seconds} s`)
    .join(", ");

const describeLatency = (what: string, latency: Latency) =>
  `  GET / ${what}: p50 ${latency.p50Ms} ms, p95 ${latency.p95Ms} ms, p99 ${latency.p99Ms} ms, max ${latency.maxMs} ms (${latency.requests} requests)`;

/** An editor's wait for a content-only push, webhook to live, that the fast loop aims at (npm run check:budgets gates a ratio). */
const CONTENT_PUSH_GOAL_SECONDS = 15;

const againstFixedPhases = (seconds: number, phases: Readonly<Record<string, number>>) => {
  const fixed = fixedPhaseSeconds(phases);
  return fixed === null
    ? "its build's fixed phases not all in its log"
    : `${pushOverFixedPhases(seconds, phases)}x its build's fixed phases, ${fixed} s`;
};

export const printDeploy = (figures: DeployFigures) => {
  console.log(
    [
      `Deploy on the single server: webhook to live ${figures.webhookToLiveSeconds} s for a content-only push, ` +
        `the median of ${figures.contentPushesSeconds.map((seconds) => `${seconds} s`).join(", ")} ` +
        `(the goal: ${CONTENT_PUSH_GOAL_SECONDS} s; ${againstFixedPhases(figures.webhookToLiveSeconds, figures.contentPushPhases)}; ` +
        `${Object.entries(figures.stepSeconds)
          .map(([step, seconds]) => `${step} ${seconds} s`)
          .join(", ")}), ${figures.codePushSeconds} s for a push that changes the server's code ` +
        `(${againstFixedPhases(figures.codePushSeconds, figures.codePushPhases)}), ` +
        `${figures.firstPushSeconds} s for the first push (a full build: ${Object.entries(figures.firstPushStepSeconds)
          .map(([step, seconds]) => `${step} ${seconds} s`)
          .join(", ")})`,
      `  Gatsby's phases in the median content push's build: ${describePhases(figures.contentPushPhases)}`,
      `  Gatsby's phases in the code push's build: ${describePhases(figures.codePushPhases)}`,
      describeLatency("through the median content push's switch", figures.throughSwitch),
      describeLatency("idle", figures.idle),
      describeLatency("during the build", figures.duringBuild),
      describeLatency("while a release fails and is removed", figures.duringFailedRelease),
      describeLatency("while older releases are pruned", figures.duringPrune),
      `  build's peak memory: ${figures.buildPeakMemoryMb} MB (PSS; the sum of RSS peaked at ${figures.buildPeakRssSumMb} MB)`,
    ].join("\n"),
  );
};

if (require.main === module) {
  enterRunTempRoot("site-bench-deploy-");
  measureDeploy().then(
    (figures) => {
      printDeploy(figures);
      console.log(`Figures added to ${path.relative(root, addToReport("deploy", figures))}.`);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
