/**
 * @jest-environment node
 */
/**
 * The Netlify deploy, as the adapter built it, held against the single server (server/app.ts).
 *
 * Not a *.test.ts file: a plain `jest` run would find whatever public/ holds, usually a plain build.
 * `npm run test:netlify` runs it by name right after `npm run build:netlify`, and it fails when there is
 * no Netlify build to test. Netlify's own parsers read the rules (scripts/netlify-local.ts rules), and
 * the inquiry function runs in a Node process of its own, called with Lambda events as Netlify calls
 * it (scripts/netlify-local.ts invoke), one process for all the posts: one warm instance.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { FunctionEvent, Invocation, RedirectRule, Rules, ScheduledRun } from "../scripts/netlify-local";
import { PLATFORM_DEFAULT_CACHE_CONTROL } from "../build/netlify-adapter";
import {
  builtPageFiles,
  FETCH_DIRECTIVES,
  headersForFile,
  policyDirectives,
  servedPathsOf,
} from "../build/security-headers";
import { commonHeaders } from "../server/site/common-headers";
import { pagePathOf } from "../server/site/headers-file";
import { readInquiryConfig } from "../server/inquiries/config";
import { readInquiryContent } from "../server/inquiries/content-on-disk";
import { honeypotField, idempotencyKeyField } from "../src/inquiry/protocol";
import { FAKE_CLIENT_ID, FAKE_CLIENT_SECRET, FAKE_TOKEN, GOOD_CODE, startFakeGithub } from "../testing/fake-github";
import { startInquiryApp } from "./support/inquiry-app";
import { quoteInquiry, validInquiry } from "./support/inquiry-posts";
import { storedRecordsIn } from "./support/outbox-fixtures";
import { RELEASE_PATH } from "../server/inquiries/held/release-link";
import { resultPagePolicy } from "../server/inquiries/intake/result-page";
import { startWebhookReceiver } from "../testing/loopback-servers";
import { migrateAsNetlifyDoes, onPostgres, startPostgres, type TestPostgres } from "../testing/postgres";

const root = path.resolve(__dirname, "..");
const publicDir = path.join(root, "public");
const functionsDir = path.join(root, ".netlify/functions-internal");
const ADAPTER_MARK = "# gatsby-adapter-netlify start";
const IMMUTABLE = "public, max-age=31536000, immutable";

/** Stops every test with the reason when the files under test are not a Netlify build. */
const requireNetlifyBuild = () => {
  const missing = [
    existsSync(functionsDir) ? null : ".netlify/functions-internal/",
    existsSync(path.join(publicDir, "_redirects")) ? null : "public/_redirects",
    existsSync(path.join(publicDir, "_headers")) &&
    readFileSync(path.join(publicDir, "_headers"), "utf8").includes(ADAPTER_MARK)
      ? null
      : "the adapter's rules in public/_headers",
  ].filter((item) => item !== null);
  if (missing.length > 0) {
    throw new Error(`No Netlify build to test (missing ${missing.join(", ")}): run npm run build:netlify first.`);
  }
};

/** scripts/netlify-local.ts's command line, with only what a function on Netlify would have in its environment. */
const localCommand = (args: readonly string[], env: NodeJS.ProcessEnv = {}) => ({
  argv: ["--import", "tsx", path.join(root, "scripts/netlify-local.ts"), ...args],
  options: { cwd: root, env: { PATH: process.env.PATH, ...env } },
});

/**
 * As runLocal, but without blocking this process, for a command whose function calls a stand-in that runs here
 * (a webhook receiver, GitHub's).
 */
const runLocalAsync = (args: readonly string[], options: { input?: string; env?: NodeJS.ProcessEnv } = {}) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const command = localCommand(args, options.env);
    const child = spawn(process.execPath, command.argv, { ...command.options, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.once("error", reject);
    child.once("close", (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(options.input ?? "");
  });

const runLocal = (args: readonly string[], options: { input?: string; env?: NodeJS.ProcessEnv } = {}) => {
  const command = localCommand(args, options.env);
  const result = spawnSync(process.execPath, command.argv, {
    ...command.options,
    input: options.input,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
};

const content = readInquiryContent(path.join(root, "content"));
const rateLimit = { requests: 3, windowSeconds: 600 };
const siteEnv: NodeJS.ProcessEnv = {
  INQUIRY_RATE_LIMIT_REQUESTS: String(rateLimit.requests),
  INQUIRY_RATE_LIMIT_WINDOW_SECONDS: String(rateLimit.windowSeconds),
  INQUIRY_CLIENT_IP_HEADER: "x-nf-client-connection-ip",
};
const inquiryEnv = (dataDir: string): NodeJS.ProcessEnv => ({ INQUIRY_DATA_DIR: dataDir, ...siteEnv });
/**
 * What a function has in its environment on Netlify with Netlify Database: NETLIFY_DB_URL, which Netlify
 * sets, and the site's settings; no INQUIRY_OUTBOX (where NETLIFY_DB_URL is set, the database is the
 * default) and no data folder.
 */
const databaseEnv = (databaseUrl: string): NodeJS.ProcessEnv => ({ ...siteEnv, NETLIFY_DB_URL: databaseUrl });

/**
 * A new database for Netlify Database on a local Postgres, migrated from netlify/database/migrations/ as
 * Netlify's deploy migrates it (the functions run no migration there): its connection string.
 */
const netlifyDatabase = async (postgres: TestPostgres): Promise<string> => {
  const url = await postgres.database();
  await migrateAsNetlifyDoes(url);
  return url;
};

// ---- the rules, as Netlify reads them ----

const builtFiles = (): string[] =>
  readdirSync(publicDir, { recursive: true, encoding: "utf8" })
    .map((file) => file.split(path.sep).join("/"))
    .filter((file) => statSync(path.join(publicDir, file)).isFile())
    .filter((file) => file !== "_headers" && file !== "_redirects")
    .sort();

const builtPages = () => builtPageFiles(publicDir);

/** Every header the rules give a path, by lower-case name, with one value per rule that sets it. */
const headersAt = (rules: Rules, urlPath: string): Map<string, string[]> => {
  const found = new Map<string, string[]>();
  for (const rule of rules.headers.filter(({ pattern }) => new RegExp(pattern).test(urlPath))) {
    for (const [name, value] of Object.entries(rule.values)) {
      found.set(name.toLowerCase(), [...(found.get(name.toLowerCase()) ?? []), value]);
    }
  }
  return found;
};

/** Whether a redirect rule's `from` matches a path the way Netlify matches it (trailing slash optional). */
const redirectMatches = (rule: RedirectRule, urlPath: string): boolean => {
  const strip = (value: string) => (value.length > 1 ? value.replace(/\/+$/, "") : value);
  if (rule.from.endsWith("/*"))
    return urlPath.startsWith(rule.from.slice(0, -1)) || strip(urlPath) === rule.from.slice(0, -2);
  if (rule.from.includes(":") || rule.from.includes("*"))
    return new RegExp(`^${rule.from.replace(/:[^/]+/g, "[^/]+")}/?$`).test(urlPath);
  return strip(rule.from) === strip(urlPath);
};

/** A policy's sources for a directive: undefined where the policy does not restrict it. */
const sourcesOf = (policy: string, directive: string): string[] | undefined => {
  const directives = policyDirectives(policy);
  return directives.get(directive) ?? (FETCH_DIRECTIVES.has(directive) ? directives.get("default-src") : undefined);
};

/**
 * Whether `wide` allows everything `narrow` does, so that a response carrying both policies (a browser
 * enforces each) is held to `narrow` alone.
 */
const allowsAllOf = (wide: string, narrow: string): boolean => {
  const names = [wide, narrow].flatMap((policy) => policy.split(";").map((part) => part.trim().split(/\s+/)[0] ?? ""));
  return names.every((directive) => {
    const wideSources = sourcesOf(wide, directive);
    if (wideSources === undefined) return true;
    const narrowSources = sourcesOf(narrow, directive);
    return narrowSources?.every((source) => wideSources.includes(source)) === true;
  });
};

// ---- the posts, sent to both ----

interface Post {
  readonly client: string;
  readonly method?: string;
  readonly contentType?: string;
  readonly body?: string;
  readonly site?: "same-origin" | "cross-site";
}

const json = (value: unknown) => ({ contentType: "application/json", body: JSON.stringify(value) });
const form = (value: Record<string, string | number | readonly string[]>) => {
  const params = new URLSearchParams();
  for (const [name, item] of Object.entries(value)) {
    for (const one of typeof item === "object" ? item : [String(item)]) params.append(name, one);
  }
  return { contentType: "application/x-www-form-urlencoded", body: params.toString() };
};

const idempotencyKey = "netlify-output-0123456789";
const cases: readonly (readonly [string, readonly Post[]])[] = [
  ["valid JSON", [{ client: "192.0.2.11", ...json(validInquiry) }]],
  ["valid urlencoded (the form without JavaScript)", [{ client: "192.0.2.12", ...form(quoteInquiry) }]],
  [
    "oversize JSON",
    [
      {
        client: "192.0.2.13",
        ...json({ ...validInquiry, message: "x".repeat(content.form.delivery.maxBodyKilobytes * 1024) }),
      },
    ],
  ],
  ["a GET", [{ client: "192.0.2.14", method: "GET" }]],
  ["a cross-site JSON post", [{ client: "192.0.2.15", site: "cross-site", ...json(validInquiry) }]],
  ["a cross-site form post", [{ client: "192.0.2.16", site: "cross-site", ...form(quoteInquiry) }]],
  ["malformed JSON", [{ client: "192.0.2.17", contentType: "application/json", body: '{"fullName": "Pat' }]],
  ["invalid fields, JSON", [{ client: "192.0.2.18", ...json({ ...validInquiry, email: "not an address" }) }]],
  ["invalid fields, urlencoded", [{ client: "192.0.2.19", ...form({ ...quoteInquiry, email: "not an address" }) }]],
  ["a type it does not take (text/plain)", [{ client: "192.0.2.20", contentType: "text/plain", body: "hello" }]],
  [
    "the honeypot filled",
    [{ client: "192.0.2.21", ...json({ ...validInquiry, [honeypotField]: "https://spam.example" }) }],
  ],
  [
    "one inquiry sent twice with its idempotency key",
    [1, 2].map(() => ({ client: "192.0.2.22", ...json({ ...validInquiry, [idempotencyKeyField]: idempotencyKey }) })),
  ],
  [
    `${rateLimit.requests + 1} posts from one visitor`,
    Array.from({ length: rateLimit.requests + 1 }, (_, index) => ({
      client: "192.0.2.30",
      ...json({ ...validInquiry, message: `Inquiry number ${index + 1} about forty duty shirts.` }),
    })),
  ],
];

const eventOf = (post: Post): FunctionEvent => {
  const headers: Record<string, string> = {
    host: "site.example",
    "x-nf-client-connection-ip": post.client,
    "x-forwarded-for": post.client,
    "sec-fetch-site": post.site ?? "same-origin",
    ...(post.contentType ? { "content-type": post.contentType } : {}),
    ...(post.body === undefined ? {} : { "content-length": String(Buffer.byteLength(post.body)) }),
  };
  return {
    path: "/api/inquiry",
    rawUrl: "https://site.example/api/inquiry",
    httpMethod: post.method ?? "POST",
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: {},
    multiValueQueryStringParameters: {},
    body: post.body ?? null,
    isBase64Encoded: false,
  };
};

interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

const REFERENCE = /\b[A-Z]{2,5}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}\b/g;

/** What must be the same on both: the status, the headers that say what the answer is, the body. */
const comparable = (answer: Answer) => {
  const retryAfter = answer.headers["retry-after"];
  // Each counts its own window from the first post; the two may be a second apart.
  const seconds = (value: string | undefined) =>
    value !== undefined && Number(value) > rateLimit.windowSeconds - 60 && Number(value) <= rateLimit.windowSeconds
      ? "<seconds>"
      : value;
  return {
    status: answer.status,
    "content-type": answer.headers["content-type"],
    "cache-control": answer.headers["cache-control"],
    allow: answer.headers.allow,
    "retry-after": seconds(retryAfter),
    "content-security-policy": answer.headers["content-security-policy"],
    body: answer.body
      .replace(REFERENCE, "<reference>")
      .replace(
        /"retryAfterSeconds":(\d+)/,
        (_match, value: string) => `"retryAfterSeconds":"${seconds(value) ?? value}"`,
      ),
  };
};

/** A stored inquiry as both must keep it: without the time it arrived, references as `<reference>`. */
const comparableRecord = (stored: unknown): Record<string, unknown> => {
  const { receivedAt: _receivedAt, ...record } = JSON.parse(
    JSON.stringify(stored).replace(REFERENCE, "<reference>"),
  ) as Record<string, unknown>;
  return record;
};

const storedRecords = (dataDir: string): Record<string, unknown>[] => storedRecordsIn(dataDir).map(comparableRecord);

/** The inquiries a Postgres holds, oldest first, read straight from it as another program would. */
const recordsInDatabase = async (url: string): Promise<Record<string, unknown>[]> =>
  (await onPostgres<{ record: string }>(url, "SELECT record FROM inquiries ORDER BY position")).map(({ record }) =>
    comparableRecord(JSON.parse(record)),
  );

// ---- the run ----

/** The function netlify.toml routes a path to (`/api/inquiry` → src/api/inquiry.ts's), as Netlify reads the rule. */
const functionRoutedFrom = (from: string): string => {
  const rule = rules.redirects.find(
    (candidate) => candidate.from === from && candidate.to.startsWith("/.netlify/functions/"),
  );
  const name = rule?.to.slice("/.netlify/functions/".length) ?? "";
  if (!existsSync(path.join(functionsDir, name, `${name}.js`))) {
    throw new Error(`netlify.toml routes ${from} to no function the adapter built (${name || "no rule"})`);
  }
  return name;
};
const functionNameOf = (): string => functionRoutedFrom("/api/inquiry");
/** The site's function routes: each in netlify.toml, with the same rate limit counted across instances. */
const FUNCTION_ROUTES = ["/api/inquiry", "/api/inquiry-release", "/api/auth", "/api/auth/callback"];

let rules: Rules;
let server: Awaited<ReturnType<typeof startInquiryApp>>;
let serverData: string;
let functionData: string;
const serverAnswers = new Map<string, Answer[]>();
const functionAnswers = new Map<string, Answer[]>();
let functionLog = "";

const get = async (urlPath: string) => {
  const response = await fetch(`${server.origin}${urlPath}`, { redirect: "manual" });
  return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
};

beforeAll(async () => {
  requireNetlifyBuild();
  const read = runLocal(["rules"]);
  if (read.status !== 0) throw new Error(`scripts/netlify-local.ts rules failed:\n${read.stderr}`);
  rules = JSON.parse(read.stdout) as Rules;

  serverData = mkdtempSync(path.join(tmpdir(), "netlify-output-server-"));
  functionData = mkdtempSync(path.join(tmpdir(), "netlify-output-function-"));
  server = await startInquiryApp({
    publicDir,
    content,
    config: () => readInquiryConfig(content.form.delivery, inquiryEnv(serverData)),
    // The visitor's address comes from X-Forwarded-For, as behind one proxy, so each case is its own visitor.
    trustProxy: 1,
    log: () => undefined,
  });
  for (const [name, posts] of cases) {
    const answers: Answer[] = [];
    for (const post of posts) {
      const response = await fetch(server.url, {
        method: post.method ?? "POST",
        headers: {
          "x-forwarded-for": post.client,
          "sec-fetch-site": post.site ?? "same-origin",
          ...(post.contentType ? { "content-type": post.contentType } : {}),
        },
        body: post.body,
      });
      answers.push({
        status: response.status,
        headers: Object.fromEntries(response.headers),
        body: await response.text(),
      });
    }
    serverAnswers.set(name, answers);
  }

  const functionName = functionNameOf();
  const events = cases.flatMap(([, posts]) => posts.map(eventOf));
  const run = runLocal(["invoke", functionName], { input: JSON.stringify(events), env: inquiryEnv(functionData) });
  functionLog = run.stderr;
  if (run.status !== 0) throw new Error(`The function failed:\n${run.stderr}`);
  const answers = (JSON.parse(run.stdout) as Invocation).answers.map((answer): Answer => ({
    status: answer.statusCode,
    headers: answer.headers,
    body: answer.body,
  }));
  for (const [name, posts] of cases) functionAnswers.set(name, answers.splice(0, posts.length));
}, 120_000);

afterAll(async () => {
  await server.close();
  rmSync(serverData, { recursive: true, force: true });
  rmSync(functionData, { recursive: true, force: true });
});

describe("the Netlify build's rules, as Netlify reads them", () => {
  it("are read by Netlify's own parsers without an error", () => {
    expect(rules.errors).toEqual([]);
    expect(rules.headers.length).toBeGreaterThan(0);
  });

  it("give every page the site's security headers and its own (its Content-Security-Policy; the editing screen's opener policy), each once, as the single server sends them", async () => {
    const pages = builtPages();
    expect(pages.length).toBeGreaterThan(10);
    const urlPaths = pages.flatMap((file) => servedPathsOf(file).map((urlPath) => ({ file, urlPath })));
    for (const { file, urlPath } of urlPaths) {
      const headers = headersAt(rules, urlPath);
      const pageHeaders = headersForFile(file, readFileSync(path.join(publicDir, file), "utf8"));
      const ownPolicy = pageHeaders["Content-Security-Policy"] ?? "";
      // Two rules give a page a policy: "/*" (for the paths no page answers) and the page's own, after it.
      // Netlify's own emulation (@netlify/headers, netlify dev) lets the later rule's value replace the
      // earlier one's; should the platform send both instead, a browser enforces both, and "/*"'s allows
      // everything every page's does, so the page is held to its own policy either way.
      const policies = headers.get("content-security-policy") ?? [];
      expect([urlPath, policies.at(-1)]).toEqual([urlPath, ownPolicy]);
      for (const policy of policies) expect([urlPath, allowsAllOf(policy, ownPolicy)]).toEqual([urlPath, true]);
      const repeated = [...headers]
        .filter(([name, values]) => values.length > 1 && name !== "content-security-policy")
        .map(([name]) => name);
      expect([urlPath, repeated]).toEqual([urlPath, []]);
      // No opener policy unless the page's own rule has one (the editing screen's).
      const expected = Object.fromEntries(
        Object.entries({ "Cross-Origin-Opener-Policy": undefined, ...commonHeaders, ...pageHeaders }).map(
          ([name, value]) => [name.toLowerCase(), value],
        ),
      );
      const onNetlify = Object.fromEntries(Object.keys(expected).map((name) => [name, headers.get(name)?.at(-1)]));
      expect([urlPath, onNetlify]).toEqual([urlPath, expected]);

      const served = await get(urlPath);
      const fromServer = Object.fromEntries(
        Object.keys(expected).map((name) => [name, served.headers.get(name) ?? undefined]),
      );
      expect([urlPath, served.status, fromServer]).toEqual([urlPath, 200, expected]);
    }
    console.info(
      `${pages.length} pages: security headers and their own Content-Security-Policy once each, the same as the single server's`,
    );
  });

  it("cache this build's scripts, stylesheets and /static/ for a year and revalidate pages, one Cache-Control per file, as the single server does", async () => {
    const stats = JSON.parse(readFileSync(path.join(publicDir, "webpack.stats.json"), "utf8")) as {
      assetsByChunkName: Record<string, string[]>;
    };
    const assets = new Set(Object.values(stats.assetsByChunkName).flat());
    const cacheControl = new Map<string, { onNetlify: string; fromServer: string | null }>();
    for (const file of builtFiles()) {
      const urlPath = `/${file}`;
      const values = headersAt(rules, urlPath).get("cache-control") ?? [];
      expect([urlPath, values.length <= 1]).toEqual([urlPath, true]);
      const fromServer = (await get(urlPath)).headers.get("cache-control");
      cacheControl.set(file, { onNetlify: values[0] ?? PLATFORM_DEFAULT_CACHE_CONTROL, fromServer });
    }
    const immutable = (file: string) => cacheControl.get(file)?.onNetlify === IMMUTABLE;
    const both = (file: string) => [file, cacheControl.get(file)?.onNetlify, cacheControl.get(file)?.fromServer];

    expect(assets.size).toBeGreaterThan(5);
    for (const file of [...assets].filter((asset) => cacheControl.has(asset)))
      expect(both(file)).toEqual([file, IMMUTABLE, IMMUTABLE]);
    expect([...assets].filter((asset) => !cacheControl.has(asset))).toEqual([]);
    for (const file of [...cacheControl.keys()].filter((name) => name.startsWith("static/")))
      expect(both(file)).toEqual([file, IMMUTABLE, IMMUTABLE]);
    for (const file of [...cacheControl.keys()].filter(
      (name) => name.endsWith(".html") || name.startsWith("page-data/"),
    )) {
      expect(both(file)).toEqual([file, PLATFORM_DEFAULT_CACHE_CONTROL, PLATFORM_DEFAULT_CACHE_CONTROL]);
    }
    // Kept for a year on Netlify only: the source maps and licence notes of this build's scripts, whose
    // names change with the script's content as the script's own name does.
    const onlyOnNetlify = [...cacheControl].filter(
      ([, { onNetlify, fromServer }]) => onNetlify === IMMUTABLE && fromServer !== IMMUTABLE,
    );
    for (const [file] of onlyOnNetlify)
      expect([file, assets.has(file.replace(/\.(map|LICENSE\.txt)$/, ""))]).toEqual([file, true]);
    // Scripts of earlier builds still in public/ (a build adds to the folder): the adapter gives them no
    // rule, so Netlify revalidates them; they are not part of this build's pages.
    const earlier = [...cacheControl]
      .filter(([file, { fromServer }]) => fromServer === IMMUTABLE && !immutable(file))
      .map(([file]) => file);
    for (const file of earlier) expect([file, assets.has(file)]).toEqual([file, false]);
    console.info(
      `Cache-Control: ${[...cacheControl.keys()].filter(immutable).length} of ${cacheControl.size} files in public/ immutable for a year on Netlify, ` +
        `the same files as on the single server but for ${onlyOnNetlify.length} source maps and licence notes it revalidates; ` +
        `${earlier.length} scripts of earlier builds revalidated on Netlify; every page and page-data file revalidated on both`,
    );
  });

  it("leave an unknown path to public/404.html with status 404, as the single server answers it", async () => {
    const unknown = "/no-such-page/";
    expect(existsSync(path.join(publicDir, "404.html"))).toBe(true);
    // Netlify answers a path no file and no rule serves with 404.html and status 404.
    expect(rules.redirects.filter((rule) => redirectMatches(rule, unknown))).toEqual([]);
    const headers = headersAt(rules, unknown);
    for (const [name, value] of Object.entries(commonHeaders)) expect(headers.get(name.toLowerCase())).toEqual([value]);
    // Netlify gives the answer the rules of the path asked for, not those of 404.html: one of them must
    // carry a policy under which the 404 page's own scripts run, and only those a page of the site has.
    const notFoundPolicy = headersForFile("404.html", readFileSync(path.join(publicDir, "404.html"), "utf8"))[
      "Content-Security-Policy"
    ];
    const policies = headers.get("content-security-policy") ?? [];
    expect(policies).toHaveLength(1);
    const [policy = ""] = policies;
    expect(allowsAllOf(policy, notFoundPolicy ?? "")).toBe(true);
    expect(sourcesOf(policy, "script-src")).not.toContain("'unsafe-inline'");
    expect(sourcesOf(policy, "object-src")).toEqual([]);
    expect(sourcesOf(policy, "frame-ancestors")).toEqual([]);
    const served = await get(unknown);
    expect(served.status).toBe(404);
    expect(served.body.equals(readFileSync(path.join(publicDir, "404.html")))).toBe(true);
    expect(served.headers.get("content-security-policy")).toBe(notFoundPolicy);
  });

  it("route /api/inquiry, /api/auth and /api/auth/callback, and only those, to the functions the adapter built, each with a rate limit counted across instances", () => {
    const routes = rules.redirects.filter((rule) => rule.to.startsWith("/.netlify/functions/"));
    expect(routes.map(({ from, status }) => ({ from, status }))).toEqual(
      FUNCTION_ROUTES.map((from) => ({ from, status: 200 })),
    );
    const names = FUNCTION_ROUTES.map(functionRoutedFrom);
    expect(readdirSync(functionsDir).sort()).toEqual([...names].sort());
    for (const route of routes) {
      expect([route.from, route.rate_limit]).toEqual([
        route.from,
        { window_limit: 10, window_size: 60, aggregate_by: ["ip", "domain"] },
      ]);
    }
    // netlify.toml's rules are read after public/_redirects: nothing there may match an endpoint first.
    expect(readFileSync(path.join(publicDir, "_redirects"), "utf8")).not.toMatch(/\/api\//);
    const pagesRedirected = builtPages().filter((file) =>
      rules.redirects.some((rule) => redirectMatches(rule, pagePathOf(file))),
    );
    expect(pagesRedirected).toEqual([]);
  });
});

describe("/api/inquiry as the function Netlify runs", () => {
  afterAll(() => {
    const table = cases.map(([name]) => {
      const statuses = (answers: Answer[] | undefined) => (answers ?? []).map((answer) => answer.status).join(" ");
      return `  ${name}: function ${statuses(functionAnswers.get(name))}, single server ${statuses(serverAnswers.get(name))}`;
    });
    console.info(
      [
        "The function's answers (one warm instance), against the single server's:",
        ...table,
        "The function's answers in full:",
        ...cases.flatMap(([name]) =>
          (functionAnswers.get(name) ?? []).map(
            (answer) =>
              `  ${name}: ${answer.status} ${answer.headers["content-type"] ?? ""} ${answer.body.slice(0, 160)}`,
          ),
        ),
        "The function's log:",
        functionLog.trim(),
        `Stored by the function (${storedRecords(functionData).length}):`,
        ...storedRecords(functionData).map((record) => `  ${JSON.stringify(record)}`),
      ].join("\n"),
    );
  });

  it.each(cases.map(([name]) => [name]))("answers %s as the single server does", (name) => {
    const fromFunction = (functionAnswers.get(name) ?? []).map(comparable);
    const fromServer = (serverAnswers.get(name) ?? []).map(comparable);
    expect(fromFunction.length).toBeGreaterThan(0);
    expect(fromFunction).toEqual(fromServer);
  });

  it("stores the same records as the single server, each inquiry once", () => {
    const fromFunction = storedRecords(functionData);
    expect(fromFunction).toEqual(storedRecords(serverData));
    // The valid posts, the quarantined one, one for the repeated key, and the posts within the limit.
    expect(fromFunction).toHaveLength(2 + 1 + 1 + rateLimit.requests);
    expect(fromFunction.filter((record) => "quarantine" in record)).toHaveLength(1);
  });

  it("refuses a post to the function's own address, which no rule (and so no rate limit) can cover", () => {
    const name = functionNameOf();
    // Netlify's own parser refuses any redirect rule from /.netlify/, so the limit netlify.toml puts on
    // /api/inquiry cannot be put on /.netlify/functions/<name>, which Netlify serves as well.
    const parse = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { parseAllRedirects } from "@netlify/redirect-parser";
         const { redirects, errors } = await parseAllRedirects({ redirectsFiles: [], netlifyConfigPath: undefined,
           configRedirects: [{ from: "/.netlify/functions/${name}", to: "/.netlify/functions/${name}", status: 200,
             rate_limit: { window_limit: 10, window_size: 60, aggregate_by: ["ip", "domain"] } }], minimal: true });
         process.stdout.write(JSON.stringify({ redirects, errors: errors.map((error) => error.message) }));`,
      ],
      { cwd: root, encoding: "utf8" },
    );
    expect(parse.status).toBe(0);
    expect(JSON.parse(parse.stdout)).toEqual({ redirects: [], errors: [expect.stringMatching(/\/\.netlify/)] });

    // Netlify gives a function the path the visitor asked for (event.path): /api/inquiry through the rule,
    // its own address when called there.
    const dataDir = mkdtempSync(path.join(tmpdir(), "netlify-output-direct-"));
    const post = { client: "192.0.2.40", ...json(validInquiry) };
    const direct = [`/.netlify/functions/${name}`, `/.netlify/functions/${name}/`, `/.netlify/functions/${name}/x`];
    const events = [...direct, "/api/inquiry"].map((urlPath): FunctionEvent => ({
      ...eventOf(post),
      path: urlPath,
      rawUrl: `https://site.example${urlPath}`,
    }));
    const run = runLocal(["invoke", name], { input: JSON.stringify(events), env: inquiryEnv(dataDir) });
    const stored = storedRecords(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
    expect([run.status, run.status === 0 ? "" : run.stderr.split("\n").slice(0, 6).join("\n")]).toEqual([0, ""]);
    const answers = (JSON.parse(run.stdout) as Invocation).answers;
    for (const [index, answer] of answers.slice(0, direct.length).entries()) {
      expect([direct[index], answer.statusCode, answer.headers["cache-control"], answer.body]).toEqual([
        direct[index],
        404,
        "no-store",
        JSON.stringify({ error: "Not found." }),
      ]);
      for (const [header, value] of Object.entries(commonHeaders))
        expect([direct[index], header, answer.headers[header.toLowerCase()]]).toEqual([direct[index], header, value]);
    }
    // The same post through the rule is taken, once: the refusals stored nothing.
    expect(answers.at(-1)?.statusCode).toBe(201);
    expect(stored).toHaveLength(1);
  });

  it("answers where no header names the visitor's address, as the single server does", () => {
    // INQUIRY_CLIENT_IP_HEADER left unset, as an operator may: the function then counts each visitor by
    // Netlify's own header, as the single server counts them by their address, so every post, the rate
    // limit's included, is answered the same.
    const dataDir = mkdtempSync(path.join(tmpdir(), "netlify-output-no-address-"));
    const { INQUIRY_CLIENT_IP_HEADER: _unset, ...env } = inquiryEnv(dataDir);
    const events = cases.flatMap(([, posts]) => posts.map(eventOf));
    const run = runLocal(["invoke", functionNameOf()], { input: JSON.stringify(events), env });
    rmSync(dataDir, { recursive: true, force: true });
    const answers = run.status === 0 ? (JSON.parse(run.stdout) as Invocation).answers : [];
    expect([run.status, run.status === 0 ? "" : run.stderr.split("\n").slice(0, 6).join("\n")]).toEqual([0, ""]);
    expect(
      answers.map((answer) => comparable({ status: answer.statusCode, headers: answer.headers, body: answer.body })),
    ).toEqual(cases.flatMap(([name]) => (serverAnswers.get(name) ?? []).map(comparable)));
  });

  it("carries the site's security headers on every answer, as the single server does", () => {
    for (const [name] of cases) {
      for (const [index, answer] of (functionAnswers.get(name) ?? []).entries()) {
        const security = Object.fromEntries(
          Object.keys(commonHeaders).map((header) => [header, answer.headers[header.toLowerCase()]]),
        );
        expect([name, index, security]).toEqual([name, index, commonHeaders]);
      }
    }
  });
});

describe("/api/inquiry as the function Netlify runs, with Netlify Database", () => {
  let postgres: TestPostgres;
  let invocation: Invocation;
  let inDatabase: Record<string, unknown>[];
  let log = "";

  beforeAll(async () => {
    // A local Postgres in Netlify Database's place, reached through NETLIFY_DB_URL as Netlify gives it; no network.
    postgres = await startPostgres();
    const url = await netlifyDatabase(postgres);
    const events = cases.flatMap(([, posts]) => posts.map(eventOf));
    const run = runLocal(["invoke", functionNameOf()], { input: JSON.stringify(events), env: databaseEnv(url) });
    log = run.stderr;
    if (run.status !== 0) throw new Error(`The function failed:\n${run.stderr}`);
    invocation = JSON.parse(run.stdout) as Invocation;
    inDatabase = await recordsInDatabase(url);
  }, 120_000);

  afterAll(async () => {
    await postgres.stop();
    console.info(
      [
        `With Netlify Database: ${invocation.answers.map((answer) => answer.statusCode).join(" ")}`,
        `The database held ${inDatabase.length} inquiries`,
        "The function's log:",
        log.trim(),
      ].join("\n"),
    );
  });

  it("answers every post as it does with the file outbox", () => {
    const withFiles = cases.flatMap(([name]) => (functionAnswers.get(name) ?? []).map(comparable));
    const withDatabase = invocation.answers.map((answer) =>
      comparable({ status: answer.statusCode, headers: answer.headers, body: answer.body }),
    );
    expect(withDatabase.length).toBe(withFiles.length);
    expect(withDatabase).toEqual(withFiles);
  });

  it("keeps in the database the inquiries the single server keeps in its outbox, each once", () => {
    const inOutbox = storedRecords(serverData);
    expect(inDatabase.length).toBe(inOutbox.length);
    // The same records, in the order they arrived (one row per inquiry, its reference unique).
    expect(inDatabase).toEqual(inOutbox);
  });
});

describe("/api/auth and /api/auth/callback as the functions Netlify runs", () => {
  /** A GET as Netlify gives it to a function: the visitor's path, Netlify's headers, HTTPS. */
  const getEvent = (urlPath: string, headers: Record<string, string> = {}): FunctionEvent => {
    const url = new URL(urlPath, "https://site.example");
    const all = {
      host: "site.example",
      "x-forwarded-proto": "https",
      "x-nf-client-connection-ip": "192.0.2.60",
      ...headers,
    };
    return {
      path: url.pathname,
      rawUrl: url.href,
      httpMethod: "GET",
      headers: all,
      multiValueHeaders: Object.fromEntries(Object.entries(all).map(([name, value]) => [name, [value]])),
      queryStringParameters: Object.fromEntries(url.searchParams),
      multiValueQueryStringParameters: Object.fromEntries(
        [...url.searchParams.keys()].map((key) => [key, url.searchParams.getAll(key)]),
      ),
      body: null,
      isBase64Encoded: false,
    };
  };
  // Without blocking this process (the GitHub stand-in the function calls runs here), and with a local Blobs
  // store in every event, as Netlify gives one: the callback records spent states in it.
  const invoke = async (from: string, events: readonly FunctionEvent[], env: NodeJS.ProcessEnv) => {
    const { status, stdout, stderr } = await runLocalAsync(["invoke", functionRoutedFrom(from), "--blobs"], {
      input: JSON.stringify(events),
      env,
    });
    if (status !== 0) throw new Error(`The function failed:\n${stderr}`);
    const { answers, stored } = JSON.parse(stdout) as Invocation;
    return { answers, stored, log: stderr };
  };

  it("run the same handshake as the single server, against a stand-in of GitHub, and refuse their own addresses", async () => {
    const github = await startFakeGithub();
    try {
      const env = {
        CMS_GITHUB_CLIENT_ID: FAKE_CLIENT_ID,
        CMS_GITHUB_CLIENT_SECRET: FAKE_CLIENT_SECRET,
        CMS_GITHUB_URL: github.url,
        CMS_GITHUB_SCOPE: "public_repo",
      };
      const beginName = functionRoutedFrom("/api/auth");
      const begun = await invoke(
        "/api/auth",
        [
          getEvent("/api/auth?provider=github&site_id=site.example&scope=repo"),
          getEvent(`/.netlify/functions/${beginName}`),
        ],
        env,
      );
      const [redirect, direct] = begun.answers;
      expect(redirect?.statusCode).toBe(302);
      const location = new URL(redirect?.headers.location ?? "");
      expect(`${location.origin}${location.pathname}`).toBe(`${github.url}/login/oauth/authorize`);
      expect(location.searchParams.get("client_id")).toBe(FAKE_CLIENT_ID);
      expect(location.searchParams.get("redirect_uri")).toBe("https://site.example/api/auth/callback");
      expect(location.searchParams.get("scope")).toBe("public_repo");
      const cookie = redirect?.headers["set-cookie"] ?? "";
      expect(cookie).toMatch(
        /^cms_oauth_state=[\w.-]{43,}; Max-Age=600; Path=\/api\/auth\/callback; HttpOnly; Secure; SameSite=Lax$/,
      );
      expect(direct?.statusCode).toBe(404);
      // Beginning a sign-in spends nothing.
      expect(begun.stored).toEqual({});
      // The site's headers, but its Referrer-Policy: the sign-in's pages send no referrer at all (their URLs hold a code).
      const { "Referrer-Policy": _sitesReferrerPolicy, ...siteHeaders } = commonHeaders;
      for (const [header, value] of Object.entries(siteHeaders))
        expect(redirect?.headers[header.toLowerCase()]).toBe(value);
      expect(redirect?.headers["referrer-policy"]).toBe("no-referrer");

      const state = location.searchParams.get("state") ?? "";
      const back = await invoke(
        "/api/auth/callback",
        [
          getEvent(`/api/auth/callback?code=${GOOD_CODE}&state=${state}`, { cookie: cookie.split(";")[0] ?? "" }),
          // The same callback again, cookie and all: the state was spent by the first.
          getEvent(`/api/auth/callback?code=${GOOD_CODE}&state=${state}`, { cookie: cookie.split(";")[0] ?? "" }),
          getEvent(`/api/auth/callback?code=${GOOD_CODE}&state=${state}`),
          getEvent(`/api/auth/callback?code=${GOOD_CODE}&state=${state}x`, { cookie: cookie.split(";")[0] ?? "" }),
        ],
        env,
      );
      const [page, replay, noCookie, wrongState] = back.answers;
      expect(page?.statusCode).toBe(200);
      expect(page?.headers["content-security-policy"]).toMatch(/^default-src 'none'; .*script-src 'sha256-/);
      expect(page?.body).toContain(FAKE_TOKEN);
      expect(page?.body).toContain(JSON.stringify("https://site.example"));
      expect(github.exchanges).toHaveLength(1);
      expect(github.exchanges[0]).toMatchObject({
        client_id: FAKE_CLIENT_ID,
        code: GOOD_CODE,
        redirect_uri: "https://site.example/api/auth/callback",
      });
      expect(replay?.statusCode).toBe(400);
      expect(replay?.body).toMatch(/already used/);
      expect(replay?.body).not.toContain(FAKE_TOKEN);
      // The store keeps the spent state once, by its hash only and with its expiry first in the key; the replay
      // and the refusals add nothing.
      const spent = createHash("sha256").update(state).digest("base64url");
      expect(
        Object.entries(back.stored ?? {}).map(([key, value]) => [key.replace(/^\d{13}-/, "<expiry>-"), value]),
      ).toEqual([[`<expiry>-${spent}`, { spent: true }]]);
      // The token goes to the site's origin only, never "*".
      expect(page?.body).not.toContain('"*"');
      // Without this browser's state, an error page that posts nothing, and no exchange with GitHub.
      for (const refused of [noCookie, wrongState]) {
        expect(refused?.statusCode).toBe(400);
        expect(refused?.body).toMatch(/not started from this browser/);
        expect(refused?.body).not.toContain("<script");
        expect(refused?.body).not.toContain(FAKE_TOKEN);
      }
      expect(`${begun.log}${back.log}`).not.toMatch(new RegExp(`${FAKE_TOKEN}|${FAKE_CLIENT_SECRET}|${GOOD_CODE}`));
    } finally {
      await github.close();
    }
  });

  it("do not exist where sign-in is not set up", async () => {
    const { answers } = await invoke("/api/auth", [getEvent("/api/auth")], {});
    expect(answers[0]?.statusCode).toBe(404);
  });
});

describe("a held inquiry on the Netlify build, in Netlify Database (a local Postgres): the scheduled digest and /api/inquiry-release", () => {
  /**
   * The chain as Netlify runs it, over one database the functions reach through NETLIFY_DB_URL: the inquiry
   * function (the built one) holds a post that filled the hidden field; the scheduled function
   * (netlify/functions/deliver-inquiries.mts, which Netlify bundles itself, run by its default export as Netlify
   * calls it) sends the day's digest to a webhook here; the release function (the built one) opens the digest's
   * link, changes nothing, releases with the button and delivers once, and refuses the link used again or altered.
   */
  const SECRET = "0123456789abcdef".repeat(4);
  const ORIGIN = "https://site.example";
  let postgres: TestPostgres;
  let databaseUrl: string;
  let hook: Awaited<ReturnType<typeof startWebhookReceiver>>;
  beforeAll(async () => {
    postgres = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await postgres.stop();
  });
  beforeEach(async () => {
    databaseUrl = await netlifyDatabase(postgres);
    hook = await startWebhookReceiver(204);
  });
  afterEach(async () => {
    await hook.close();
  });

  /** What the functions have in their environment on Netlify (Functions scope): the database, a webhook, the links' key and origin. */
  const functionEnv = (): NodeJS.ProcessEnv => ({
    ...databaseEnv(databaseUrl),
    INQUIRY_WEBHOOK_URL: hook.url,
    INQUIRY_RELEASE_SECRET: SECRET,
    INQUIRY_RELEASE_ORIGIN: ORIGIN,
    // From midnight in the company's time zone: the first scheduled run of the day makes the digest, whenever this runs.
    INQUIRY_DIGEST_HOUR: "0",
  });
  const invokeFunction = async (from: string, events: readonly FunctionEvent[]) => {
    const run = await runLocalAsync(["invoke", functionRoutedFrom(from)], {
      input: JSON.stringify(events),
      env: functionEnv(),
    });
    if (run.status !== 0) throw new Error(`The function failed:\n${run.stderr}`);
    return { answers: (JSON.parse(run.stdout) as Invocation).answers, log: run.stderr };
  };
  const scheduledRun = async () => {
    const run = await runLocalAsync(["scheduled", "netlify/functions/deliver-inquiries.mts"], { env: functionEnv() });
    if (run.status !== 0) throw new Error(`The scheduled function failed:\n${run.stderr}`);
    return { ...(JSON.parse(run.stdout) as ScheduledRun), log: run.stderr };
  };
  /** A request to the release route as Netlify gives it to the function: the visitor's path and query, HTTPS. */
  const releaseEvent = (link: string, method = "GET", headers: Record<string, string> = {}): FunctionEvent => {
    const url = new URL(link, ORIGIN);
    const fields = method === "POST" ? url.searchParams.toString() : null;
    const all = {
      host: "site.example",
      "x-forwarded-proto": "https",
      "x-nf-client-connection-ip": "192.0.2.70",
      "sec-fetch-site": "same-origin",
      ...(fields === null
        ? {}
        : {
            "content-type": "application/x-www-form-urlencoded",
            "content-length": String(Buffer.byteLength(fields)),
          }),
      ...headers,
    };
    const query = method === "POST" ? new URLSearchParams() : url.searchParams;
    return {
      path: method === "POST" ? RELEASE_PATH : url.pathname,
      rawUrl: method === "POST" ? `https://site.example${RELEASE_PATH}` : url.href,
      httpMethod: method,
      headers: all,
      multiValueHeaders: Object.fromEntries(Object.entries(all).map(([name, value]) => [name, [value]])),
      queryStringParameters: Object.fromEntries(query),
      multiValueQueryStringParameters: Object.fromEntries([...query.keys()].map((key) => [key, query.getAll(key)])),
      body: fields,
      isBase64Encoded: false,
    };
  };

  it("sends the digest once from the scheduled function, whose link the release function opens and releases, delivered once", async () => {
    const held = await invokeFunction("/api/inquiry", [
      eventOf({ client: "192.0.2.71", ...json({ ...validInquiry, [honeypotField]: "https://spam.example" }) }),
    ]);
    expect(held.answers[0]?.statusCode).toBe(201);
    const reference = (JSON.parse(held.answers[0]?.body ?? "{}") as { reference: string }).reference;
    // Held: the inquiry function delivered nothing.
    expect(hook.received).toEqual([]);

    const first = await scheduledRun();
    expect(first).toMatchObject({
      status: 200,
      body: { ran: true, digests: { made: { references: [reference] }, delivered: 1 } },
    });
    expect(hook.received.map((request) => request.headers["x-inquiry-event"])).toEqual(["held-digest"]);
    const digest = JSON.parse(hook.received[0]?.body ?? "{}") as {
      inquiries: { reference: string; held: { reason: string }; release: { url: string } | null }[];
    };
    expect(digest.inquiries.map((inquiry) => [inquiry.reference, inquiry.held.reason])).toEqual([
      [reference, "honeypot filled"],
    ]);
    // The origin the functions are given, never content/company.json's siteUrl.
    const released = new URL(digest.inquiries[0]?.release?.url ?? "");
    expect(`${released.origin}${released.pathname}`).toBe(`${ORIGIN}${RELEASE_PATH}`);
    const link = `${released.pathname}${released.search}`;
    const altered = new URL(link, ORIGIN);
    altered.searchParams.set("expires", String(Number(altered.searchParams.get("expires")) + 86_400));

    // A deploy preview given production's secret and origin, at its own address: no page, and nothing released.
    const atPreview = { host: "deploy-preview-42--cardinal-ridge.netlify.app" };
    const { answers, log } = await invokeFunction(RELEASE_PATH, [
      releaseEvent(link, "GET", atPreview),
      releaseEvent(link, "POST", atPreview),
      releaseEvent(link),
      releaseEvent(link, "POST"),
      releaseEvent(link, "POST"),
      releaseEvent(`${altered.pathname}${altered.search}`),
      releaseEvent(link, "POST", { "sec-fetch-site": "cross-site" }),
      releaseEvent(`/.netlify/functions/${functionRoutedFrom(RELEASE_PATH)}${released.search}`),
    ]);
    const [previewPage, previewRelease, page, release, replay, forged, crossSite, direct] = answers;
    expect([previewPage?.statusCode, previewRelease?.statusCode]).toEqual([404, 404]);
    expect(page?.statusCode).toBe(200);
    expect(page?.body).toContain(`<form method="post" action="${RELEASE_PATH}">`);
    expect(page?.body).not.toContain("<script");
    expect(page?.headers["content-security-policy"]).toBe(resultPagePolicy);
    for (const [name, value] of Object.entries(commonHeaders).filter(([name]) => name !== "Referrer-Policy"))
      expect([name, page?.headers[name.toLowerCase()]]).toEqual([name, value]);
    expect([
      release?.statusCode,
      replay?.statusCode,
      forged?.statusCode,
      crossSite?.statusCode,
      direct?.statusCode,
    ]).toEqual([200, 409, 400, 403, 404]);
    // Delivered by the release function before it answered, once.
    expect(
      hook.received.map((request) => request.headers["x-inquiry-reference"] ?? request.headers["x-inquiry-event"]),
    ).toEqual(["held-digest", reference]);
    expect(log).toContain(`${reference} released from quarantine through the digest's link`);

    // The next scheduled run: no second digest, and the inquiry is not delivered again.
    const second = await scheduledRun();
    expect(second).toMatchObject({ status: 200, body: { ran: true, digests: { made: null } } });
    expect(hook.received).toHaveLength(2);
    // In the database the functions were given, read straight from it.
    const references = await onPostgres<{ reference: string }>(databaseUrl, "SELECT reference FROM inquiries");
    expect(references.map((row) => row.reference)).toEqual([reference]);
    for (const text of [validInquiry.fullName, validInquiry.email, validInquiry.message]) {
      expect(`${held.log}${first.log}${log}${second.log}`).not.toContain(text);
    }
  }, 120_000);
});
