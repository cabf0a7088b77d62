import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import escapeHtml from "escape-html";
import {
  readSettings,
  runtimeEnvironment,
  settingsPart,
  type Environment,
  type PartValues,
  type SettingValues,
} from "../settings/catalog";

/**
 * Editors' sign-in to the editing screen with GitHub, served by the site itself on both deploys (the
 * production server's routes and the CDN's functions are thin adapters over this module). Decap's
 * `github` backend opens `<base_url>/api/auth` in a popup and waits for the popup to post the token back
 * (shared/research/decap-github.md, section 1):
 *
 *   /api/auth            a random state in a short-lived cookie, then a redirect to GitHub's authorize page
 *   /api/auth/callback   the state checked against the cookie and spent, the code exchanged for a token
 *                        with the OAuth App's secret (@octokit/oauth-methods), then a page whose script
 *                        answers Decap's "authorizing:github" handshake, to this site's origin only
 *
 * A state is used once: the callback records it as spent before anything else is done with the answer, so
 * a replayed callback (the same URL with the same cookie) never reaches GitHub a second time. The state
 * carries the time it was issued, signed with the OAuth App's secret, so that a spent state need only be
 * remembered until it would be refused as too old anyway.
 *
 * Every failure ends on a page that says what happened and what to do, and posts nothing. No token, code,
 * state or secret reaches a log line.
 */

export interface GithubOAuthSettings {
  /** CMS_GITHUB_CLIENT_ID and CMS_GITHUB_CLIENT_SECRET: the GitHub OAuth App's. */
  readonly clientId: string;
  readonly clientSecret: string;
  /** CMS_GITHUB_URL: GitHub's web address, or a GitHub Enterprise Server's (https://github.example.com). */
  readonly githubUrl: string;
  /** CMS_GITHUB_SCOPE: `repo` for a private repository, `public_repo` for a public one. */
  readonly scope: SettingValues["CMS_GITHUB_SCOPE"];
  /**
   * CMS_SITE_ORIGIN: the site's origin as editors reach it (`https://www.example.com`), for the callback
   * URL and the one origin the token is handed to. Unset: the request's own (scheme and host, from the
   * proxy's X-Forwarded-Proto and Host where TRUST_PROXY believes them).
   */
  readonly siteOrigin?: string | null;
}

export interface OAuthRequest {
  /** The path and query string, as the request line has them. */
  readonly url: string;
  /** The request's cookies by name, as the adapter's cookie parser read them. */
  readonly cookies: Readonly<Record<string, string | undefined>>;
  /** This site's origin as the editor's browser reaches it (`https://www.example.com`). */
  readonly origin: string;
}

/**
 * A cookie for the answer to set, as data: each adapter writes its Set-Cookie header with the serializer
 * it has (@fastify/cookie on the single server, the `cookie` package in a Gatsby Function).
 */
interface OAuthCookie {
  readonly name: string;
  readonly value: string;
  readonly options: {
    readonly path: string;
    readonly maxAge: number;
    readonly httpOnly: boolean;
    readonly sameSite: "lax";
    readonly secure: boolean;
  };
}

export interface OAuthAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** The cookies to set with the answer; none when absent. */
  readonly cookies?: readonly OAuthCookie[];
}

export const AUTH_PATH = "/api/auth";
export const CALLBACK_PATH = "/api/auth/callback";
const STATE_COOKIE = "cms_oauth_state";
// Long enough to sign in to GitHub (and pass its two-factor check), short enough that a state is not lying about.
const STATE_MAX_AGE_SECONDS = 600;
// GitHub answers the exchange in well under a second; past this, the editor is told to try again.
const EXCHANGE_TIMEOUT_MS = 10_000;

/**
 * Where the callback records the states it has spent, each until it expires. `spend` must be atomic: of
 * two calls with the same key, exactly one answers true.
 */
export interface SpentStates {
  /** Records the state (by a digest of it) as spent; true if this is its first use, false if it was spent before. */
  spend(key: string, expiresAtMs: number): Promise<boolean>;
}

/**
 * The spent states of one process, in memory, each forgotten once it has expired: for the production
 * server, a single long-running process that serves every callback.
 */
export const memorySpentStates = (now: () => number = Date.now): SpentStates => {
  const spent = new Map<string, number>();
  return {
    spend: (key, expiresAtMs) => {
      const time = now();
      for (const [spentKey, expiry] of spent) if (expiry <= time) spent.delete(spentKey);
      if (spent.has(key)) return Promise.resolve(false);
      spent.set(key, expiresAtMs);
      return Promise.resolve(true);
    },
  };
};

/** Sign-in's settings: the OAuth App's id and secret go together. */
export const githubOAuthSettings = settingsPart(
  ["CMS_GITHUB_CLIENT_ID", "CMS_GITHUB_CLIENT_SECRET", "CMS_GITHUB_URL", "CMS_GITHUB_SCOPE", "CMS_SITE_ORIGIN"],
  {
    reads: ["CMS_GITHUB_CLIENT_ID", "CMS_GITHUB_CLIENT_SECRET"],
    problem: (values) =>
      (values.CMS_GITHUB_CLIENT_ID === null) !== (values.CMS_GITHUB_CLIENT_SECRET === null)
        ? "CMS_GITHUB_CLIENT_ID and CMS_GITHUB_CLIENT_SECRET go together: set both, or neither"
        : null,
  },
);

/** The settings, or null when sign-in is not set up (no client id): the routes then answer 404. */
export const githubOAuthSettingsOf = (values: PartValues<typeof githubOAuthSettings>): GithubOAuthSettings | null =>
  values.CMS_GITHUB_CLIENT_ID === null || values.CMS_GITHUB_CLIENT_SECRET === null
    ? null
    : {
        clientId: values.CMS_GITHUB_CLIENT_ID,
        clientSecret: values.CMS_GITHUB_CLIENT_SECRET,
        githubUrl: values.CMS_GITHUB_URL,
        scope: values.CMS_GITHUB_SCOPE,
        siteOrigin: values.CMS_SITE_ORIGIN,
      };

/** Sign-in's settings of an environment: a half-set or wrong setting is an error that names it. */
export const readGithubOAuthSettings = (env: Environment = runtimeEnvironment()): GithubOAuthSettings | null =>
  githubOAuthSettingsOf(readSettings([githubOAuthSettings], env));

/** GitHub's REST API root for a GitHub web address: api.github.com, or <host>/api/v3 for GitHub Enterprise Server. */
export const githubApiRoot = (githubUrl: string): string =>
  githubUrl === "https://github.com" ? "https://api.github.com" : `${githubUrl}/api/v3`;

const sameText = (a: string, b: string): boolean => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

/** The signature of a state's issue time and random part, keyed by the OAuth App's secret. */
const stateSignature = (clientSecret: string, issued: string, nonce: string): string =>
  createHmac("sha256", clientSecret).update(`cms-oauth-state:${issued}.${nonce}`).digest("base64url");

/** A new state: when it was issued (base 36 milliseconds), 32 random bytes, and the signature of both. */
const newState = (clientSecret: string, nowMs: number): string => {
  const issued = nowMs.toString(36);
  const nonce = randomBytes(32).toString("base64url");
  return `${issued}.${nonce}.${stateSignature(clientSecret, issued, nonce)}`;
};

/** When a state this site issued stops being accepted, or null for one it did not issue (or that was altered). */
const stateExpiry = (clientSecret: string, state: string): number | null => {
  const [issued = "", nonce = "", signature = "", ...rest] = state.split(".");
  if (rest.length > 0 || !/^[0-9a-z]{1,12}$/.test(issued) || nonce === "") return null;
  if (!sameText(signature, stateSignature(clientSecret, issued, nonce))) return null;
  return parseInt(issued, 36) + STATE_MAX_AGE_SECONDS * 1000;
};

/** The state's cookie, sent back to the callback only; an empty value and no age ends it. */
const stateCookie = (value: string, maxAge: number, secure: boolean): OAuthCookie => ({
  name: STATE_COOKIE,
  value,
  options: { path: CALLBACK_PATH, maxAge, httpOnly: true, sameSite: "lax", secure },
});

const PAGE_STYLE =
  "body{font:16px/1.5 system-ui,sans-serif;color:#1b2a41;max-width:34rem;margin:3rem auto;padding:0 1rem}h1{font-size:1.4rem}";
const styleHash = `sha256-${createHash("sha256").update(PAGE_STYLE).digest("base64")}`;

/** The headers of every page here: never stored, never framed, never sending this URL (it holds a code) on. */
const pageHeaders = (scriptHash: string | null): Record<string, string> => ({
  "Content-Type": "text/html; charset=utf-8",
  "Cache-Control": "no-store",
  "Referrer-Policy": "no-referrer",
  "Content-Security-Policy": [
    "default-src 'none'",
    `style-src '${styleHash}'`,
    ...(scriptHash ? [`script-src '${scriptHash}'`] : []),
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; "),
});

const page = (title: string, paragraphs: readonly string[], script: string | null = null): string =>
  [
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex">',
    `<title>${escapeHtml(title)}</title><style>${PAGE_STYLE}</style></head><body>`,
    `<h1>${escapeHtml(title)}</h1>`,
    ...paragraphs.map((text) => `<p>${escapeHtml(text)}</p>`),
    script ? `<script>${script}</script>` : "",
    "</body></html>",
  ].join("");

const AGAIN = "Go back to the editing screen and choose Login with GitHub again.";

/**
 * Every way a callback ends without a token: its status, what happened and what to do. Each ends this
 * browser's sign-in (its state cookie), but one: a link made by someone else must not end the sign-in
 * this browser has under way.
 */
const REFUSALS = {
  notThisBrowser: {
    status: 400,
    what: "This sign-in was not started from this browser, or it took too long.",
    todo: AGAIN,
  },
  tooOld: { status: 400, what: "This sign-in took too long, or was not started from this site.", todo: AGAIN },
  unrecordable: {
    status: 503,
    what: "This site could not check that the sign-in is new.",
    todo: "Wait a minute and sign in again.",
  },
  usedBefore: {
    status: 400,
    what: "This sign-in link was already used. Each sign-in works once.",
    todo: "If the editing screen did not sign you in, go back to it and choose Login with GitHub again.",
  },
  accessDenied: {
    status: 403,
    what: "GitHub says access was not granted.",
    todo: "To edit, sign in again and choose Authorize.",
  },
  githubRefused: {
    status: 502,
    what: "GitHub refused the sign-in request.",
    todo: "Ask whoever runs the site to check the GitHub OAuth App's settings (its callback URL).",
  },
  noCode: {
    status: 400,
    what: "GitHub sent no sign-in code.",
    todo: "Go back to the editing screen and sign in again.",
  },
  badCode: {
    status: 400,
    what: "GitHub did not accept this sign-in code: it was used or expired.",
    todo: "Sign in again.",
  },
  badCredentials: {
    status: 502,
    what: "GitHub did not accept this site's OAuth App credentials.",
    todo: "Ask whoever runs the site to check CMS_GITHUB_CLIENT_ID and CMS_GITHUB_CLIENT_SECRET.",
  },
  githubFailed: { status: 502, what: "GitHub had a problem answering.", todo: "Wait a few minutes and sign in again." },
  githubSlow: { status: 504, what: "GitHub did not answer in time.", todo: "Wait a minute and sign in again." },
} as const satisfies Record<string, { readonly status: number; readonly what: string; readonly todo: string }>;

type Refusal = keyof typeof REFUSALS;

const errorPage = (refusal: Refusal, secure: boolean): OAuthAnswer => {
  const { status, what, todo } = REFUSALS[refusal];
  return {
    status,
    headers: pageHeaders(null),
    body: page("Sign-in did not finish", [what, todo, "You can close this window."]),
    cookies: refusal === "notThisBrowser" ? [] : [stateCookie("", 0, secure)],
  };
};

/**
 * The script of the page that hands the token over. It speaks first ("authorizing:github") to the window
 * that opened it, and only to this site's origin; it posts the token only in answer to Decap's echo from
 * that same origin. A page of another site that opened this one hears nothing, and gets nothing.
 */
const handoverScript = (origin: string, token: string): string => {
  const message = `authorization:github:success:${JSON.stringify({ token, provider: "github" })}`;
  // JSON in a script: `<` escaped so that no value can end the element.
  const literal = (value: string) => JSON.stringify(value).replace(/</g, "\\u003c");
  return [
    "(function(){",
    `var origin=${literal(origin)},message=${literal(message)};`,
    "function answer(event){",
    'if(event.origin!==origin||event.data!=="authorizing:github"||!event.source)return;',
    'window.removeEventListener("message",answer);',
    "event.source.postMessage(message,origin);",
    "}",
    'window.addEventListener("message",answer);',
    'if(window.opener)window.opener.postMessage("authorizing:github",origin);',
    'else document.body.insertAdjacentHTML("beforeend","<p>Open the editing screen and sign in from there.</p>");',
    "})();",
  ].join("");
};

/** The page that hands the token to the editing screen, its one script allowed by its hash; the state is spent. */
const handoverPage = (origin: string, token: string, secure: boolean): OAuthAnswer => {
  const script = handoverScript(origin, token);
  return {
    status: 200,
    headers: pageHeaders(`sha256-${createHash("sha256").update(script).digest("base64")}`),
    body: page("Signed in", ["Returning to the editing screen…"], script),
    cookies: [stateCookie("", 0, secure)],
  };
};

export interface GithubOAuthOptions {
  readonly settings: GithubOAuthSettings;
  readonly log: (line: string) => void;
  /** Where spent states are recorded: one process's memory unless given (see SpentStates). */
  readonly spentStates?: SpentStates;
  readonly exchangeTimeoutMs?: number;
  readonly now?: () => number;
}

/** What every step of the handshake works with: the options, defaults filled in. */
type Handshake = Required<GithubOAuthOptions>;

const originOf = ({ settings }: Handshake, request: OAuthRequest) => settings.siteOrigin ?? request.origin;
const secureFor = (origin: string) => origin.startsWith("https:");
const redirectUri = (origin: string) => `${origin}${CALLBACK_PATH}`;

/** /api/auth: a new state, remembered in a cookie for the callback, and the way to GitHub. */
const begin = (handshake: Handshake, request: OAuthRequest): OAuthAnswer => {
  const { settings } = handshake;
  const origin = originOf(handshake, request);
  const state = newState(settings.clientSecret, handshake.now());
  const authorize = new URL(`${settings.githubUrl}/login/oauth/authorize`);
  authorize.searchParams.set("client_id", settings.clientId);
  authorize.searchParams.set("redirect_uri", redirectUri(origin));
  authorize.searchParams.set("scope", settings.scope);
  authorize.searchParams.set("state", state);
  authorize.searchParams.set("allow_signup", "false");
  return {
    status: 302,
    headers: { Location: authorize.href, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" },
    body: "",
    cookies: [stateCookie(state, STATE_MAX_AGE_SECONDS, secureFor(origin))],
  };
};

/**
 * The callback's state, checked before anything else the answer says: only the sign-in this browser started
 * is acted on. Then it is spent, whatever GitHub answered, so a replay of this callback ends here however
 * the first one ended. Null: the state is this browser's, fresh, and used for the first time.
 */
const stateRefusal = async (handshake: Handshake, state: string, expected: string): Promise<Refusal | null> => {
  const { settings, log, spentStates, now } = handshake;
  if (state === "" || expected === "" || !sameText(state, expected)) {
    log("sign-in: refused, the state does not match this browser's");
    return "notThisBrowser";
  }
  const expiresAtMs = stateExpiry(settings.clientSecret, state);
  if (expiresAtMs === null || expiresAtMs <= now()) {
    log("sign-in: refused, the state is too old or was not issued here");
    return "tooOld";
  }
  let firstUse: boolean;
  try {
    firstUse = await spentStates.spend(createHash("sha256").update(state).digest("base64url"), expiresAtMs);
  } catch (failure) {
    log(`sign-in: the record of used sign-ins could not be reached (${(failure as Error).name})`);
    return "unrecordable";
  }
  if (firstUse) return null;
  log("sign-in: refused, this state was used before");
  return "usedBefore";
};

/** What GitHub's answer itself refuses: an error it reports, or no code to exchange. Null: a code. */
const answerRefusal = (query: URLSearchParams, log: (line: string) => void): Refusal | null => {
  const error = query.get("error");
  if (error !== null) {
    log(`sign-in: GitHub answered ${error.slice(0, 40).replace(/[^\w-]/g, "?")}`);
    return error === "access_denied" ? "accessDenied" : "githubRefused";
  }
  const code = query.get("code") ?? "";
  return code === "" || code.length > 256 ? "noCode" : null;
};

/** The code exchanged for a token with the OAuth App's secret (@octokit/oauth-methods), within the deadline. */
const exchangeCode = async (handshake: Handshake, code: string, redirectUrl: string): Promise<string> => {
  const { settings, exchangeTimeoutMs } = handshake;
  const [{ exchangeWebFlowCode }, { request: octokitRequest }] = await Promise.all([
    import("@octokit/oauth-methods"),
    import("@octokit/request"),
  ]);
  const { authentication } = await exchangeWebFlowCode({
    clientType: "oauth-app",
    clientId: settings.clientId,
    clientSecret: settings.clientSecret,
    code,
    redirectUrl,
    request: octokitRequest.defaults({
      baseUrl: githubApiRoot(settings.githubUrl),
      request: { signal: AbortSignal.timeout(exchangeTimeoutMs) },
    }),
  });
  return authentication.token;
};

/** Why an exchange failed, as the editor is told it; the log line names the kind of failure, never the code. */
const exchangeRefusal = (failure: unknown, log: (line: string) => void): Refusal => {
  const status = (failure as { status?: unknown }).status;
  const message = (failure as Error).message;
  // GitHub's OAuth errors come as 200 with an error field, turned into a 400 RequestError.
  const badCode = status === 400 && message.includes("bad_verification_code");
  const badSecret = status === 400 && message.includes("incorrect_client_credentials");
  log(
    `sign-in: the code exchange failed (${badCode ? "bad code" : badSecret ? "client credentials refused" : (failure as Error).name})`,
  );
  if (badCode) return "badCode";
  if (badSecret) return "badCredentials";
  // A response from GitHub (not a connection refused, nor our own deadline) that was a server error.
  const answered = (failure as { response?: unknown }).response !== undefined;
  return answered && typeof status === "number" && status >= 500 ? "githubFailed" : "githubSlow";
};

/** /api/auth/callback: GitHub's answer, checked, exchanged, and handed to the editing screen. */
const callback = async (handshake: Handshake, request: OAuthRequest): Promise<OAuthAnswer> => {
  const origin = originOf(handshake, request);
  const secure = secureFor(origin);
  const query = new URL(request.url, "http://callback.invalid").searchParams;
  const refused =
    (await stateRefusal(handshake, query.get("state") ?? "", request.cookies[STATE_COOKIE] ?? "")) ??
    answerRefusal(query, handshake.log);
  if (refused) return errorPage(refused, secure);
  let token: string;
  try {
    token = await exchangeCode(handshake, query.get("code") ?? "", redirectUri(origin));
  } catch (failure) {
    return errorPage(exchangeRefusal(failure, handshake.log), secure);
  }
  handshake.log("sign-in: token handed to the editing screen");
  return handoverPage(origin, token, secure);
};

export interface GithubOAuth {
  readonly begin: (request: OAuthRequest) => OAuthAnswer;
  readonly callback: (request: OAuthRequest) => Promise<OAuthAnswer>;
}

export const createGithubOAuth = ({
  settings,
  log,
  spentStates = memorySpentStates(),
  exchangeTimeoutMs = EXCHANGE_TIMEOUT_MS,
  now = Date.now,
}: GithubOAuthOptions): GithubOAuth => {
  const handshake: Handshake = { settings, log, spentStates, exchangeTimeoutMs, now };
  return { begin: (request) => begin(handshake, request), callback: (request) => callback(handshake, request) };
};
