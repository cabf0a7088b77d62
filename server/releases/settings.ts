import path from "node:path";

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
  /** DEPLOY_WEBHOOK_SECRET: the GitHub webhook's secret; without it there is no webhook route. */
  readonly webhookSecret: string | null;
  /** DEPLOY_KEEP: good releases kept besides the live one, for rollback; older ones are removed. */
  readonly keep: number;
  /** DEPLOY_BUILD_MEMORY_MB: the build's JavaScript heap (each of Gatsby's processes). */
  readonly buildMemoryMb: number;
  /** DEPLOY_BUILD_TIMEOUT_MINUTES: a build still running after this is killed and the deploy fails. */
  readonly buildTimeoutMs: number;
  /** DEPLOY_BUILD_NICE: the build's niceness (0-19) among other idle-class work; it runs under SCHED_IDLE anyway. */
  readonly buildNice: number;
}

const wholeNumber = (env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number => {
  const text = env[name]?.trim();
  if (!text) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be a whole number from ${min} to ${max}, not ${text}`);
  }
  return value;
};

/** The settings, or null when DEPLOY_DIR is unset: the server then serves PUBLIC_DIR as it is. */
export const readDeploySettings = (env: NodeJS.ProcessEnv = process.env): DeploySettings | null => {
  const dir = env.DEPLOY_DIR?.trim();
  const secret = env.DEPLOY_WEBHOOK_SECRET?.trim() ?? "";
  if (!dir) {
    if (secret !== "") throw new Error("DEPLOY_WEBHOOK_SECRET is set but DEPLOY_DIR is not: say where releases live");
    return null;
  }
  const branchSetting = env.DEPLOY_BRANCH?.trim() ?? "";
  const branch = branchSetting === "" ? "main" : branchSetting;
  // git would take a leading dash as an option and `..` as a range; a branch name has neither.
  if (branch.startsWith("-") || branch.includes("..") || /[\s~^:?*[\\]/.test(branch)) {
    throw new Error(`DEPLOY_BRANCH is not a branch name: ${branch}`);
  }
  const repository = env.DEPLOY_REPOSITORY?.trim() ?? "";
  if (repository.startsWith("-")) throw new Error(`DEPLOY_REPOSITORY is not a repository address: ${repository}`);
  if (secret !== "" && repository === "") throw new Error("DEPLOY_WEBHOOK_SECRET is set but DEPLOY_REPOSITORY is not");
  return {
    dir: path.resolve(dir),
    repository: repository === "" ? null : repository,
    branch,
    webhookSecret: secret === "" ? null : secret,
    keep: wholeNumber(env, "DEPLOY_KEEP", 3, 1, 100),
    buildMemoryMb: wholeNumber(env, "DEPLOY_BUILD_MEMORY_MB", 3072, 512, 65_536),
    buildTimeoutMs: wholeNumber(env, "DEPLOY_BUILD_TIMEOUT_MINUTES", 20, 1, 240) * 60_000,
    buildNice: wholeNumber(env, "DEPLOY_BUILD_NICE", 19, 0, 19),
  };
};
