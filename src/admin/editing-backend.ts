import { readSettings, runtimeEnvironment, settingsPart, type Environment } from "../../server/settings/catalog";
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

/** What the build reads of the editing screen's settings. */
const editingSettings = settingsPart([
  "CMS_BACKEND",
  "CMS_EDITORIAL_WORKFLOW",
  "CMS_GITHUB_BRANCH",
  "CMS_GITHUB_REPO",
  "CMS_GITHUB_URL",
  "CMS_GITHUB_SCOPE",
]);

/** The build's environment by default; a test gives its own. */
export const readEditingBackend = (env: Environment = runtimeEnvironment()): EditingBackend => {
  const settings = readSettings([editingSettings], env);
  const kind = settings.CMS_BACKEND;
  // Review before publishing is the default: the content makes compliance claims (TAA, the Berry
  // Amendment, certifications) that a second person should read before they are public.
  const workflow = settings.CMS_EDITORIAL_WORKFLOW;
  const publishMode = workflow ? { publish_mode: "editorial_workflow" as const } : {};
  const branch = settings.CMS_GITHUB_BRANCH;
  if (kind === "git-gateway") {
    return {
      backend: { name: "git-gateway", branch },
      ...publishMode,
      connectOrigins: [],
      scriptOrigins: ["https://identity.netlify.com"],
    };
  }
  const repo = settings.CMS_GITHUB_REPO ?? "";
  const githubUrl = settings.CMS_GITHUB_URL;
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
      auth_scope: settings.CMS_GITHUB_SCOPE,
      // Decap's GraphQL path is wrong for GitHub Enterprise Server (shared/research/decap-github.md, 4).
      use_graphql: false,
    },
    ...publishMode,
    connectOrigins: [new URL(apiRoot).origin],
    scriptOrigins: [],
  };
};
