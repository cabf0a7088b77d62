import { execFileSync } from "node:child_process";
import { createHmac, randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { DeploySteps } from "../../server/releases/deployer";
import type { DeploySettings } from "../../server/releases/settings";

/**
 * A repository as GitHub would hold it, on this machine: a working copy where a test commits, and a bare
 * repository it pushes to, which the deploys fetch from by a file:// URL (DEPLOY_REPOSITORY).
 */
export interface SourceRepository {
  readonly url: string;
  readonly bare: string;
  /** Commits these files (path → text) on the branch and pushes them; returns the commit's hash. */
  readonly commit: (files: Readonly<Record<string, string | null>>, message: string, branch?: string) => string;
}

const git = (cwd: string, ...args: string[]): string =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "Editor",
      GIT_AUTHOR_EMAIL: "editor@example.com",
      GIT_COMMITTER_NAME: "Editor",
      GIT_COMMITTER_EMAIL: "editor@example.com",
    },
  }).trim();

/** A new repository whose branch holds `files` in its first commit. */
export const makeSourceRepository = (files: Readonly<Record<string, string>>, branch = "main"): SourceRepository => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "deploy-source-"));
  const work = path.join(root, "work");
  const bare = path.join(root, "origin.git");
  fs.mkdirSync(work);
  git(work, "init", "--quiet", "--initial-branch", branch);
  git(root, "init", "--quiet", "--bare", "--initial-branch", branch, bare);
  git(work, "remote", "add", "origin", bare);
  /** Commits `changes` (a file's new text, or null to delete it) and pushes them; returns the commit. */
  const commit = (changes: Readonly<Record<string, string | null>>, message: string, onBranch = branch) => {
    // Before the first commit HEAD names the branch but no commit yet.
    const current = git(work, "symbolic-ref", "--short", "HEAD");
    if (current !== onBranch) {
      const exists = git(work, "branch", "--list", onBranch) !== "";
      git(work, "checkout", "--quiet", ...(exists ? [] : ["-b"]), onBranch);
    }
    for (const [file, text] of Object.entries(changes)) {
      if (text === null) {
        fs.rmSync(path.join(work, file), { force: true });
        continue;
      }
      fs.mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
      fs.writeFileSync(path.join(work, file), text);
    }
    git(work, "add", "--all");
    git(work, "commit", "--quiet", "--message", message);
    git(work, "push", "--quiet", "origin", onBranch);
    return git(work, "rev-parse", "HEAD");
  };
  commit(files, "First version");
  return { url: `file://${bare}`, bare, commit };
};

export const homeJson = (headline: string): string => `${JSON.stringify({ headline }, null, 2)}\n`;

/** The fake steps of fake-site-build.js; BUILD_RECORD (set by the test) lists each build's headline. */
export const fakeSteps = (): DeploySteps => {
  const script = path.join(__dirname, "fake-site-build.js");
  return {
    install: [process.execPath, script, "install"],
    check: [process.execPath, script, "check"],
    build: [process.execPath, script, "build"],
    // The release's stand-in server the build wrote, as the real start runs the compiled one.
    start: [process.execPath, path.join("dist", "server", "main.js")],
    ...(process.env.BUILD_RECORD ? { env: { BUILD_RECORD: process.env.BUILD_RECORD } } : {}),
  };
};

export const deploySettingsFor = (
  repository: SourceRepository,
  overrides: Partial<DeploySettings> = {},
): DeploySettings => ({
  dir: fs.mkdtempSync(path.join(os.tmpdir(), "deploy-dir-")),
  repository: repository.url,
  branch: "main",
  webhookSecret: "a webhook secret for tests, 32 or more",
  buildSocket: null,
  keep: 3,
  buildMemoryMb: 1024,
  buildTimeoutMs: 60_000,
  buildNice: 19,
  ...overrides,
});

/**
 * The headers GitHub sends with a delivery, signed as GitHub signs it (HMAC-SHA256 of the exact body). Each
 * delivery has an id of its own, as GitHub's have; a redelivery passes the first one's as `delivery`.
 */
export const githubDelivery = (
  event: string,
  body: string,
  secret: string,
  delivery: string = randomUUID(),
): Record<string, string> => ({
  "content-type": "application/json",
  "x-github-event": event,
  "x-github-delivery": delivery,
  "x-hub-signature-256": `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`,
});

/** A push of `after` to `ref`, in the shape of GitHub's example delivery with the fields a deploy reads replaced. */
export const pushBody = (example: Record<string, unknown>, ref: string, after: string, deleted = false): string =>
  JSON.stringify({ ...example, ref, after, deleted });
