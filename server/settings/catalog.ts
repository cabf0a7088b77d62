import ipaddr from "ipaddr.js";
import * as z from "zod/mini";
import { MAX_ATTEMPT_TIMEOUT_SECONDS } from "../stop-grace";

/**
 * Every environment variable the site reads, described once: its type and range, its default, where it applies
 * and what it means. The server, the Netlify functions and the command-line tools read settings through
 * `readSetting` only, and docs/configuration.md's table is generated from this list (`npm run docs:settings`).
 * Bundled into the Netlify functions: it imports nothing but zod/mini, ipaddr.js and the stop grace's numbers. The
 * tests' and benches' own variables are described the same way, with the same readers, in testing/tool-settings.ts.
 */

/** Where a setting is read: the columns of the docs table's "where it applies". */
type Scope =
  "server" | "Netlify function" | "scheduled function" | "command line" | "build" | "edit" | "tests" | "bench";

/** A list of settings by variable name: the site's catalogue, or the tools'. */
export type Catalogue = Readonly<Record<string, Setting<unknown>>>;

export interface Setting<T> {
  /** What a value must be, as the refusal says it: `X must be <allowed>, not <value>`. */
  readonly allowed: string;
  /** The value when the variable is unset or blank. */
  readonly default: T;
  /** The default as the docs table shows it, where the value alone would not say it (`null`, another reader's own). */
  readonly defaultText?: string;
  readonly applies: readonly Scope[];
  /** One line: what the setting does. */
  readonly meaning: string;
  /** Parses the trimmed, non-blank text. */
  readonly schema: z.ZodMiniType<T, string>;
  /** A secret's refusal names its length, never its text. */
  readonly secret?: boolean;
}

interface Described {
  readonly applies: readonly Scope[];
  readonly meaning: string;
  readonly defaultText?: string;
}

/** A number setting with a range: its bounds, for the tests that hold every one to them. */
interface RangeSetting<T extends number | null> extends Setting<T> {
  readonly min: number;
  readonly max: number;
}

/**
 * Digits only, optionally with a fraction: `1e3`, `0x10`, `+5` and `5.0` (where no fraction is allowed) are refused
 * rather than read as some number the operator did not write.
 */
const numberIn = (digits: RegExp, min: number, max: number) =>
  z.pipe(
    z.string().check(
      z.regex(digits),
      z.refine((text) => Number(text) >= min && Number(text) <= max),
    ),
    z.transform(Number),
  );

/** A whole number within a range; a null default leaves it to the reader (another tool's, or content's). */
export const wholeNumber = <D extends number | null>(
  min: number,
  max: number,
  fallback: D,
  described: Described,
): RangeSetting<number | D> => ({
  ...described,
  allowed: `a whole number from ${min} to ${max}`,
  default: fallback,
  min,
  max,
  schema: numberIn(/^\d+$/, min, max),
});

/** A number with a fraction allowed, within a range; unset, null (the reader has the default). */
const optionalNumber = (min: number, max: number, described: Described): Setting<number | null> => ({
  ...described,
  allowed: `a number from ${min} to ${max}`,
  default: null,
  schema: numberIn(/^\d+(\.\d+)?$/, min, max),
});

const YES = ["1", "true", "yes"];
const NO = ["0", "false", "no"];

/** On or off: `1`, `true`, `yes` or `0`, `false`, `no`, in any case; anything else is refused, not read as off. */
const yesNo = (fallback: boolean, described: Described): Setting<boolean> => ({
  ...described,
  allowed: "1, true, yes, 0, false or no",
  default: fallback,
  schema: z.pipe(
    z.string().check(z.refine((text) => [...YES, ...NO].includes(text.toLowerCase()))),
    z.transform((text) => YES.includes(text.toLowerCase())),
  ),
});

/** One of a few words, in any case, read in lower case. */
const oneOf = <T extends string>(values: readonly [T, ...T[]], fallback: T, described: Described): Setting<T> => ({
  ...described,
  allowed: `${values.slice(0, -1).join(", ")} or ${values.at(-1) ?? ""}`,
  default: fallback,
  schema: z.pipe(
    z.string().check(z.refine((text) => (values as readonly string[]).includes(text.toLowerCase()))),
    z.transform((text) => text.toLowerCase() as T),
  ),
});

/** Any text; unset, null or the default given. */
export const text = <T extends string | null = string | null>(
  fallback: T,
  described: Described & { readonly allowed?: string; readonly check?: (value: string) => boolean },
): Setting<string | T> => ({
  ...described,
  allowed: described.allowed ?? "any text",
  default: fallback,
  schema: z.string().check(z.refine(described.check ?? (() => true))),
});

/** A key of at least `minLength` characters, which a refusal names by its length; unset, null. */
const secret = (minLength: number, described: Described): Setting<string | null> => ({
  ...described,
  allowed: `at least ${minLength} characters (openssl rand -hex 32 makes one)`,
  default: null,
  secret: true,
  schema: z.string().check(z.minLength(minLength)),
});

/** Whether the text is a URL with one of the protocols (`https:`, with its colon). */
export const isUrl = (value: string, protocols: readonly string[]): boolean =>
  URL.canParse(value) && protocols.includes(new URL(value).protocol);

/** Whether a URL's host is this machine: `localhost`, 127.0.0.0/8 or [::1], in any spelling ipaddr.js reads. */
const isLoopbackHost = (hostname: string): boolean => {
  if (hostname === "localhost") return true;
  const address = hostname.replace(/^\[(.*)\]$/, "$1");
  return ipaddr.isValid(address) && ipaddr.process(address).range() === "loopback";
};

/** An http or https origin (`https://www.example.com`) the check takes, a trailing slash taken off; unset, null. */
const origin = (
  allowed: string,
  described: Described,
  check: (value: URL) => boolean = () => true,
): Setting<string | null> => ({
  ...described,
  allowed,
  default: null,
  schema: z.pipe(
    z.string().check(
      z.refine((value) => {
        const bare = value.replace(/\/+$/, "");
        return isUrl(bare, ["http:", "https:"]) && new URL(bare).origin === bare && check(new URL(bare));
      }),
    ),
    z.transform((value) => value.replace(/\/+$/, "")),
  ),
});

/** A URL the check takes, a trailing slash taken off. */
const url = (
  fallback: string,
  allowed: string,
  check: (value: URL) => boolean,
  described: Described,
): Setting<string> => ({
  ...described,
  allowed,
  default: fallback,
  schema: z.pipe(
    z.string().check(z.refine((value) => URL.canParse(value) && check(new URL(value)))),
    z.transform((value) => value.replace(/\/+$/, "")),
  ),
});

/** An hour of the day, 0 to 23, or `off` (any case), read as null. */
const hourOrOff = (fallback: number, described: Described): Setting<number | null> => ({
  ...described,
  allowed: "a whole number from 0 to 23, or off",
  default: fallback,
  schema: z.pipe(
    z
      .string()
      .check(z.refine((value) => value.toLowerCase() === "off" || (/^\d{1,2}$/.test(value) && Number(value) <= 23))),
    z.transform((value) => (value.toLowerCase() === "off" ? null : Number(value))),
  ),
});

/** TRUST_PROXY: false (none), a number of hops, or the proxies' addresses and ranges. `true` is refused. */
const trustProxy = (described: Described): Setting<false | number | string[]> => ({
  ...described,
  allowed:
    "0, a hop count or a comma-separated list of addresses and ranges (true would believe any client's X-Forwarded-For)",
  default: false,
  schema: z.pipe(
    z.string().check(z.refine((value) => value.toLowerCase() !== "true")),
    z.transform((value): false | number | string[] => {
      if (value === "0" || value.toLowerCase() === "false") return false;
      if (/^\d+$/.test(value)) return Number(value);
      return value
        .split(",")
        .map((item) => item.trim())
        .filter(Boolean);
    }),
  ),
});

const SERVER_AND_FUNCTIONS: readonly Scope[] = ["server", "Netlify function", "scheduled function", "command line"];
const DELIVERY: readonly Scope[] = ["server", "scheduled function", "command line"];
const DEPLOY: readonly Scope[] = ["server", "command line"];

/** The site's own server and the tools around it. */
const serverSettings = {
  PORT: wholeNumber(0, 65_535, null, {
    applies: ["server", "edit"],
    defaultText: "`9000` (server), `8000` (edit)",
    meaning: "the port to listen on; for `npm run edit`, the develop site's port",
  }),
  HOST: text(null, {
    applies: ["server", "edit"],
    defaultText: "`127.0.0.1` (server), `localhost` (edit)",
    meaning: "the address to listen on; `npm run edit` prints its addresses with it",
  }),
  TRUST_PROXY: trustProxy({
    applies: ["server"],
    defaultText: "unset: none",
    meaning:
      "the proxies in front whose `X-Forwarded-For` to believe: a hop count (`1` behind one nginx) or a comma-separated list of addresses and ranges (`10.0.0.0/8`); see below",
  }),
  HSTS: yesNo(false, {
    applies: ["server"],
    meaning: "`1` sends `Strict-Transport-Security` (only when every visitor arrives over HTTPS)",
  }),
  SITE_REQUESTS_PER_MINUTE: wholeNumber(0, 1_000_000, 1200, {
    applies: ["server"],
    meaning: "requests a minute from one client to anything (a flood guard; `0` turns it off)",
  }),
  PUBLIC_DIR: text(null, {
    applies: ["server"],
    defaultText: "`public/`",
    meaning: "the built site, served as it is when `DEPLOY_DIR` is unset",
  }),
  HEALTH_TOKEN: secret(32, {
    applies: ["server"],
    defaultText: "unset: the status only",
    meaning:
      "the token `/healthz` gives its details for (delivery, held inquiries, releases), sent as `Authorization: Bearer <token>`; without it, everyone gets the status alone ([deploy-server.md](deploy-server.md#the-systemd-unit))",
  }),
} as const;

/** How inquiries are kept. */
const outboxSettings = {
  INQUIRY_DATA_DIR: text(".data", {
    applies: ["server", "command line"],
    defaultText: "`.data/` (git-ignored)",
    meaning:
      "the folder of the inquiry database, `inquiries.sqlite`. `npm run inquiries` stops rather than list an empty folder when it is unset and `./.data` holds no database",
  }),
  INQUIRY_OUTBOX: oneOf(["sqlite", "postgres"], "sqlite", {
    applies: SERVER_AND_FUNCTIONS,
    defaultText: "`sqlite`, or `postgres` where `INQUIRY_DATABASE_URL` or `NETLIFY_DB_URL` is set",
    meaning:
      "where inquiries are kept: `sqlite`, the database in `INQUIRY_DATA_DIR`; `postgres`, the Postgres at `INQUIRY_DATABASE_URL`, or without it Netlify Database's (`NETLIFY_DB_URL`)",
  }),
  INQUIRY_DATABASE_URL: {
    ...text(null, {
      applies: SERVER_AND_FUNCTIONS,
      allowed: "a postgres:// or postgresql:// URL",
      check: (value) => isUrl(value, ["postgres:", "postgresql:"]),
      meaning:
        "any Postgres to keep inquiries in instead of SQLite (`postgres://user:password@host:5432/db`): the store creates and migrates its tables there itself, so moving a server to Postgres is this setting and no code ([inquiries.md](inquiries.md#the-store))",
    }),
    // A connection string carries its password: a refusal names its length, never its text.
    secret: true,
  },
  NETLIFY_DB_URL: {
    ...text(null, {
      applies: ["Netlify function", "scheduled function", "command line"],
      defaultText: "set by Netlify where the project has Netlify Database",
      meaning:
        "Netlify Database's connection string: where it is set, inquiries are kept there unless `INQUIRY_OUTBOX` says otherwise",
    }),
    secret: true,
  },
  NETLIFY_SITE_ID: text(null, {
    applies: ["command line"],
    meaning:
      "with `--copy-from-blobs`: the site's project ID, for reading the Blobs store the site kept inquiries in before Netlify Database",
  }),
  NETLIFY_AUTH_TOKEN: text(null, {
    applies: ["command line"],
    meaning: "with `--copy-from-blobs`: a personal access token (the Netlify CLI's own variable), for the same",
  }),
  INQUIRY_OUTBOX_EPHEMERAL: yesNo(false, {
    applies: ["Netlify function"],
    meaning:
      "`1` where the outbox does not survive the request: an inquiry no transport took is then answered 503. Ignored with `INQUIRY_OUTBOX=postgres`",
  }),
} as const;

/**
 * How inquiries are delivered. The transports' own values are taken as text: a wrong one does not stop the start
 * but fails each delivery, which stays pending, and the log names it (server/inquiries/config.ts).
 */
const transportSettings = {
  SMTP_URL: text(null, {
    applies: SERVER_AND_FUNCTIONS,
    defaultText: "unset: no email",
    meaning: "`smtps://user:pass@host:465` or `smtp://…:587` (STARTTLS required)",
  }),
  SMTP_ALLOW_PLAIN: yesNo(false, {
    applies: ["server", "Netlify function", "scheduled function"],
    meaning: "`1` allows SMTP without TLS: only for a relay on the same machine",
  }),
  INQUIRY_TO: text(null, {
    applies: SERVER_AND_FUNCTIONS,
    defaultText: "—",
    meaning: "required with `SMTP_URL`: the sales desk's address",
  }),
  INQUIRY_FROM: text(null, {
    applies: SERVER_AND_FUNCTIONS,
    defaultText: "—",
    meaning: "required with `SMTP_URL`: the sender (`Website <website@example.com>`)",
  }),
  INQUIRY_WEBHOOK_URL: text(null, {
    applies: SERVER_AND_FUNCTIONS,
    defaultText: "unset: no webhook",
    meaning: "receives each inquiry as a JSON POST",
  }),
  INQUIRY_WEBHOOK_SECRET: text(null, {
    applies: SERVER_AND_FUNCTIONS,
    meaning: "signs each delivery with its time ([inquiries.md](inquiries.md#receiving-the-webhook))",
  }),
} as const;

/** The operator's limits on inquiries (the rows the prose above the table speaks of). */
const operationCatalogue = {
  INQUIRY_MIN_FILL_SECONDS: optionalNumber(0, 60, {
    applies: ["server", "Netlify function"],
    defaultText: "`delivery.minFillSeconds` (3)",
    meaning: "faster posts go to quarantine",
  }),
  INQUIRY_RATE_LIMIT_REQUESTS: wholeNumber(1, 1_000_000, 5, {
    applies: ["server", "Netlify function"],
    meaning:
      "inquiry posts one client may make per window; the next is answered 429, and the too-many message's `{minutes}` is what is left of the window, rounded up",
  }),
  INQUIRY_RATE_LIMIT_WINDOW_SECONDS: wholeNumber(1, 86_400, 600, {
    applies: ["server", "Netlify function"],
    meaning: "the window those posts are counted over, in seconds",
  }),
  INQUIRY_CONCURRENCY: wholeNumber(1, 32, 4, {
    applies: DELIVERY,
    meaning: "deliveries under way at once, across all inquiries",
  }),
  // Bounded by the stop grace: a stop waits for the attempts under way and must end before systemd's timeout.
  INQUIRY_ATTEMPT_TIMEOUT_SECONDS: wholeNumber(1, MAX_ATTEMPT_TIMEOUT_SECONDS, 20, {
    applies: SERVER_AND_FUNCTIONS,
    meaning: "how long one delivery attempt through one transport may take before it counts as failed; see below",
  }),
  INQUIRY_MAX_ATTEMPTS: wholeNumber(1, 50, 8, {
    applies: DELIVERY,
    meaning: "attempts per transport before an inquiry is set aside as a dead letter",
  }),
  INQUIRY_RETRY_DELAY_SECONDS: wholeNumber(1, 86_400, 60, {
    applies: DELIVERY,
    meaning: "the delay before the first retry; each next one doubles, with jitter",
  }),
  INQUIRY_RETRY_MAX_DELAY_SECONDS: wholeNumber(1, 86_400, 3_600, {
    applies: DELIVERY,
    meaning:
      "the longest delay between retries. Set, it may not be below `INQUIRY_RETRY_DELAY_SECONDS`; unset, it is at least that",
  }),
  INQUIRY_ALLOWED_ORIGINS: text(null, {
    applies: ["server", "Netlify function"],
    meaning: "other origins the form may be posted from, comma-separated (`https://www.example.com`)",
  }),
  INQUIRY_CLIENT_IP_HEADER: text(null, {
    applies: ["Netlify function"],
    defaultText: "`x-nf-client-connection-ip` on Netlify",
    meaning: "the header the platform sets to the visitor's address",
  }),
} as const;

/** The daily digest of held inquiries and its release links. */
const digestSettings = {
  INQUIRY_DIGEST_HOUR: hourOrOff(7, {
    applies: DELIVERY,
    meaning:
      "the hour, in the company's time zone (`content/company.json`), from which each day's digest of the inquiries held as suspected spam goes out through the transports configured ([inquiries.md](inquiries.md#held-as-suspected-spam-the-daily-digest)); `off`: none",
  }),
  INQUIRY_RELEASE_SECRET: secret(32, {
    applies: SERVER_AND_FUNCTIONS,
    defaultText: "unset: no release links",
    meaning:
      "the key the digest's release links are signed with (HMAC-SHA256); unset, the digest has no links and `/api/inquiry-release` does not exist. One per deploy context",
  }),
  // The operator's alone, never content's siteUrl: an editor who pointed the links at a host of their own would
  // collect every signed link, each a release. Plain http only on loopback, where the tests run their servers.
  INQUIRY_RELEASE_ORIGIN: origin(
    "an https:// origin such as https://www.example.com (http:// only on a loopback host)",
    {
      applies: SERVER_AND_FUNCTIONS,
      defaultText: "—",
      meaning:
        "required with `INQUIRY_RELEASE_SECRET`: the origin the digest's release links point to, where the sales desk reaches the site (`https://www.example.com`), and the only host at which `/api/inquiry-release` answers",
    },
    (value) => value.protocol === "https:" || isLoopbackHost(value.hostname),
  ),
} as const;

const branchName = (value: string) => !(value.startsWith("-") || value.includes("..") || /[\s~^:?*[\\]/.test(value));

/** The single server's releases (server/releases/settings.ts). */
const deploySettings = {
  DEPLOY_DIR: text(null, {
    applies: DEPLOY,
    defaultText: "unset: serve `PUBLIC_DIR`",
    meaning:
      "where releases live; the server runs the live one's own server ([deploy-server.md](deploy-server.md#releases-and-rollback))",
  }),
  DEPLOY_REPOSITORY: text(null, {
    applies: DEPLOY,
    allowed: "a repository address, not an option",
    check: (value) => !value.startsWith("-"),
    defaultText: "—",
    meaning: "the git URL releases are fetched from (`https://`, `ssh://`, `git@github.com:owner/site.git`, `file://`)",
  }),
  DEPLOY_BRANCH: text("main", {
    applies: DEPLOY,
    allowed: "a branch name (no leading dash, no `..`, no space or any of ~^:?*[\\)",
    check: branchName,
    meaning: "the branch whose pushes are deployed",
  }),
  DEPLOY_WEBHOOK_SECRET: secret(32, {
    applies: ["server"],
    defaultText: "unset: no webhook route",
    meaning: "the GitHub webhook's secret; with it, `POST /api/deploy/github` exists",
  }),
  DEPLOY_BUILD_SOCKET: text(null, {
    applies: DEPLOY,
    defaultText: "unset: the deployer's own user builds",
    meaning:
      "the build unit's socket: releases are built by its user, who cannot read the secrets or the inquiries ([deploy-server.md](deploy-server.md#who-may-read-and-write-what))",
  }),
  DEPLOY_KEEP: wholeNumber(1, 100, 3, {
    applies: DEPLOY,
    meaning: "good releases kept besides the live one, for rollback",
  }),
  DEPLOY_BUILD_MEMORY_MB: wholeNumber(512, 65_536, 3072, {
    applies: DEPLOY,
    meaning: "the release build's heap per Node process",
  }),
  DEPLOY_BUILD_TIMEOUT_MINUTES: wholeNumber(1, 240, 20, {
    applies: DEPLOY,
    meaning: "the release build's time limit",
  }),
  DEPLOY_BUILD_NICE: wholeNumber(0, 19, 19, {
    applies: DEPLOY,
    meaning: "the release build's niceness (it runs under `SCHED_IDLE` anyway)",
  }),
} as const;

/** Editors' sign-in and the editing screen. */
const editingSettings = {
  CMS_GITHUB_CLIENT_ID: text(null, {
    applies: ["server", "Netlify function"],
    defaultText: "unset: no sign-in routes",
    meaning: "the GitHub OAuth App editors sign in through; without it (and the secret) `/api/auth` answers 404",
  }),
  CMS_GITHUB_CLIENT_SECRET: text(null, {
    applies: ["server", "Netlify function"],
    defaultText: "unset: no sign-in routes",
    meaning: "the OAuth App's secret: never logged, and never given to the single server's release builds",
  }),
  CMS_GITHUB_URL: url(
    "https://github.com",
    "https://, GitHub's address or a GitHub Enterprise Server's",
    (value) => value.protocol === "https:" || ["127.0.0.1", "localhost", "[::1]"].includes(value.hostname),
    {
      applies: ["build", "server", "Netlify function"],
      meaning:
        "GitHub's address, or a GitHub Enterprise Server's (`https://github.example.com`; its API is then `<url>/api/v3`); see below",
    },
  ),
  CMS_GITHUB_SCOPE: oneOf(["repo", "public_repo"], "repo", {
    applies: ["build", "server", "Netlify function"],
    meaning: "`repo` for a private repository, `public_repo` for a public one",
  }),
  CMS_SITE_ORIGIN: origin("an origin like https://www.example.com", {
    applies: ["server", "Netlify function"],
    defaultText: "unset: the request's own",
    meaning:
      "the site's origin as editors reach it (`https://www.example.com`): the sign-in's callback URL and the only origin the token is posted to; see below",
  }),
  CMS_GITHUB_REPO: text(null, {
    applies: ["build"],
    allowed: "owner/name",
    check: (value) => /^[\w.-]+\/[\w.-]+$/.test(value),
    defaultText: "—",
    meaning:
      "the repository (`owner/name`) the editing screen reads and commits to; without it the live editing screen says it is not set up",
  }),
  CMS_GITHUB_BRANCH: text("main", {
    applies: ["build"],
    meaning: "the branch editors publish to (and pull requests are opened against)",
  }),
  CMS_EDITORIAL_WORKFLOW: yesNo(true, {
    applies: ["build"],
    defaultText: "on",
    meaning: "review before publishing: each edit a branch `cms/…` and a pull request; `0` turns it off; see below",
  }),
  CMS_BACKEND: oneOf(["github", "git-gateway"], "github", {
    applies: ["build"],
    meaning:
      "where the live editing screen reads and commits: `github`; `git-gateway` is Netlify's deprecated Git Gateway, kept only for sites already set up with it",
  }),
} as const;

/** The build's and the editor's machine's own. */
const buildSettings = {
  NETLIFY: text(null, {
    applies: ["build"],
    defaultText: "set by Netlify",
    meaning: "Netlify's build: adds `gatsby-adapter-netlify` and its build cache",
  }),
  NETLIFY_LOCAL: text(null, {
    applies: ["build"],
    meaning: "`npm run build:netlify` sets it: Netlify's build output here, nothing uploaded",
  }),
  NODE_ENV: text(null, {
    applies: ["build"],
    defaultText: "set by Gatsby",
    meaning: "the first-paint loader is added to production pages only",
  }),
  DECAP_SERVER_PORT: wholeNumber(1, 65_535, 8081, {
    applies: ["edit"],
    meaning: "decap-server's port; the editing screen looks for 8081, so only tests move it",
  }),
} as const;

export const catalogue = {
  ...serverSettings,
  ...outboxSettings,
  ...transportSettings,
  ...operationCatalogue,
  ...digestSettings,
  ...deploySettings,
  ...editingSettings,
  ...buildSettings,
} as const;

export type SettingName = keyof typeof catalogue;
export type SettingValue<N extends SettingName> = (typeof catalogue)[N] extends Setting<infer T> ? T : never;

/** An environment: process.env or a test's own. */
export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * The process's environment, reached through `globalThis`: Gatsby's function bundler replaces every literal
 * `process.env.NAME` with its value at build time, and a function is configured where it runs, not where it was built.
 */
export const runtimeEnvironment = (): Environment => globalThis.process.env;

/** The trimmed text of a variable, or undefined when it is unset or blank ("use the default"). */
const settingText = (name: string, env: Environment): string | undefined => {
  const value = env[name]?.trim();
  return value === "" ? undefined : value;
};

/** Whether the operator gave a value: some settings mean something else set than left at the default. */
export const isSet = (name: SettingName, env: Environment = runtimeEnvironment()): boolean =>
  settingText(name, env) !== undefined;

/** A setting's value, as `readSetting` reads it, from any catalogue (the tools' reads its own this way). */
export const readFrom = <C extends Catalogue, N extends keyof C & string>(
  settings: C,
  name: N,
  env: Environment,
): C[N] extends Setting<infer T> ? T : never => {
  type Value = C[N] extends Setting<infer T> ? T : never;
  const setting = settings[name] as Setting<Value>;
  const value = settingText(name, env);
  if (value === undefined) return setting.default;
  const parsed = setting.schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new Error(`${name} must be ${setting.allowed}, not ${setting.secret ? value.length : value}`);
};

/**
 * A setting's value: its default when unset or blank, else its text parsed. A value it does not allow throws,
 * naming the variable and what it allows: `INQUIRY_ATTEMPT_TIMEOUT_SECONDS must be a whole number from 1 to 20,
 * not abc` (a secret's length, never its text).
 */
export const readSetting = <N extends SettingName>(name: N, env: Environment = runtimeEnvironment()): SettingValue<N> =>
  readFrom(catalogue, name, env);

/**
 * Every value in `env` that a setting read in `scope` refuses, each named as readSetting names it: all of them
 * at once, so that an operator mends the environment file in one go rather than one start at a time.
 */
export const settingProblems = (scope: Scope, env: Environment = runtimeEnvironment()): string[] =>
  (Object.keys(catalogue) as SettingName[])
    .filter((name) => catalogue[name].applies.includes(scope))
    .flatMap((name) => {
      try {
        readSetting(name, env);
        return [];
      } catch (error) {
        return [(error as Error).message];
      }
    });

/** The variables, settings or not, whose value holds a fragment: the environment file's sample marks what to fill in. */
export const variablesHolding = (fragment: string, env: Environment = runtimeEnvironment()): string[] =>
  Object.entries(env)
    .filter(([, value]) => value?.includes(fragment))
    .map(([name]) => name);
