import path from "node:path";
import { readSettings, runtimeEnvironment, settingsPart, type Environment, type PartValues } from "../settings/catalog";

/**
 * The single server's releases: where they live, where they come from, and what a build may take. Read
 * from the environment once, by the server as it starts and by the releases command; a bad value stops
 * either with its name, never a deploy halfway.
 */
export interface DeploySettings {
  /** DEPLOY_DIR: the releases, the mirror they are fetched into and the `live` link the server serves. */
  readonly dir: string;
  /** DEPLOY_REPOSITORY: any URL git fetches from (`https://`, `ssh://`, `git@host:path`, `file://`). */
  readonly repository: string | null;
  /** DEPLOY_BRANCH: the branch whose pushes are deployed. */
  readonly branch: string;
  /**
   * DEPLOY_WEBHOOK_SECRET: the GitHub webhook's secret, of 32 characters or more (the catalogue refuses a shorter
   * one: whoever guesses it can start deploys); without it there is no webhook route.
   */
  readonly webhookSecret: string | null;
  /** DEPLOY_BUILD_SOCKET: the build unit's socket; null: the deployer's own user builds in `DEPLOY_DIR/build`. */
  readonly buildSocket: string | null;
  /** DEPLOY_KEEP: good releases kept besides the live one, for rollback; older ones are removed. */
  readonly keep: number;
  /** DEPLOY_BUILD_MEMORY_MB: the build's JavaScript heap (each of Gatsby's processes). */
  readonly buildMemoryMb: number;
  /** DEPLOY_BUILD_TIMEOUT_MINUTES: a build still running after this is killed and the deploy fails. */
  readonly buildTimeoutMs: number;
  /** DEPLOY_BUILD_NICE: the build's niceness (0-19) among other idle-class work; it runs under SCHED_IDLE anyway. */
  readonly buildNice: number;
}

/**
 * The releases' settings, and the rules between them. The catalogue refuses a branch git would take as an option
 * (a leading dash) or a range (`..`), and a repository address it would take as an option.
 */
export const deploySettings = settingsPart(
  [
    "DEPLOY_DIR",
    "DEPLOY_REPOSITORY",
    "DEPLOY_BRANCH",
    "DEPLOY_WEBHOOK_SECRET",
    "DEPLOY_BUILD_SOCKET",
    "DEPLOY_KEEP",
    "DEPLOY_BUILD_MEMORY_MB",
    "DEPLOY_BUILD_TIMEOUT_MINUTES",
    "DEPLOY_BUILD_NICE",
  ],
  {
    reads: ["DEPLOY_DIR", "DEPLOY_WEBHOOK_SECRET"],
    problem: (values) =>
      values.DEPLOY_WEBHOOK_SECRET !== null && values.DEPLOY_DIR === null
        ? "DEPLOY_WEBHOOK_SECRET is set but DEPLOY_DIR is not: say where releases live"
        : null,
  },
  {
    reads: ["DEPLOY_DIR", "DEPLOY_WEBHOOK_SECRET", "DEPLOY_REPOSITORY"],
    problem: (values) =>
      values.DEPLOY_DIR !== null && values.DEPLOY_WEBHOOK_SECRET !== null && values.DEPLOY_REPOSITORY === null
        ? "DEPLOY_WEBHOOK_SECRET is set but DEPLOY_REPOSITORY is not"
        : null,
  },
);

/** The settings, or null when DEPLOY_DIR is unset: the server then serves PUBLIC_DIR as it is. */
export const deploySettingsOf = (values: PartValues<typeof deploySettings>): DeploySettings | null =>
  values.DEPLOY_DIR === null
    ? null
    : {
        dir: path.resolve(values.DEPLOY_DIR),
        repository: values.DEPLOY_REPOSITORY,
        branch: values.DEPLOY_BRANCH,
        webhookSecret: values.DEPLOY_WEBHOOK_SECRET,
        buildSocket: values.DEPLOY_BUILD_SOCKET,
        keep: values.DEPLOY_KEEP,
        buildMemoryMb: values.DEPLOY_BUILD_MEMORY_MB,
        buildTimeoutMs: values.DEPLOY_BUILD_TIMEOUT_MINUTES * 60_000,
        buildNice: values.DEPLOY_BUILD_NICE,
      };

/** The releases' settings of an environment, for the entry points that read no others (the deployer, the command). */
export const readDeploySettings = (env: Environment = runtimeEnvironment()): DeploySettings | null =>
  deploySettingsOf(readSettings([deploySettings], env));
