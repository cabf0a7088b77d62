import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * The releases of the single server, on disk:
 *
 *   DEPLOY_DIR/
 *     mirror.git/             a bare repository the deploys fetch the branch into
 *     build/                  a work tree of the mirror where every release is built; its node_modules,
 *                               .cache/, public/ and dist/ stay from one build to the next (incremental builds)
 *     build-state.json        what the build folder last built whole: the inputs that force a full build
 *     releases/<id>/          one per deploy, named by time and commit, never changed once it is good:
 *       release.json            what this file's ReleaseRecord says
 *       build.log               everything the install, the content check, the build and the start printed
 *       site/                   the commit's files, its node_modules, its built public/ and compiled dist/
 *     live -> releases/<id>   the release whose own server answers visitors
 *     previous -> releases/<id> the release that was live before it: what the primary rolls back to
 *     deploy.lock/            held by the one deploy under way (the server's or the releases command's)
 *
 * Switching is one rename of a symbolic link over `live`, which POSIX makes atomic: a reader finds the
 * old release or the new one, never neither. The server's primary process (server/releases/primary.ts)
 * follows the link: it starts the live release's own compiled server and then stops the previous one.
 */

type ReleaseState = "building" | "good" | "failed";

/** The steps of a deploy, as a failed release names the one it stopped at. */
export type FailedStep = "fetch" | "install" | "check" | "build" | "verify" | "start" | "interrupted" | "service";

export interface ReleaseRecord {
  readonly id: string;
  readonly commit: string;
  readonly branch: string;
  readonly startedAt: string;
  readonly finishedAt?: string;
  readonly state: ReleaseState;
  /**
   * The step that failed: fetch, install, check, build, verify or start (or interrupted); `service` when it went
   * live and its server then kept ending by itself, and the primary rolled it back.
   */
  readonly failedStep?: FailedStep;
  /** Why it failed, in a line or a few: the step, and the end of what it printed. */
  readonly reason?: string;
  /** Whether the dependencies were installed or kept from the build before (or the server's own folder) with the same lockfile. */
  readonly dependencies?: "installed" | "reused";
  /** Whether the build began from nothing or from what the build before it left (Gatsby's and tsc's caches). */
  readonly build?: "full" | "incremental";
  /** Seconds each step took. */
  readonly seconds?: Readonly<Record<string, number>>;
}

export interface ListedRelease extends ReleaseRecord {
  readonly live: boolean;
}

const RELEASES_FOLDER = "releases";
const LIVE_LINK = "live";
const PREVIOUS_LINK = "previous";
const RECORD_FILE = "release.json";
const DELIVERIES_FILE = "deliveries.json";
/** GitHub's deliveries remembered: far more than pushes arrive between two replays anyone would attempt. */
const DELIVERIES_KEPT = 500;
const BUILD_LOG = "build.log";
const SITE_FOLDER = "site";

/** The commit to build: a work tree of the mirror, the service's own, which the build only receives a copy of. */
export const sourceDirOf = (deployDir: string): string => path.join(deployDir, "source");
/** Where the deployer's own user builds when there is no build unit (DEPLOY_BUILD_SOCKET unset). */
export const buildDirOf = (deployDir: string): string => path.join(deployDir, "build");
/** The releases' modules, one folder per lockfile, copied from the build once and linked from each release. */
export const modulesStoreOf = (deployDir: string): string => path.join(deployDir, "modules");
export const buildStateFile = (deployDir: string): string => path.join(deployDir, "build-state.json");

/** What the build folder holds after a build that succeeded; absent after a failed one. */
export interface BuildState {
  /** The inputs that decide a full build (the lockfile, Gatsby's own files, the content contract). */
  readonly key: string;
  readonly commit: string;
}

export const readBuildState = (deployDir: string): BuildState | null => {
  try {
    return JSON.parse(fs.readFileSync(buildStateFile(deployDir), "utf8")) as BuildState;
  } catch {
    return null;
  }
};

/** Writes a file whole or not at all: a crash mid-write leaves the one before. */
const writeWhole = (file: string, data: unknown): void => {
  const temporary = `${file}.${randomBytes(4).toString("hex")}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(data, null, 2)}\n`);
  fs.renameSync(temporary, file);
};

export const writeBuildState = (deployDir: string, state: BuildState): void =>
  writeWhole(buildStateFile(deployDir), state);

const releasesDir = (deployDir: string): string => path.join(deployDir, RELEASES_FOLDER);
export const releaseDir = (deployDir: string, id: string): string => path.join(releasesDir(deployDir), id);
export const siteDirOf = (deployDir: string, id: string): string => path.join(releaseDir(deployDir, id), SITE_FOLDER);
export const publicDirOf = (deployDir: string, id: string): string => path.join(siteDirOf(deployDir, id), "public");
export const buildLogOf = (deployDir: string, id: string): string => path.join(releaseDir(deployDir, id), BUILD_LOG);

/**
 * A release's name: when it began, to the millisecond, and which commit it is. Names sort in the order
 * the releases began (the newest is the last deploy), so a name is never earlier than the newest one
 * there is, even when the clock stepped back.
 */
export const newReleaseId = (deployDir: string, commit: string, now: Date): string => {
  const stampOf = (time: Date) => time.toISOString().replace(/[-:]/g, "");
  const newest = listReleases(deployDir)[0]?.id.slice(0, stampOf(now).length);
  let stamp = stampOf(now);
  if (newest !== undefined && stamp <= newest) {
    const [, y, mo, d, h, mi, sec] = /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d\.\d{3})Z$/.exec(newest) ?? [];
    stamp = stampOf(new Date(Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${sec}Z`) + 1));
  }
  return `${stamp}-${commit.slice(0, 12)}`;
};

const linkedRelease = (deployDir: string, link: string): string | null => {
  try {
    return path.basename(fs.readlinkSync(path.join(deployDir, link)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
};

/** The id of the live release, or null before the first one. */
export const liveReleaseId = (deployDir: string): string | null => linkedRelease(deployDir, LIVE_LINK);

/** The id of the release that was live before the live one, or null. */
export const previousReleaseId = (deployDir: string): string | null => linkedRelease(deployDir, PREVIOUS_LINK);

/** Points `link` at a release in one atomic step: a new link beside it, renamed over it. */
const pointLink = (deployDir: string, link: string, id: string) => {
  const file = path.join(deployDir, link);
  const temporary = `${file}.${randomBytes(4).toString("hex")}.tmp`;
  fs.symlinkSync(path.join(RELEASES_FOLDER, id), temporary);
  fs.renameSync(temporary, file);
};

/** Writes a release's record whole or not at all (a crash mid-write leaves the previous record). */
export const writeReleaseRecord = (deployDir: string, record: ReleaseRecord): void =>
  writeWhole(path.join(releaseDir(deployDir, record.id), RECORD_FILE), record);

/** A release's record, or null when there is none. */
export const readReleaseRecord = (deployDir: string, id: string): ReleaseRecord | null => {
  try {
    return JSON.parse(fs.readFileSync(path.join(releaseDir(deployDir, id), RECORD_FILE), "utf8")) as ReleaseRecord;
  } catch {
    // A folder without a readable record is a deploy that died before writing one; it is not a release.
    return null;
  }
};

/** Every release, newest first, with which one is live. */
export const listReleases = (deployDir: string): ListedRelease[] => {
  let ids: string[];
  try {
    ids = fs.readdirSync(releasesDir(deployDir));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const live = liveReleaseId(deployDir);
  return ids
    .sort()
    .reverse()
    .flatMap((id) => {
      const record = readReleaseRecord(deployDir, id);
      return record ? [{ ...record, live: id === live }] : [];
    });
};

/**
 * Makes a good release the live one, in one atomic step: a new link beside `live`, renamed over it. The
 * release live until then becomes `previous` first, so a crash between the two leaves both naming good
 * releases. Refuses a release that is not good, so neither a rollback nor a deploy can put a failed build live.
 */
export const makeLive = (deployDir: string, id: string): ReleaseRecord => {
  const record = readReleaseRecord(deployDir, id);
  if (!record) throw new Error(`There is no release ${id}.`);
  if (record.state !== "good") throw new Error(`Release ${id} is ${record.state}, not good; it cannot go live.`);
  const before = liveReleaseId(deployDir);
  if (before !== null && before !== id) pointLink(deployDir, PREVIOUS_LINK, before);
  pointLink(deployDir, LIVE_LINK, id);
  return record;
};

/**
 * Whether a release's own server was started and checked before it went live (its `start` step): releases
 * made before releases carried their server have none, and are never run nor rolled back to.
 */
export const carriesItsServer = (record: ReleaseRecord): boolean => record.seconds?.start !== undefined;

/** The releases whose commit starts with the given hex (a full hash or an abbreviation), newest first. */
export const releasesOfCommit = (deployDir: string, commitPrefix: string): ListedRelease[] => {
  const prefix = commitPrefix.trim().toLowerCase();
  if (!/^[0-9a-f]{4,40}$/.test(prefix)) throw new Error(`Not a commit: ${commitPrefix}`);
  return listReleases(deployDir).filter((release) => release.commit.startsWith(prefix));
};

/**
 * What rollback no longer needs: all but the live release, the one live just before it (requests that
 * began on it may still be reading its files, and the primary rolls back to it when the live one fails in
 * service), the `keep` newest other good ones, the newest failed one (its log says why the last deploy
 * failed) and any still building. The deployer removes them.
 */
export const releasesToPrune = (deployDir: string, keep: number, previousLive: string | null = null): string[] => {
  const releases = listReleases(deployDir);
  const kept = new Set<string>([previousLive, previousReleaseId(deployDir)].filter((id): id is string => id !== null));
  for (const release of releases) if (release.live || release.state === "building") kept.add(release.id);
  for (const release of releases.filter((candidate) => candidate.state === "good" && !candidate.live).slice(0, keep)) {
    kept.add(release.id);
  }
  const newestFailed = releases.find((release) => release.state === "failed");
  if (newestFailed) kept.add(newestFailed.id);
  return releases.filter((release) => !kept.has(release.id)).map((release) => release.id);
};

/** What a deploy is doing, and the releases it made. */
export interface DeployStatus {
  readonly running: boolean;
  /** A commit waiting for the deploy under way to end (the newest asked for). */
  readonly queued: string | null;
  readonly live: ListedRelease | null;
  /** The newest deploy, live or not: its state, and why it failed. */
  readonly last: ListedRelease | null;
}

/** The deploys as the releases on disk and the deployer's own state (running, queued) say. */
export const deployStatus = (deployDir: string, running: boolean, queued: string | null): DeployStatus => {
  const releases = listReleases(deployDir);
  return { running, queued, live: releases.find((release) => release.live) ?? null, last: releases[0] ?? null };
};

/**
 * Remembers a GitHub delivery taken for a deploy; false when it was taken before. Kept on disk, so a replay
 * after a restart is still known, and only the newest are kept.
 */
export const rememberDelivery = (deployDir: string, delivery: string): boolean => {
  const file = path.join(deployDir, DELIVERIES_FILE);
  let known: string[] = [];
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(file, "utf8"));
    if (Array.isArray(parsed)) known = parsed.filter((entry): entry is string => typeof entry === "string");
  } catch {
    // None yet, or unreadable: start a new list.
  }
  if (known.includes(delivery)) return false;
  fs.mkdirSync(deployDir, { recursive: true });
  writeWhole(file, [...known, delivery].slice(-DELIVERIES_KEPT));
  return true;
};
