import ipaddr from "ipaddr.js";
import * as z from "zod/mini";
import { MAX_ATTEMPT_TIMEOUT_SECONDS } from "../stop-grace";

/**
 * Every environment variable the site reads, described once, as one zod object (siteSettings): each field's type
 * and range, its default, and, registered on it (`described`), where it applies and what it means. Each entry point
 * (the server, a Netlify function, a command, the build) reads the parts it needs once as it starts, through
 * `readSettings`, into a frozen object, with the rules between settings, and a bad value stops it with every
 * problem named. docs/configuration.md's table is generated from the same fields (`npm run docs:settings`).
 * Bundled into the Netlify functions: it imports nothing but zod/mini, ipaddr.js and the stop grace's numbers. The
 * tests' and benches' own variables are described with the same builders in testing/tool-settings.ts.
 */

/** Where a setting is read: the columns of the docs table's "where it applies". */
type Scope =
  "server" | "Netlify function" | "scheduled function" | "command line" | "build" | "edit" | "tests" | "bench";

/** A setting as the docs table and every refusal describe it, registered on its field's schema. */
export interface SettingMeta {
  /** What a value must be, as the refusal says it: `X must be <allowed>, not <value>`. */
  readonly allowed: string;
  /** The value when the variable is unset or blank. */
  readonly default: unknown;
  /** The default as the docs table shows it, where the value alone would not say it (`null`, another reader's own). */
  readonly defaultText?: string;
  readonly applies: readonly Scope[];
  /** One line: what the setting does. */
  readonly meaning: string;
  /** A secret's refusal names its length, never its text. */
  readonly secret?: boolean;
  /** A number's range, for the tests that hold every one to it. */
  readonly min?: number;
  readonly max?: number;
}

/** The descriptions of the settings, by field: docs/configuration.md's table and the refusals are written from it. */
const described = z.registry<SettingMeta>();

/** A setting's field: its schema for the trimmed, non-blank text, its default when unset or blank, and its meta. */
export type Field<T> = z.ZodMiniDefault<z.ZodMiniType<T, string>>;

interface Described {
  readonly applies: readonly Scope[];
  readonly meaning: string;
  readonly defaultText?: string;
}

const field = <T>(schema: z.ZodMiniType<T, string>, fallback: T, meta: Omit<SettingMeta, "default">): Field<T> =>
  // zod's default skips the schema for undefined, so a null default needs no room in the schema.
  z._default(schema, fallback as z.util.NoUndefined<T>).register(described, { ...meta, default: fallback });

/**
 * Digits only, optionally with a fraction: `1e3`, `0x10`, `+5` and `5.0` (where no fraction is allowed) are refused
 * rather than read as some number the operator did not write.
 */
const numberIn = (digits: RegExp, min: number, max: number) =>
  z.pipe(z.string().check(z.regex(digits)), z.pipe(z.transform(Number), z.number().check(z.gte(min), z.lte(max))));

/** A whole number within a range; a null default leaves it to the reader (another tool's, or content's). */
export const wholeNumber = <D extends number | null>(
  min: number,
  max: number,
  fallback: D,
  meta: Described,
): Field<number | D> =>
  field<number | D>(numberIn(/^\d+$/, min, max), fallback, {
    ...meta,
    allowed: `a whole number from ${min} to ${max}`,
    min,
    max,
  });

/** A number with a fraction allowed, within a range; unset, null (the reader has the default). */
const optionalNumber = (min: number, max: number, meta: Described): Field<number | null> =>
  field<number | null>(numberIn(/^\d+(\.\d+)?$/, min, max), null, {
    ...meta,
    allowed: `a number from ${min} to ${max}`,
  });

/** The text in lower case: the words of a setting are read in any case. */
const lowerCase = z.pipe(
  z.string(),
  z.transform((text) => text.toLowerCase()),
);

const YES = ["1", "true", "yes"] as const;
const NO = ["0", "false", "no"] as const;

/** On or off: `1`, `true`, `yes` or `0`, `false`, `no`, in any case; anything else is refused, not read as off. */
const yesNo = (fallback: boolean, meta: Described): Field<boolean> =>
  field(
    z.pipe(
      z.pipe(lowerCase, z.enum([...YES, ...NO])),
      z.transform((word) => (YES as readonly string[]).includes(word)),
    ),
    fallback,
    { ...meta, allowed: "1, true, yes, 0, false or no" },
  );

/** One of a few words, in any case, read in lower case; a null default leaves the choice to the reader. */
const oneOf = <T extends string, D extends T | null>(
  values: readonly [T, ...T[]],
  fallback: D,
  meta: Described,
): Field<T | D> =>
  field<T | D>(z.pipe(lowerCase, z.enum(values)), fallback, {
    ...meta,
    allowed: `${values.slice(0, -1).join(", ")} or ${values.at(-1) ?? ""}`,
  });

/** Any text the check takes; unset, null or the default given. */
export const text = <T extends string | null = string | null>(
  fallback: T,
  meta: Described & {
    readonly allowed?: string;
    readonly check?: (value: string) => boolean;
    readonly secret?: boolean;
  },
): Field<string | T> => {
  const { check, ...rest } = meta;
  return field<string | T>(z.string().check(z.refine(check ?? (() => true))), fallback, {
    ...rest,
    allowed: meta.allowed ?? "any text",
  });
};

/** A key of at least `minLength` characters, which a refusal names by its length; unset, null. */
const secret = (minLength: number, meta: Described): Field<string | null> =>
  field<string | null>(z.string().check(z.minLength(minLength)), null, {
    ...meta,
    allowed: `at least ${minLength} characters (openssl rand -hex 32 makes one)`,
    secret: true,
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

const withoutTrailingSlash = z.transform((value: string) => value.replace(/\/+$/, ""));

/** An http or https origin (`https://www.example.com`) the check takes, a trailing slash taken off; unset, null. */
const origin = (allowed: string, meta: Described, check: (value: URL) => boolean = () => true): Field<string | null> =>
  field<string | null>(
    z.pipe(
      z.pipe(z.string(), withoutTrailingSlash),
      z
        .string()
        .check(
          z.refine((bare) => isUrl(bare, ["http:", "https:"]) && new URL(bare).origin === bare && check(new URL(bare))),
        ),
    ),
    null,
    { ...meta, allowed },
  );

/** A URL the check takes, a trailing slash taken off. */
const url = (fallback: string, allowed: string, check: (value: URL) => boolean, meta: Described): Field<string> =>
  field(
    z.pipe(z.string().check(z.refine((value) => URL.canParse(value) && check(new URL(value)))), withoutTrailingSlash),
    fallback,
    { ...meta, allowed },
  );

/** An hour of the day, 0 to 23, or `off` (any case), read as null. */
const hourOrOff = (fallback: number, meta: Described): Field<number | null> =>
  field<number | null>(
    z.union([
      z.pipe(
        z.string().check(z.regex(/^off$/i)),
        z.transform(() => null),
      ),
      numberIn(/^\d{1,2}$/, 0, 23),
    ]),
    fallback,
    { ...meta, allowed: "a whole number from 0 to 23, or off" },
  );

/** TRUST_PROXY: false (none), a number of hops, or the proxies' addresses and ranges. `true` is refused. */
const trustProxy = (meta: Described): Field<false | number | string[]> =>
  field<false | number | string[]>(
    z.pipe(
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
    false,
    {
      ...meta,
      allowed:
        "0, a hop count or a comma-separated list of addresses and ranges (true would believe any client's X-Forwarded-For)",
    },
  );

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
  INQUIRY_DATA_DIR: text(null, {
    applies: ["server", "command line"],
    defaultText: "`.data/` (git-ignored)",
    meaning:
      "the folder of the inquiry database, `inquiries.sqlite`. `npm run inquiries` stops rather than list an empty folder when it is unset and `./.data` holds no database",
  }),
  INQUIRY_OUTBOX: oneOf(["sqlite", "postgres"], null, {
    applies: SERVER_AND_FUNCTIONS,
    defaultText: "`sqlite`, or `postgres` where `INQUIRY_DATABASE_URL` or `NETLIFY_DB_URL` is set",
    meaning:
      "where inquiries are kept: `sqlite`, the database in `INQUIRY_DATA_DIR`; `postgres`, the Postgres at `INQUIRY_DATABASE_URL`, or without it Netlify Database's (`NETLIFY_DB_URL`)",
  }),
  // A connection string carries its password: a refusal names its length, never its text.
  INQUIRY_DATABASE_URL: text(null, {
    applies: SERVER_AND_FUNCTIONS,
    allowed: "a postgres:// or postgresql:// URL",
    check: (value) => isUrl(value, ["postgres:", "postgresql:"]),
    secret: true,
    meaning:
      "any Postgres to keep inquiries in instead of SQLite (`postgres://user:password@host:5432/db`): the store creates and migrates its tables there itself, so moving a server to Postgres is this setting and no code ([inquiries.md](inquiries.md#the-store))",
  }),
  NETLIFY_DB_URL: text(null, {
    applies: ["Netlify function", "scheduled function", "command line"],
    defaultText: "set by Netlify where the project has Netlify Database",
    secret: true,
    meaning:
      "Netlify Database's connection string: where it is set, inquiries are kept there unless `INQUIRY_OUTBOX` says otherwise",
  }),
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
  INQUIRY_RETRY_MAX_DELAY_SECONDS: wholeNumber(1, 86_400, null, {
    applies: DELIVERY,
    defaultText: "`3600`, or the first delay where that is longer",
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
} as const;

/** Every setting of the site, as one zod object: each entry point reads the part it needs (readSettings). */
export const siteSettings = z.object({
  ...serverSettings,
  ...outboxSettings,
  ...transportSettings,
  ...operationCatalogue,
  ...digestSettings,
  ...deploySettings,
  ...editingSettings,
  ...buildSettings,
});

export type SettingName = keyof typeof siteSettings.shape;
export type SettingValues = z.output<typeof siteSettings>;

/** A list of settings' fields by variable name: the site's (siteSettings.shape), or the tools'. */
export type Catalogue = Readonly<Record<string, z.core.$ZodType>>;

/** A field's description: what its refusal and the docs table say of it. */
export const metaOfField = (name: string, setting: z.core.$ZodType): SettingMeta => {
  const meta = described.get(setting);
  if (!meta) throw new Error(`${name} has no description`);
  return meta;
};

/** A site setting's description. */
export const metaOf = (name: SettingName): SettingMeta => metaOfField(name, siteSettings.shape[name]);

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

/** A rule between settings: a problem with their values together, or null. */
export interface SettingsRule<N extends SettingName> {
  readonly reads: readonly N[];
  readonly problem: (values: Pick<SettingValues, N>) => string | null;
}

/** The settings one part of the site reads (the inquiries, the releases, sign-in...), and its rules between them. */
export interface SettingsPart<N extends SettingName> {
  readonly names: readonly N[];
  readonly rules: readonly SettingsRule<N>[];
}

export const settingsPart = <N extends SettingName>(
  names: readonly N[],
  ...rules: readonly SettingsRule<N>[]
): SettingsPart<N> => ({ names, rules });

/** The values a part's reader gets: frozen, every name its part lists. */
export type PartValues<P> = P extends SettingsPart<infer N> ? Readonly<Pick<SettingValues, N>> : never;

/** The refusal of one value: `X must be <allowed>, not <value>` (a secret's length, never its text). */
const refusalOf = (name: string, meta: SettingMeta, value: string | undefined): string =>
  `${name} must be ${meta.allowed}, not ${meta.secret ? String(value?.length ?? 0) : String(value)}`;

/** One setting of any catalogue (the tools' read theirs this way): its default when unset or blank, else parsed. */
export const readField = <T>(name: string, setting: Field<T>, env: Environment): T => {
  const value = settingText(name, env);
  const parsed = setting.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new Error(refusalOf(name, metaOfField(name, setting), value));
};

/**
 * An entry point's settings, read once as it starts: the parts' settings as one zod object, their rules included.
 * Each value is its default when unset or blank, else its text parsed. Anything wrong throws once, naming every
 * problem: first each value its setting refuses, then each rule whose settings all parsed, so that an operator
 * mends the environment file in one go rather than one start at a time.
 */
export const readSettings = <N extends SettingName>(
  parts: readonly SettingsPart<N>[],
  env: Environment = runtimeEnvironment(),
): Readonly<Pick<SettingValues, N>> => {
  const names = [...new Set(parts.flatMap((part) => part.names))];
  const texts = Object.fromEntries(names.map((name) => [name, settingText(name, env)]));
  const rules = parts.flatMap((part) => part.rules);
  const mask: Partial<Record<SettingName, true>> = Object.fromEntries(names.map((name) => [name, true]));
  const picked = z.pick(siteSettings, mask);
  const schema = picked.check(
    ...rules.map((rule) =>
      z.check<z.output<typeof picked>>(
        (context) => {
          // A rule over a value that was refused would judge a value nobody meant.
          if (context.issues.some((issue) => rule.reads.some((name) => issue.path?.[0] === name))) return;
          const problem = rule.problem(context.value);
          if (problem !== null) context.issues.push({ code: "custom", message: problem, input: context.value });
        },
        // Judged whatever else was refused (zod skips a check after an aborting issue): every problem at once.
        { when: () => true },
      ),
    ),
  );
  const parsed = schema.safeParse(texts);
  if (parsed.success) {
    // A list (TRUST_PROXY's) frozen too: no reader changes what another reads.
    for (const value of Object.values(parsed.data)) if (Array.isArray(value)) Object.freeze(value);
    return Object.freeze(parsed.data as Pick<SettingValues, N>);
  }
  const problems = parsed.error.issues.map((issue) => {
    const name = issue.path[0];
    return typeof name === "string" && name in texts ? refusalOf(name, metaOf(name as N), texts[name]) : issue.message;
  });
  const unique = [...new Set(problems)];
  throw new Error(unique.length === 1 ? unique[0] : `${unique.length} settings are wrong:\n- ${unique.join("\n- ")}`);
};

/**
 * Settings read at a function instance's first call and kept: the environment does not change under a running
 * instance. A failure is kept too, and thrown at every call, for the function to answer 503 and say why.
 */
export const readOnce = <T>(read: () => T): (() => T) => {
  let outcome: { readonly value: T } | { readonly error: unknown } | null = null;
  return () => {
    if (outcome === null) {
      try {
        outcome = { value: read() };
      } catch (error) {
        outcome = { error };
      }
    }
    if ("error" in outcome) throw outcome.error;
    return outcome.value;
  };
};

/** The variables, settings or not, whose value holds a fragment: the environment file's sample marks what to fill in. */
export const variablesHolding = (fragment: string, env: Environment = runtimeEnvironment()): string[] =>
  Object.entries(env)
    .filter(([, value]) => value?.includes(fragment))
    .map(([name]) => name);
