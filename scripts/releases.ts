// First: on too old a Node this stops with the version to install, before any other import can fail.
import "../server/require-node";
import path from "node:path";
import { acquireDeployLock, Deployer } from "../server/releases/deployer";
import {
  buildLogOf,
  carriesItsServer,
  listReleases,
  makeLive,
  releasesOfCommit,
  type ListedRelease,
} from "../server/releases/release-store";
import { readDeploySettings, type DeploySettings } from "../server/releases/settings";
import { readCommandLine } from "./command-line";

const USAGE = `
releases: the single server's releases, for its operator. It reads the same environment as the server
(DEPLOY_DIR, DEPLOY_REPOSITORY, DEPLOY_BRANCH, DEPLOY_KEEP, DEPLOY_BUILD_*). On the server run it as
\`sudo cardinal-site releases ...\` (docs/deploy-server.md).

  (no option)            every release, newest first: commit, start, state, which is live, and its build log;
                         for a failed one, the step that failed and the last lines it printed
  --deploy               build the branch's head as the webhook would, and make it live (also a commit
                         the server rolled back for failing in service, once its cause is fixed)
  --rollback COMMIT      make an earlier good release live at once (no build)
  --help                 this text

The server follows the live release within a second: it starts that release's own server, and once it
answers, stops the one before it. Neither needs a restart. A release whose server keeps ending by itself in
service is rolled back by the server to the one before it, and listed as failed at its service step.
`;

const options = readCommandLine(USAGE, {
  deploy: { type: "boolean", default: false },
  rollback: { type: "string" },
});

/**
 * A release in a line, then its build log's path; a failed one also gets the step it stopped at and the
 * last lines that step printed, so the real reason is on screen without opening the log.
 */
const describe = (deployDir: string, release: ListedRelease): string => {
  const line = [
    release.live ? "*" : " ",
    release.commit.slice(0, 12),
    release.startedAt.replace("T", " ").replace(/\.\d+Z$/, "Z"),
    release.state.padEnd(8),
    release.live ? "live" : "",
    release.state === "failed" ? `at its ${release.failedStep ?? "unknown"} step` : "",
  ]
    .filter(Boolean)
    .join("  ");
  const reason =
    release.state === "failed"
      ? (release.reason ?? "no reason recorded")
          .split("\n")
          .map((text) => `      | ${text}`)
          .join("\n")
      : "";
  return [line, `    log: ${buildLogOf(deployDir, release.id)}`, reason].filter(Boolean).join("\n");
};

/** Makes the newest good release of `commit` live, unless a deploy runs; returns the exit code. */
const rollback = async (settings: DeploySettings, commit: string): Promise<number> => {
  const good = releasesOfCommit(settings.dir, commit).filter(
    (release) => release.state === "good" && carriesItsServer(release),
  );
  const target = good[0];
  if (!target) {
    console.error(
      `No good release of ${commit} that carries its own server is kept; releases (with no option) lists those that are.`,
    );
    return 1;
  }
  if (target.live) {
    console.info(`${target.commit.slice(0, 12)} is already live.`);
    return 0;
  }
  // Not while a deploy runs: it would switch over the rollback, or remove the release being rolled back to.
  const release = await acquireDeployLock(settings.dir, undefined, false);
  if (!release) {
    console.error(
      "A deploy is running (or removing a failed release's files); roll back when it has ended: /healthz's details say \"deploying\":false.",
    );
    return 1;
  }
  try {
    makeLive(settings.dir, target.id);
  } finally {
    release();
  }
  console.info(
    `Live: ${target.commit.slice(0, 12)} (release ${target.id}). The server starts its own server within a second and then answers from it.`,
  );
  return 0;
};

const main = async (): Promise<number> => {
  const settings = readDeploySettings();
  if (!settings) {
    console.error(
      "DEPLOY_DIR is not set: give the folder the server's releases live in (docs/deploy-server.md, Releases and rollback).",
    );
    return 2;
  }
  console.info(`Releases in ${settings.dir}, branch ${settings.branch}`);

  if (options.rollback !== undefined) return rollback(settings, options.rollback);

  if (options.deploy) {
    const deployer = new Deployer({
      settings,
      log: (line) => console.info(line),
      modulesFrom: path.resolve("."),
    });
    process.once("SIGINT", () => void deployer.stop());
    const release = await deployer.deployOnce();
    if (release === null) return 0;
    if (release.state !== "good") {
      console.error(`The deploy failed; the live site is unchanged.\n${release.reason ?? ""}`);
      return 1;
    }
    return 0;
  }

  const releases = listReleases(settings.dir);
  if (releases.length === 0)
    console.info(
      "No release yet: releases --deploy builds the first (on the server: sudo cardinal-site releases --deploy).",
    );
  for (const release of releases) console.info(describe(settings.dir, release));
  return 0;
};

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error((error as Error).message);
    process.exit(1);
  },
);
