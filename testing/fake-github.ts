import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import escapeHtml from "escape-html";

/**
 * A stand-in for GitHub on loopback (GitHub itself cannot be reached from here), laid out as a GitHub
 * Enterprise Server is (web at /, REST API at /api/v3), for the jest tests of the sign-in and the browser
 * tests of the editing screen:
 * - the OAuth web flow: the authorize page an editor sees (Authorize / Cancel, back to the redirect URI
 *   with a code or access_denied and the state it was given) and the token endpoint, answering as GitHub
 *   does (a bad code or bad client credentials are a 200 with an `error` field); `mode` makes the token
 *   endpoint slow, down or broken for a test;
 * - when seeded with a repository, the REST calls Decap's github backend makes with GraphQL off
 *   (shared/research/decap-github.md, section 2), over an in-memory git object store: the user and the
 *   repository's permissions, branches and refs, trees (`branch:folder` or by sha), blobs, the commit
 *   path (blobs, trees, commits, ref updates) and the pull requests of the editorial workflow.
 * Every write is recorded; a request it has no answer for is recorded too and answered 404, so a test
 * can tell "Decap asked for something the stand-in lacks" from a real Not Found.
 */

export const FAKE_CLIENT_ID = "Iv1.fakeclientid";
export const FAKE_CLIENT_SECRET = "fake-client-secret-0123456789";
export const GOOD_CODE = "good-code-4567";
export const FAKE_TOKEN = "gho_faketoken0123456789abcdef";
/** The signed-in editor, as GET /user answers. */
const FAKE_EDITOR = { login: "site-editor", name: "Site Editor", email: "editor@example.com" } as const;

export interface SeedRepository {
  /** owner/name, as CMS_GITHUB_REPO names it. */
  readonly repo: string;
  readonly branch: string;
  /** The files of the first commit, by path in the repository. */
  readonly files: ReadonlyMap<string, Buffer>;
}

interface RecordedWrite {
  readonly method: string;
  /** Path and query below the API root, as sent (`/repos/owner/name/git/refs/heads/main`). */
  readonly path: string;
  readonly body: unknown;
}

interface FakeCommit {
  readonly sha: string;
  readonly tree: string;
  readonly parents: readonly string[];
  readonly message: string;
}

interface FakePull {
  readonly number: number;
  title: string;
  body: string;
  readonly headRef: string;
  readonly baseRef: string;
  labels: string[];
  state: "open" | "closed";
  merged: boolean;
}

export interface FakeGithub {
  readonly url: string;
  /** The REST API root, as Decap's `api_root` for this server would be. */
  readonly apiRoot: string;
  /** What each code exchange asked for, in order. */
  readonly exchanges: Record<string, unknown>[];
  /** The query of each visit to the authorize page. */
  readonly authorizations: Record<string, string>[];
  mode: "normal" | "slow" | "error500";
  /** Every API request, `METHOD path`, in order. */
  readonly requests: string[];
  readonly writes: RecordedWrite[];
  /** API requests the stand-in has no answer for. */
  readonly unanswered: string[];
  /** Branch name → commit sha. */
  readonly branches: ReadonlyMap<string, string>;
  readonly pulls: readonly FakePull[];
  readonly commit: (sha: string) => FakeCommit;
  /** The files of a commit: path → content. */
  readonly filesAt: (commitSha: string) => Map<string, Buffer>;
  readonly close: () => Promise<void>;
}

/** A seed from files of this checkout: `content/` as the site's repository holds it. */
export const seedFromFolder = (root: string, folder: string, repo: string, branch: string): SeedRepository => {
  const files = new Map<string, Buffer>();
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const child = path.posix.join(relative, entry.name);
      if (entry.isDirectory()) walk(child);
      else files.set(child, fs.readFileSync(path.join(root, child)));
    }
  };
  walk(folder);
  return { repo, branch, files };
};

/** The fields of the request bodies Decap sends (GitHub's REST API documents each). */
interface RequestBody {
  readonly content?: string;
  readonly encoding?: string;
  readonly base_tree?: string;
  readonly tree?: readonly { path: string; sha?: string | null; content?: string }[] | string;
  readonly message?: string;
  readonly parents?: readonly string[];
  readonly ref?: string;
  readonly sha?: string;
  readonly force?: boolean;
  readonly head?: string;
  readonly base?: string;
  readonly title?: string;
  readonly body?: string;
  readonly labels?: readonly (string | { name: string })[];
  readonly state?: string;
}

const sha1 = (text: string | Buffer) => createHash("sha1").update(text).digest("hex");
/** Git's own blob id, so that a sha Decap computes or compares is the one GitHub would give. */
const blobSha = (content: Buffer) => sha1(Buffer.concat([Buffer.from(`blob ${content.length}\0`), content]));

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The git objects of one repository: blobs, trees (kept flat: path → blob sha), commits and branches. */
class ObjectStore {
  readonly blobs = new Map<string, Buffer>();
  readonly trees = new Map<string, ReadonlyMap<string, string>>();
  readonly commits = new Map<string, FakeCommit & { readonly date: string }>();
  readonly branches = new Map<string, string>();

  addBlob(content: Buffer): string {
    const sha = blobSha(content);
    this.blobs.set(sha, content);
    return sha;
  }

  addTree(files: ReadonlyMap<string, string>): string {
    const sorted = [...files].sort(([a], [b]) => a.localeCompare(b));
    const sha = sha1(`tree ${JSON.stringify(sorted)}`);
    this.trees.set(sha, new Map(sorted));
    return sha;
  }

  addCommit(tree: string, parents: readonly string[], message: string): string {
    if (!this.trees.has(tree)) throw new HttpError(422, "Tree SHA does not exist");
    for (const parent of parents) if (!this.commits.has(parent)) throw new HttpError(422, "Parent SHA does not exist");
    const date = new Date().toISOString();
    const sha = sha1(`commit ${JSON.stringify([tree, parents, message, date, this.commits.size])}`);
    this.commits.set(sha, { sha, tree, parents, message, date });
    return sha;
  }

  commit(sha: string) {
    const commit = this.commits.get(sha);
    if (!commit) throw new HttpError(404, "Not Found");
    return commit;
  }

  tree(sha: string): ReadonlyMap<string, string> {
    const tree = this.trees.get(sha);
    if (!tree) throw new HttpError(404, "Not Found");
    return tree;
  }

  /** A commit by sha, branch name, or `owner:branch` (as compare names a head). */
  resolve(ref: string): string {
    const name = ref.includes(":") ? ref.slice(ref.indexOf(":") + 1) : ref;
    const branch = this.branches.get(name);
    if (branch) return branch;
    if (this.commits.has(name)) return name;
    throw new HttpError(404, "Not Found");
  }

  /** The part of a tree under `folder` ("" for the whole): its files, relative to the folder. */
  subtree(treeSha: string, folder: string): Map<string, string> | null {
    const prefix = folder === "" ? "" : `${folder.replace(/\/+$/, "")}/`;
    const files = new Map<string, string>();
    for (const [file, sha] of this.tree(treeSha))
      if (file.startsWith(prefix)) files.set(file.slice(prefix.length), sha);
    return files.size > 0 ? files : null;
  }

  ancestors(sha: string): Set<string> {
    const seen = new Set<string>();
    const stack = [sha];
    while (stack.length > 0) {
      const next = stack.pop() ?? "";
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...this.commit(next).parents);
    }
    return seen;
  }

  filesAt(commitSha: string): Map<string, Buffer> {
    const files = new Map<string, Buffer>();
    for (const [file, sha] of this.tree(this.commit(commitSha).tree))
      files.set(file, this.blobs.get(sha) ?? Buffer.alloc(0));
    return files;
  }
}

/** A tree as GitHub lists it: the entries of one folder level, or every file and folder below it (recursive). */
const treeListing = (store: ObjectStore, files: ReadonlyMap<string, string>, recursive: boolean) => {
  const entries = new Map<string, { path: string; mode: string; type: "blob" | "tree"; sha: string; size?: number }>();
  for (const [file, sha] of files) {
    const parts = file.split("/");
    for (let depth = 1; depth < parts.length; depth += 1) {
      if (!recursive && depth > 1) break;
      const folder = parts.slice(0, depth).join("/");
      if (!entries.has(folder)) {
        const below = new Map(
          [...files]
            .filter(([name]) => name.startsWith(`${folder}/`))
            .map(([name, blob]) => [name.slice(folder.length + 1), blob]),
        );
        entries.set(folder, { path: folder, mode: "040000", type: "tree", sha: store.addTree(below) });
      }
    }
    if (recursive || parts.length === 1) {
      entries.set(file, { path: file, mode: "100644", type: "blob", sha, size: store.blobs.get(sha)?.length ?? 0 });
    }
  }
  return [...entries.values()];
};

const authorPerson = (date: string) => ({ name: FAKE_EDITOR.name, email: FAKE_EDITOR.email, date });

export const startFakeGithub = async (seed?: SeedRepository): Promise<FakeGithub> => {
  const exchanges: Record<string, unknown>[] = [];
  const authorizations: Record<string, string>[] = [];
  const requests: string[] = [];
  const writes: RecordedWrite[] = [];
  const unanswered: string[] = [];
  const pulls: FakePull[] = [];
  const fake: { mode: FakeGithub["mode"] } = { mode: "normal" };
  const store = new ObjectStore();
  if (seed) {
    const files = new Map([...seed.files].map(([file, content]) => [file, store.addBlob(content)]));
    store.branches.set(seed.branch, store.addCommit(store.addTree(files), [], "Initial commit"));
  }
  const [owner, name] = (seed?.repo ?? "/").split("/") as [string, string];
  let origin = "";

  const commitJson = (sha: string) => {
    const commit = store.commit(sha);
    return {
      sha,
      url: `${origin}/api/v3/repos/${seed?.repo}/git/commits/${sha}`,
      tree: { sha: commit.tree },
      parents: commit.parents.map((parent) => ({ sha: parent })),
      message: commit.message,
      author: authorPerson(commit.date),
      committer: authorPerson(commit.date),
    };
  };
  const pullJson = (pull: FakePull) => ({
    number: pull.number,
    title: pull.title,
    body: pull.body,
    state: pull.state,
    merged_at: pull.merged ? new Date().toISOString() : null,
    updated_at: new Date().toISOString(),
    user: { login: FAKE_EDITOR.login },
    labels: pull.labels.map((label) => ({ name: label })),
    head: {
      ref: pull.headRef,
      sha: store.branches.get(pull.headRef) ?? "",
      label: `${owner}:${pull.headRef}`,
      repo: { fork: false, full_name: seed?.repo },
    },
    base: { ref: pull.baseRef, sha: store.branches.get(pull.baseRef) ?? "", repo: { full_name: seed?.repo } },
  });
  /** What changed from one commit to another, file by file, as compare lists it. */
  const changedFiles = (from: string, to: string) => {
    const before = store.tree(store.commit(from).tree);
    const after = store.tree(store.commit(to).tree);
    const names = new Set([...before.keys(), ...after.keys()]);
    return [...names]
      .filter((file) => before.get(file) !== after.get(file))
      .map((file) => ({
        filename: file,
        sha: after.get(file) ?? before.get(file),
        status: !before.has(file) ? "added" : !after.has(file) ? "removed" : "modified",
      }));
  };

  const undefinedRoute = Symbol("no such route");
  /** The REST API: a JSON answer, or an HttpError; `undefined` for no body (204). */
  const api = (method: string, url: URL, body: RequestBody): unknown => {
    const route = `${method} ${url.pathname}`;
    if (route === "GET /user") return { ...FAKE_EDITOR, id: 1, avatar_url: null };
    const userMatch = /^GET \/users\/([^/]+)$/.exec(route);
    if (userMatch) return { login: decodeURIComponent(userMatch[1] ?? ""), name: FAKE_EDITOR.name };
    if (route === "GET /search/issues") return { total_count: 0, incomplete_results: false, items: [] };
    const repoPrefix = `/repos/${owner}/${name}`;
    if (!seed || !url.pathname.startsWith(repoPrefix)) return undefinedRoute;
    const rest = url.pathname.slice(repoPrefix.length);
    const at = (pattern: RegExp, wanted: string) => (method === wanted ? pattern.exec(rest) : null);
    let match: RegExpExecArray | null;

    if (method === "GET" && rest === "") {
      return {
        name,
        full_name: seed.repo,
        owner: { login: owner },
        private: true,
        fork: false,
        default_branch: seed.branch,
        permissions: { admin: false, maintain: false, push: true, triage: true, pull: true },
      };
    }
    if ((match = at(/^\/branches\/(.+)$/, "GET"))) {
      const branch = decodeURIComponent(match[1] ?? "");
      const sha = store.branches.get(branch);
      if (!sha) throw new HttpError(404, "Branch not found");
      return { name: branch, commit: { ...commitJson(sha), commit: commitJson(sha) }, protected: false };
    }
    if ((match = at(/^\/git\/trees\/(.+)$/, "GET"))) {
      const ref = decodeURIComponent(match[1] ?? "");
      const recursive = url.searchParams.has("recursive");
      const [refName, folder] = ref.includes(":")
        ? [ref.slice(0, ref.indexOf(":")), ref.slice(ref.indexOf(":") + 1)]
        : [ref, null];
      const files =
        folder === null && store.trees.has(refName)
          ? store.tree(refName)
          : store.subtree(store.commit(store.resolve(refName)).tree, folder ?? "");
      if (!files) throw new HttpError(404, "Not Found");
      return { sha: store.addTree(files), tree: treeListing(store, files, recursive), truncated: false };
    }
    if ((match = at(/^\/git\/blobs\/([0-9a-f]{40})$/, "GET"))) {
      const content = store.blobs.get(match[1] ?? "");
      if (!content) throw new HttpError(404, "Not Found");
      return { sha: match[1], size: content.length, encoding: "base64", content: content.toString("base64") };
    }
    if (at(/^\/git\/blobs$/, "POST")) {
      const content = Buffer.from(body.content ?? "", body.encoding === "base64" ? "base64" : "utf8");
      return { sha: store.addBlob(content), url: "" };
    }
    if (at(/^\/git\/trees$/, "POST")) {
      // GitHub takes any tree-ish as the base: Decap sends the branch's commit.
      const base = body.base_tree;
      const baseTree = base === undefined ? null : store.commits.has(base) ? store.commit(base).tree : base;
      const files = new Map(baseTree === null ? [] : store.tree(baseTree));
      for (const entry of typeof body.tree === "object" ? body.tree : []) {
        if (entry.sha === null) files.delete(entry.path);
        else
          files.set(
            entry.path,
            entry.content !== undefined ? store.addBlob(Buffer.from(entry.content)) : String(entry.sha),
          );
      }
      const sha = store.addTree(files);
      return { sha, tree: treeListing(store, files, true), truncated: false };
    }
    if (at(/^\/git\/commits$/, "POST")) {
      const sha = store.addCommit(
        typeof body.tree === "string" ? body.tree : "",
        body.parents ?? [],
        body.message ?? "",
      );
      return commitJson(sha);
    }
    if ((match = at(/^\/git\/commits\/([0-9a-f]{40})$/, "GET"))) return commitJson(match[1] ?? "");
    if ((match = at(/^\/git\/refs?\/heads\/(.+)$/, "GET"))) {
      const branch = decodeURIComponent(match[1] ?? "");
      const sha = store.branches.get(branch);
      if (!sha) throw new HttpError(404, "Not Found");
      return { ref: `refs/heads/${branch}`, object: { sha, type: "commit" } };
    }
    if (at(/^\/git\/refs$/, "POST")) {
      const branch = (body.ref ?? "").replace(/^refs\/heads\//, "");
      if (store.branches.has(branch)) throw new HttpError(422, "Reference already exists");
      store.commit(body.sha ?? "");
      store.branches.set(branch, body.sha ?? "");
      return { ref: `refs/heads/${branch}`, object: { sha: body.sha, type: "commit" } };
    }
    if ((match = at(/^\/git\/refs\/heads\/(.+)$/, "PATCH"))) {
      const branch = decodeURIComponent(match[1] ?? "");
      const current = store.branches.get(branch);
      if (!current) throw new HttpError(422, "Reference does not exist");
      const next = body.sha ?? "";
      if (!store.ancestors(next).has(current) && body.force !== true)
        throw new HttpError(422, "Update is not a fast forward");
      store.branches.set(branch, next);
      return { ref: `refs/heads/${branch}`, object: { sha: next, type: "commit" } };
    }
    if ((match = at(/^\/git\/refs\/heads\/(.+)$/, "DELETE"))) {
      if (!store.branches.delete(decodeURIComponent(match[1] ?? "")))
        throw new HttpError(422, "Reference does not exist");
      return undefined;
    }
    if (at(/^\/commits$/, "GET")) {
      // The latest commit on the branch that changed the file, as Decap reads an entry's author and date.
      const file = url.searchParams.get("path") ?? "";
      let sha: string | undefined = store.resolve(url.searchParams.get("sha") ?? seed.branch);
      while (sha) {
        const commit = store.commit(sha);
        const parent = commit.parents[0];
        const blob = store.tree(commit.tree).get(file);
        if (!parent || store.tree(store.commit(parent).tree).get(file) !== blob) break;
        sha = parent;
      }
      return sha ? [{ sha, commit: commitJson(sha), author: { login: FAKE_EDITOR.login } }] : [];
    }
    if ((match = at(/^\/commits\/([^/]+)\/status$/, "GET"))) {
      return { state: "pending", sha: store.resolve(decodeURIComponent(match[1] ?? "")), statuses: [], total_count: 0 };
    }
    if ((match = at(/^\/compare\/(.+)\.\.\.(.+)$/, "GET"))) {
      const base = store.resolve(decodeURIComponent(match[1] ?? ""));
      const head = store.resolve(decodeURIComponent(match[2] ?? ""));
      // The merge base: the first commit back from the head that the base has too.
      const onBase = store.ancestors(base);
      const commits: string[] = [];
      let mergeBase = head;
      while (!onBase.has(mergeBase)) {
        commits.unshift(mergeBase);
        mergeBase = store.commit(mergeBase).parents[0] ?? "";
        if (mergeBase === "") throw new HttpError(404, "No common ancestor");
      }
      return {
        status: commits.length === 0 ? "identical" : "ahead",
        ahead_by: commits.length,
        behind_by: 0,
        base_commit: { sha: base, commit: commitJson(base) },
        merge_base_commit: { sha: mergeBase, commit: commitJson(mergeBase) },
        commits: commits.map((sha) => ({
          sha,
          commit: commitJson(sha),
          parents: store.commit(sha).parents.map((parent) => ({ sha: parent })),
        })),
        files: changedFiles(mergeBase, head),
      };
    }
    if (at(/^\/pulls$/, "GET")) {
      const head = url.searchParams.get("head");
      const base = url.searchParams.get("base");
      const state = url.searchParams.get("state") ?? "open";
      return pulls
        .filter((pull) => state === "all" || pull.state === state)
        .filter((pull) => !base || pull.baseRef === base)
        .filter((pull) => !head || `${owner}:${pull.headRef}` === head || pull.headRef === head)
        .map(pullJson);
    }
    if (at(/^\/pulls$/, "POST")) {
      const headRef = (body.head ?? "").replace(/^[^:]*:/, "");
      if (!store.branches.has(headRef)) throw new HttpError(422, "Validation Failed");
      const pull: FakePull = {
        number: pulls.length + 1,
        title: body.title ?? "",
        body: body.body ?? "",
        headRef,
        baseRef: body.base ?? seed.branch,
        labels: [],
        state: "open",
        merged: false,
      };
      pulls.push(pull);
      return pullJson(pull);
    }
    if ((match = at(/^\/issues\/(\d+)\/labels$/, "PUT"))) {
      const pull = pulls.find((one) => one.number === Number(match?.[1]));
      if (!pull) throw new HttpError(404, "Not Found");
      pull.labels = (body.labels ?? []).map((label) => (typeof label === "string" ? label : label.name));
      return pull.labels.map((label) => ({ name: label }));
    }
    if ((match = at(/^\/pulls\/(\d+)$/, "PATCH"))) {
      const pull = pulls.find((one) => one.number === Number(match?.[1]));
      if (!pull) throw new HttpError(404, "Not Found");
      if (body.state === "closed") pull.state = "closed";
      return pullJson(pull);
    }
    return undefinedRoute;
  };

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const url = new URL(request.url ?? "/", origin);
      const answer = (status: number, json: unknown, headers: Record<string, string> = {}) =>
        response
          .writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers })
          .end(JSON.stringify(json));

      if (request.method === "GET" && url.pathname === "/login/oauth/authorize") {
        const query = Object.fromEntries(url.searchParams);
        authorizations.push(query);
        const back = (params: Record<string, string>) => {
          const target = new URL(query.redirect_uri ?? "");
          for (const [key, value] of Object.entries({ ...params, state: query.state ?? "" }))
            target.searchParams.set(key, value);
          return escapeHtml(target.href);
        };
        response
          .writeHead(200, { "content-type": "text/html; charset=utf-8" })
          .end(
            [
              "<!doctype html><title>Authorize application</title>",
              `<h1>Authorize ${escapeHtml(query.client_id ?? "")}</h1>`,
              `<p>Wants access to your repositories (${escapeHtml(query.scope ?? "")}).</p>`,
              `<a href="${back({ code: GOOD_CODE })}">Authorize</a> <a href="${back({ error: "access_denied" })}">Cancel</a>`,
            ].join(""),
          );
        return;
      }

      if (request.method === "POST" && url.pathname === "/login/oauth/access_token") {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>;
        exchanges.push({ ...body, accept: request.headers.accept });
        if (fake.mode === "slow") {
          setTimeout(() => answer(200, { error: "too late" }), 5_000).unref();
          return;
        }
        if (fake.mode === "error500") return answer(500, { message: "Server Error" });
        if (body.client_id !== FAKE_CLIENT_ID || body.client_secret !== FAKE_CLIENT_SECRET) {
          return answer(200, {
            error: "incorrect_client_credentials",
            error_description: "The client_id and/or client_secret passed are incorrect.",
            error_uri:
              "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#incorrect-client-credentials",
          });
        }
        if (body.code !== GOOD_CODE) {
          return answer(200, {
            error: "bad_verification_code",
            error_description: "The code passed is incorrect or expired.",
            error_uri:
              "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#bad-verification-code",
          });
        }
        return answer(200, { access_token: FAKE_TOKEN, token_type: "bearer", scope: "repo" });
      }

      if (!url.pathname.startsWith("/api/v3/")) {
        response.writeHead(404).end();
        return;
      }
      // GitHub's answers to a browser: any origin, the headers Decap reads exposed (paging stops without Link).
      const cors = {
        "access-control-allow-origin": "*",
        "access-control-expose-headers": "ETag, Link, X-RateLimit-Reset",
      };
      if (request.method === "OPTIONS") {
        response
          .writeHead(204, {
            ...cors,
            "access-control-allow-methods": "GET, POST, PATCH, PUT, DELETE",
            "access-control-allow-headers": "Authorization, Content-Type, If-None-Match, Accept",
          })
          .end();
        return;
      }
      const method = request.method ?? "GET";
      const apiPath = `${url.pathname.slice("/api/v3".length)}${url.search}`;
      requests.push(`${method} ${apiPath}`);
      if (request.headers.authorization !== `token ${FAKE_TOKEN}`)
        return answer(401, { message: "Bad credentials" }, cors);
      const text = Buffer.concat(chunks).toString("utf8");
      const body = (text === "" ? {} : JSON.parse(text)) as RequestBody;
      if (method !== "GET") writes.push({ method, path: apiPath, body });
      try {
        const result = api(method, new URL(apiPath, origin), body);
        if (result === undefinedRoute) {
          unanswered.push(`${method} ${apiPath}`);
          return answer(404, { message: "Not Found" }, cors);
        }
        if (result === undefined) {
          response.writeHead(204, cors).end();
          return;
        }
        return answer(method === "POST" ? 201 : 200, result, cors);
      } catch (error) {
        if (error instanceof HttpError) return answer(error.status, { message: error.message }, cors);
        throw error;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return {
    url: origin,
    apiRoot: `${origin}/api/v3`,
    exchanges,
    authorizations,
    get mode() {
      return fake.mode;
    },
    set mode(value) {
      fake.mode = value;
    },
    requests,
    writes,
    unanswered,
    branches: store.branches,
    pulls,
    commit: (sha) => store.commit(sha),
    filesAt: (sha) => store.filesAt(sha),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
