import { readSetting, runtimeEnvironment, type Environment } from "../../server/settings/catalog";
import { githubApiRoot } from "../../server/sign-in/github-oauth";

/**
 * Where the editing screen on the live site reads and commits content, from the build's environment
 * (both deploys build with it): Decap's `github` backend, signed in through the site's own handshake
 * (/api/auth, server/sign-in/github-oauth.ts). Netlify's Git Gateway remains as an opt-in
 * (CMS_BACKEND=git-gateway) only because sites set up with it still run: Netlify has deprecated it and
 * Identity, and it is never the default. On an editor's own machine the screen uses decap-server
 * instead (admin.js sets `local_backend` there), whatever this says.
 */
export interface EditingBackend {
  /** Decap's `backend` block, without base_url: admin.js sets it to the origin that serves the screen. */
  readonly backend: Readonly<Record<string, unknown>>;
  /** `editorial_workflow`: each edit a branch and a pull request, published when merged. */
  readonly publish_mode?: "editorial_workflow";
  /** The origins the screen's policy must allow for this backend to be reached. */
  readonly connectOrigins: readonly string[];
  readonly scriptOrigins: readonly string[];
}

/** The build's environment by default; a test gives its own. */
export const readEditingBackend = (env: Environment = runtimeEnvironment()): EditingBackend => {
  const kind = readSetting("CMS_BACKEND", env);
  // Review before publishing is the default: the content makes compliance claims (TAA, the Berry
  // Amendment, certifications) that a second person should read before they are public.
  const workflow = readSetting("CMS_EDITORIAL_WORKFLOW", env);
  const publishMode = workflow ? { publish_mode: "editorial_workflow" as const } : {};
  const branch = readSetting("CMS_GITHUB_BRANCH", env);
  if (kind === "git-gateway") {
    return {
      backend: { name: "git-gateway", branch },
      ...publishMode,
      connectOrigins: [],
      scriptOrigins: ["https://identity.netlify.com"],
    };
  }
  const repo = readSetting("CMS_GITHUB_REPO", env) ?? "";
  const githubUrl = readSetting("CMS_GITHUB_URL", env);
  // The editing screen's live policy allows the API's origin, and names no http: source: not even the loopback
  // stand-in the sign-in's own tests may use.
  if (new URL(githubUrl).protocol !== "https:")
    throw new Error(
      `CMS_GITHUB_URL must be https://, GitHub's address or a GitHub Enterprise Server's, not ${githubUrl}`,
    );
  const apiRoot = githubApiRoot(githubUrl);
  return {
    backend: {
      name: "github",
      repo,
      branch,
      api_root: apiRoot,
      auth_endpoint: "api/auth",
      auth_scope: readSetting("CMS_GITHUB_SCOPE", env),
      // Decap's GraphQL path is wrong for GitHub Enterprise Server (shared/research/decap-github.md, 4).
      use_graphql: false,
    },
    ...publishMode,
    connectOrigins: [new URL(apiRoot).origin],
    scriptOrigins: [],
  };
};
