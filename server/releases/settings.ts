import path from "node:path";
import { readSetting, runtimeEnvironment, type Environment } from "../settings/catalog";

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

/** The settings, or null when DEPLOY_DIR is unset: the server then serves PUBLIC_DIR as it is. */
export const readDeploySettings = (env: Environment = runtimeEnvironment()): DeploySettings | null => {
  const dir = readSetting("DEPLOY_DIR", env);
  const secret = readSetting("DEPLOY_WEBHOOK_SECRET", env);
  if (dir === null) {
    if (secret !== null) throw new Error("DEPLOY_WEBHOOK_SECRET is set but DEPLOY_DIR is not: say where releases live");
    return null;
  }
  // The catalogue refuses a branch git would take as an option (a leading dash) or a range (`..`), and a
  // repository address it would take as an option.
  const branch = readSetting("DEPLOY_BRANCH", env);
  const repository = readSetting("DEPLOY_REPOSITORY", env);
  if (secret !== null && repository === null)
    throw new Error("DEPLOY_WEBHOOK_SECRET is set but DEPLOY_REPOSITORY is not");
  return {
    dir: path.resolve(dir),
    repository,
    branch,
    webhookSecret: secret,
    buildSocket: readSetting("DEPLOY_BUILD_SOCKET", env),
    keep: readSetting("DEPLOY_KEEP", env),
    buildMemoryMb: readSetting("DEPLOY_BUILD_MEMORY_MB", env),
    buildTimeoutMs: readSetting("DEPLOY_BUILD_TIMEOUT_MINUTES", env) * 60_000,
    buildNice: readSetting("DEPLOY_BUILD_NICE", env),
  };
};
