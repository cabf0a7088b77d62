/**
 * @jest-environment node
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseCookie } from "cookie";
import { JSDOM } from "jsdom";
import { readInquiryConfig } from "../server/inquiries/config";
import { readInquiryContent } from "../server/inquiries/content-on-disk";
import type { GatsbyFunctionRequest, GatsbyFunctionResponse } from "gatsby";
import { createGithubOAuth, readGithubOAuthSettings, type GithubOAuthSettings } from "../server/sign-in/github-oauth";
import { createSignInFunctions } from "../server/sign-in/gatsby-functions";
import { blobsSpentStates, SPENT_STATES_STORE } from "../server/sign-in/blobs-spent-states";
import { blobsAccessFromLambdaEvent, BlobsStore, BlobsWriteError } from "../server/sign-in/blobs-store";
import { startBlobsServer } from "../testing/blobs-server";
import { recordingResponse, type FunctionAnswer } from "../testing/gatsby-function-call";
import {
  FAKE_CLIENT_ID,
  FAKE_CLIENT_SECRET,
  FAKE_TOKEN,
  GOOD_CODE,
  startFakeGithub,
  type FakeGithub,
} from "../testing/fake-github";
import { startInquiryApp } from "./support/inquiry-app";

const site = "https://www.example.com";
let github: FakeGithub;
let logs: string[] = [];

beforeEach(async () => {
  github = await startFakeGithub();
  logs = [];
});
afterEach(() => github.close());

/** The fake GitHub's OAuth App, with whatever a test changes. */
const settingsWith = (overrides: Partial<GithubOAuthSettings> = {}): GithubOAuthSettings => ({
  clientId: FAKE_CLIENT_ID,
  clientSecret: FAKE_CLIENT_SECRET,
  githubUrl: github.url,
  scope: "repo",
  ...overrides,
});

const oauthFor = (overrides: Partial<GithubOAuthSettings> = {}, now: () => number = Date.now) =>
  createGithubOAuth({
    now,
    settings: settingsWith(overrides),
    log: (line) => logs.push(line),
    exchangeTimeoutMs: 1_000,
  });

/** /api/auth, then GitHub's redirect back with the state it was given (or another). */
const signIn = async (
  oauth: ReturnType<typeof oauthFor>,
  callbackQuery: (state: string) => string,
  cookieState?: (state: string) => string,
) => {
  const begun = oauth.begin({
    url: "/api/auth?provider=github&site_id=www.example.com&scope=repo",
    cookies: {},
    origin: site,
  });
  const location = new URL(begun.headers.Location ?? "");
  const state = location.searchParams.get("state") ?? "";
  const cookie = begun.cookies?.find(({ name }) => name === "cms_oauth_state")?.value ?? "";
  const answer = await oauth.callback({
    url: `/api/auth/callback?${callbackQuery(state)}`,
    cookies: { other: "1", cms_oauth_state: cookieState ? cookieState(state) : cookie },
    origin: site,
  });
  return { begun, location, state, answer };
};

const secretsIn = (text: string) =>
  [FAKE_TOKEN, FAKE_CLIENT_SECRET, GOOD_CODE].filter((secret) => text.includes(secret));

describe("the editing screen's GitHub sign-in", () => {
  it("sends the editor to GitHub with the client id, the callback on this site, the scope and a fresh state bound to a cookie", () => {
    const oauth = oauthFor();
    const first = oauth.begin({ url: "/api/auth", cookies: {}, origin: site });
    const second = oauth.begin({ url: "/api/auth", cookies: {}, origin: site });
    expect(first.status).toBe(302);
    const location = new URL(first.headers.Location ?? "");
    expect(`${location.origin}${location.pathname}`).toBe(`${github.url}/login/oauth/authorize`);
    expect(location.searchParams.get("client_id")).toBe(FAKE_CLIENT_ID);
    expect(location.searchParams.get("redirect_uri")).toBe(`${site}/api/auth/callback`);
    expect(location.searchParams.get("scope")).toBe("repo");
    const state = location.searchParams.get("state") ?? "";
    // Its issue time, 32 random bytes and a signature.
    expect(state).toMatch(/^[0-9a-z]+\.[\w-]{43}\.[\w-]{43}$/);
    expect(new URL(second.headers.Location ?? "").searchParams.get("state")).not.toBe(state);
    expect(first.cookies).toEqual([
      {
        name: "cms_oauth_state",
        value: state,
        options: { path: "/api/auth/callback", maxAge: 600, httpOnly: true, sameSite: "lax", secure: true },
      },
    ]);
  });

  it("exchanges GitHub's code and hands the token over, in a page whose policy allows exactly its one script", async () => {
    const { answer } = await signIn(oauthFor(), (state) => `code=${GOOD_CODE}&state=${state}`);
    expect(answer.status).toBe(200);
    expect(github.exchanges).toEqual([
      {
        client_id: FAKE_CLIENT_ID,
        client_secret: FAKE_CLIENT_SECRET,
        code: GOOD_CODE,
        redirect_uri: `${site}/api/auth/callback`,
        accept: "application/json",
      },
    ]);
    const script = /<script>([\s\S]*)<\/script>/.exec(answer.body)?.[1] ?? "";
    expect(script).toContain(FAKE_TOKEN);
    const hash = `sha256-${createHash("sha256").update(script).digest("base64")}`;
    expect(answer.headers["Content-Security-Policy"]).toContain(`script-src '${hash}'`);
    expect(answer.headers["Content-Security-Policy"]).toMatch(/^default-src 'none'/);
    expect(answer.headers["Cache-Control"]).toBe("no-store");
    expect(answer.headers["Referrer-Policy"]).toBe("no-referrer");
    // The state is spent.
    expect(answer.cookies).toEqual([
      {
        name: "cms_oauth_state",
        value: "",
        options: { path: "/api/auth/callback", maxAge: 0, httpOnly: true, sameSite: "lax", secure: true },
      },
    ]);
    expect(secretsIn(logs.join("\n"))).toEqual([]);
  });

  it("posts the token only to this site's origin, and only after Decap's handshake from it", async () => {
    const { answer } = await signIn(oauthFor(), (state) => `code=${GOOD_CODE}&state=${state}`);
    const script = /<script>([\s\S]*)<\/script>/.exec(answer.body)?.[1] ?? "";
    const dom = new JSDOM("<!doctype html><body></body>", {
      url: `${site}/api/auth/callback`,
      runScripts: "outside-only",
    });
    const toOpener: [unknown, string][] = [];
    const toSource: [unknown, string][] = [];
    Object.defineProperty(dom.window, "opener", {
      value: { postMessage: (data: unknown, origin: string) => toOpener.push([data, origin]) },
    });
    dom.window.eval(script);
    // It speaks first, to this origin only (never "*").
    expect(toOpener).toEqual([["authorizing:github", site]]);
    const source = { postMessage: (data: unknown, origin: string) => toSource.push([data, origin]) };
    const send = (origin: string, data: unknown) =>
      dom.window.dispatchEvent(
        new dom.window.MessageEvent("message", { origin, data, source: source as unknown as Window }),
      );
    send("https://evil.example.net", "authorizing:github");
    send(site, "something else");
    expect(toSource).toEqual([]);
    send(site, "authorizing:github");
    expect(toSource).toEqual([
      [`authorization:github:success:${JSON.stringify({ token: FAKE_TOKEN, provider: "github" })}`, site],
    ]);
    // Once: a second echo gets nothing more.
    send(site, "authorizing:github");
    expect(toSource).toHaveLength(1);
  });

  it.each([
    [
      "a state that is not this browser's",
      (state: string) => `code=${GOOD_CODE}&state=${state}x`,
      undefined,
      400,
      /not started from this browser/,
    ],
    ["no state", () => `code=${GOOD_CODE}`, undefined, 400, /not started from this browser/],
    [
      "no state cookie (another browser, or expired)",
      (state: string) => `code=${GOOD_CODE}&state=${state}`,
      () => "",
      400,
      /not started from this browser/,
    ],
    [
      "a denied authorisation",
      (state: string) => `error=access_denied&error_description=denied&state=${state}`,
      undefined,
      403,
      /access was not granted/,
    ],
    [
      "a GitHub error",
      (state: string) => `error=redirect_uri_mismatch&state=${state}`,
      undefined,
      502,
      /refused the sign-in request/,
    ],
    ["a bad or used code", (state: string) => `code=used-code&state=${state}`, undefined, 400, /used or expired/],
  ])(
    "ends on a page that says what to do, posting nothing, for %s",
    async (_case, query, cookieState, status, message) => {
      const { answer } = await signIn(oauthFor(), query, cookieState);
      expect(answer.status).toBe(status);
      expect(answer.body).toMatch(message);
      expect(answer.body).not.toContain("<script");
      expect(answer.headers["Content-Security-Policy"]).not.toContain("script-src");
      // A sign-in this browser started is over; one it did not start leaves its own under way untouched.
      const started = !answer.body.includes("not started from this browser");
      expect((answer.cookies ?? []).some(({ value, options }) => value === "" && options.maxAge === 0)).toBe(started);
      expect(secretsIn(answer.body + logs.join("\n"))).toEqual([]);
    },
  );

  it("spends the state on first use: a replayed callback with the same cookie never reaches GitHub again", async () => {
    const oauth = oauthFor();
    const { state, answer } = await signIn(oauth, (issued) => `code=${GOOD_CODE}&state=${issued}`);
    expect(answer.status).toBe(200);
    const replay = await oauth.callback({
      url: `/api/auth/callback?code=${GOOD_CODE}&state=${state}`,
      cookies: { cms_oauth_state: state },
      origin: site,
    });
    expect(github.exchanges).toHaveLength(1);
    expect(replay.status).toBe(400);
    expect(replay.body).toMatch(/already used\. Each sign-in works once/);
    expect(replay.body).not.toContain("<script");
    expect(replay.cookies?.map(({ options }) => options.maxAge)).toEqual([0]);
    expect(logs).toContain("sign-in: refused, this state was used before");
  });

  it("spends the state even when GitHub answered with an error, so the same answer cannot be replayed with a code", async () => {
    const oauth = oauthFor();
    const { state } = await signIn(oauth, (issued) => `error=access_denied&state=${issued}`);
    const replay = await oauth.callback({
      url: `/api/auth/callback?code=${GOOD_CODE}&state=${state}`,
      cookies: { cms_oauth_state: state },
      origin: site,
    });
    expect(replay.body).toMatch(/already used/);
    expect(github.exchanges).toEqual([]);
  });

  it("refuses a state past its ten minutes, and one whose issue time was altered, without asking GitHub", async () => {
    let time = Date.now();
    const oauth = oauthFor({}, () => time);
    const begun = oauth.begin({ url: "/api/auth", cookies: {}, origin: site });
    const state = new URL(begun.headers.Location ?? "").searchParams.get("state") ?? "";
    const call = (sent: string) =>
      oauth.callback({
        url: `/api/auth/callback?code=${GOOD_CODE}&state=${sent}`,
        cookies: { cms_oauth_state: sent },
        origin: site,
      });
    // A later issue time, to keep a spent or old state alive, breaks its signature.
    const [, nonce, signature] = state.split(".");
    const altered = await call(`${(time + 60_000).toString(36)}.${nonce}.${signature}`);
    expect(altered.status).toBe(400);
    expect(altered.body).toMatch(/took too long, or was not started from this site/);
    time += 600_001;
    const late = await call(state);
    expect(late.status).toBe(400);
    expect(late.body).toMatch(/took too long/);
    expect(github.exchanges).toEqual([]);
  });

  it("refuses to exchange a code when the record of spent states cannot be reached", async () => {
    const oauth = createGithubOAuth({
      settings: settingsWith(),
      log: (line) => logs.push(line),
      spentStates: { spend: () => Promise.reject(new Error("store down")) },
    });
    const { answer } = await signIn(oauth, (state) => `code=${GOOD_CODE}&state=${state}`);
    expect(answer.status).toBe(503);
    expect(answer.body).toMatch(/could not check that the sign-in is new/);
    expect(github.exchanges).toEqual([]);
  });

  it("ignores a crafted error link that does not carry this browser's state, leaving its sign-in under way", async () => {
    const { answer } = await signIn(oauthFor(), () => "error=access_denied&state=someone-elses");
    expect(answer.status).toBe(400);
    expect(answer.cookies).toEqual([]);
  });

  it("hands the token to CMS_SITE_ORIGIN where it is set, whatever Host the request came with", async () => {
    const oauth = oauthFor({ siteOrigin: "https://cms.example.org" });
    const begun = oauth.begin({ url: "/api/auth", cookies: {}, origin: "http://10.0.0.5:9000" });
    const location = new URL(begun.headers.Location ?? "");
    expect(location.searchParams.get("redirect_uri")).toBe("https://cms.example.org/api/auth/callback");
    expect(begun.cookies?.[0]?.options.secure).toBe(true);
    const state = location.searchParams.get("state") ?? "";
    const page = await oauth.callback({
      url: `/api/auth/callback?code=${GOOD_CODE}&state=${state}`,
      cookies: { cms_oauth_state: state },
      origin: "http://10.0.0.5:9000",
    });
    expect(page.body).toContain(JSON.stringify("https://cms.example.org"));
    expect(page.body).not.toContain("10.0.0.5");
  });

  it("says so when GitHub refuses the site's credentials, is down or is slow", async () => {
    const wrongSecret = await signIn(
      oauthFor({ clientSecret: "not the secret" }),
      (state) => `code=${GOOD_CODE}&state=${state}`,
    );
    expect(wrongSecret.answer).toMatchObject({
      status: 502,
      body: expect.stringContaining("CMS_GITHUB_CLIENT_SECRET") as unknown,
    });
    github.mode = "error500";
    expect((await signIn(oauthFor(), (state) => `code=${GOOD_CODE}&state=${state}`)).answer).toMatchObject({
      status: 502,
      body: expect.stringContaining("GitHub had a problem") as unknown,
    });
    github.mode = "slow";
    const started = Date.now();
    expect((await signIn(oauthFor(), (state) => `code=${GOOD_CODE}&state=${state}`)).answer).toMatchObject({
      status: 504,
      body: expect.stringContaining("did not answer in time") as unknown,
    });
    expect(Date.now() - started).toBeLessThan(4_000);
    await github.close();
    expect((await signIn(oauthFor(), (state) => `code=${GOOD_CODE}&state=${state}`)).answer).toMatchObject({
      status: 504,
    });
    expect(secretsIn(logs.join("\n"))).toEqual([]);
    expect(logs.join("\n")).not.toContain("not the secret");
  });
});

describe("the production server's sign-in routes", () => {
  const content = readInquiryContent(path.resolve("content"));
  const logLines: string[] = [];
  const serve = async (githubOAuth: GithubOAuthSettings | null) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "oauth-data-"));
    return startInquiryApp({
      content,
      githubOAuth,
      config: () => readInquiryConfig(content.form.delivery, { INQUIRY_DATA_DIR: dataDir }),
      log: (line) => logs.push(line),
      logLines,
      listen: false,
    });
  };

  it("run the handshake through /api/auth and /api/auth/callback, with the site's headers, and log no code or token", async () => {
    const { server, origin, fetch } = await serve(settingsWith({ scope: "public_repo" }));
    try {
      const begun = await fetch(`${origin}/api/auth?provider=github&site_id=127.0.0.1&scope=repo`, {
        redirect: "manual",
      });
      expect(begun.status).toBe(302);
      const location = new URL(begun.headers.get("location") ?? "");
      expect(location.searchParams.get("redirect_uri")).toBe(`${origin}/api/auth/callback`);
      expect(location.searchParams.get("scope")).toBe("public_repo");
      // Plain HTTP (a test on loopback): the cookie cannot be Secure there.
      const cookie = begun.headers.get("set-cookie") ?? "";
      expect(cookie).toMatch(
        /^cms_oauth_state=[\w.-]+; Max-Age=600; Path=\/api\/auth\/callback; HttpOnly; SameSite=Lax$/,
      );
      const state = location.searchParams.get("state") ?? "";
      const page = await fetch(`${origin}/api/auth/callback?code=${GOOD_CODE}&state=${state}`, {
        headers: { cookie: cookie.split(";")[0] ?? "" },
      });
      expect(page.status).toBe(200);
      expect(page.headers.get("x-content-type-options")).toBe("nosniff");
      expect(page.headers.get("content-security-policy")).toMatch(/^default-src 'none'; .*script-src 'sha256-/);
      expect(await page.text()).toContain(FAKE_TOKEN);
      expect(github.exchanges[0]).toMatchObject({ redirect_uri: `${origin}/api/auth/callback` });
      expect(secretsIn(logLines.join("\n"))).toEqual([]);
      // The same callback again, cookie and all: the server remembers the state as spent.
      const replay = await fetch(`${origin}/api/auth/callback?code=${GOOD_CODE}&state=${state}`, {
        headers: { cookie: cookie.split(";")[0] ?? "" },
      });
      expect(replay.status).toBe(400);
      expect(await replay.text()).toMatch(/already used/);
      expect(github.exchanges).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it("limit each route to 20 requests a minute from one address, though the site-wide limit is off", async () => {
    const { server, origin, fetch } = await serve(settingsWith());
    try {
      const statuses = async (path: string) => {
        const answers = [];
        for (let index = 0; index < 21; index += 1)
          answers.push(await fetch(`${origin}${path}`, { redirect: "manual" }));
        return answers;
      };
      const begun = await statuses("/api/auth");
      expect(begun.map(({ status }) => status)).toEqual([...Array<number>(20).fill(302), 429]);
      const refused = begun[20];
      expect(Number(refused?.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(refused?.headers.get("set-cookie")).toBeNull();
      expect(await refused?.json()).toEqual({ error: "The request could not be handled." });
      // The callback counts apart: a sign-in is one request to each.
      const called = await statuses("/api/auth/callback?code=x&state=y");
      expect(called.map(({ status }) => status)).toEqual([...Array<number>(20).fill(400), 429]);
      expect(github.exchanges).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it("do not exist when sign-in is not set up", async () => {
    const { server, origin, fetch } = await serve(null);
    try {
      expect((await fetch(`${origin}/api/auth`, { redirect: "manual" })).status).toBe(404);
      expect((await fetch(`${origin}/api/auth/callback?code=x&state=y`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});

describe("the CDN deploy's sign-in functions", () => {
  let blobs: Awaited<ReturnType<typeof startBlobsServer>>;
  beforeAll(async () => {
    blobs = await startBlobsServer();
  });
  afterAll(() => blobs.close());
  /** The local Blobs server's access, as an invocation's event gives it. */
  const edgeAccess = () => ({
    siteID: blobs.siteID,
    token: blobs.token,
    edgeURL: blobs.url,
    uncachedEdgeURL: blobs.url,
  });

  const settingsEnv = () => ({
    CMS_GITHUB_CLIENT_ID: FAKE_CLIENT_ID,
    CMS_GITHUB_CLIENT_SECRET: FAKE_CLIENT_SECRET,
    CMS_GITHUB_URL: github.url,
  });
  let saved: NodeJS.ProcessEnv;
  beforeEach(() => {
    saved = { ...process.env };
    Object.assign(process.env, settingsEnv());
  });
  afterEach(() => {
    process.env = saved;
  });

  /**
   * A GET to a sign-in function as gatsby-adapter-netlify makes it from a Lambda event (no socket), its
   * Cookie header parsed into `cookies` as the adapter's handler does.
   */
  const get = async (
    fn: (req: GatsbyFunctionRequest, res: GatsbyFunctionResponse) => Promise<void>,
    url: string,
    cookie: string | undefined,
    event: unknown,
  ): Promise<FunctionAnswer> => {
    const answer: FunctionAnswer = { status: 200, headers: {}, body: "" };
    const req = {
      method: "GET",
      url,
      originalUrl: url,
      query: {},
      headers: { host: "site.example", "x-forwarded-proto": "https", ...(cookie ? { cookie } : {}) },
      ...(cookie ? { cookies: parseCookie(cookie) } : {}),
      ...(event === undefined ? {} : { netlifyFunctionParams: { event, context: {} } }),
    } as unknown as GatsbyFunctionRequest;
    const res = recordingResponse(answer);
    await fn(req, res);
    return answer;
  };

  /** /api/auth on one instance, then GitHub's redirect back; the callback's URL and cookie, to replay. */
  const begin = async (event: unknown) => {
    const begun = await get(
      createSignInFunctions({ siteHeaders: {}, log: (line) => logs.push(line) }).begin,
      "/api/auth",
      undefined,
      event,
    );
    const state = new URL(begun.headers.location ?? "").searchParams.get("state") ?? "";
    expect(begun.headers["set-cookie"]).toBe(
      `cms_oauth_state=${state}; Max-Age=600; Path=/api/auth/callback; HttpOnly; Secure; SameSite=Lax`,
    );
    return {
      url: `/api/auth/callback?code=${GOOD_CODE}&state=${state}`,
      cookie: (begun.headers["set-cookie"] ?? "").split(";")[0],
    };
  };

  it("spend a state in Netlify Blobs, so a callback replayed to another instance exchanges nothing", async () => {
    const event = blobs.lambdaEvent();
    const { url, cookie } = await begin(event);
    // Two instances, as two cold starts: they share nothing but the store.
    const first = await get(
      createSignInFunctions({ siteHeaders: {}, log: (line) => logs.push(line) }).callback,
      url,
      cookie,
      event,
    );
    const replay = await get(
      createSignInFunctions({ siteHeaders: {}, log: (line) => logs.push(line) }).callback,
      url,
      cookie,
      event,
    );
    expect(first.status).toBe(200);
    expect(first.body).toContain(FAKE_TOKEN);
    expect(replay.status).toBe(400);
    expect(replay.body).toMatch(/already used/);
    expect(replay.body).not.toContain(FAKE_TOKEN);
    expect(github.exchanges).toHaveLength(1);
    // Recorded by a digest and expiry only: no state reaches the store.
    const state = new URL(url, "https://site.example").searchParams.get("state") ?? "";
    const stored = fs.readdirSync(blobs.directory, { recursive: true }).map(String).join("\n");
    expect(stored).toMatch(/\d+-[\w-]{43}/);
    expect(stored).not.toContain(state.split(".")[1]);
  });

  it("keep a spent state only until it expires: each spend removes the records past their expiry", async () => {
    // A store of its own: the test above left a record in the deploy's, which expires in real time.
    const store = new BlobsStore(`${SPENT_STATES_STORE}-expiry`, edgeAccess());
    let time = 1_000_000;
    const spent = blobsSpentStates(store, () => time);
    expect(await spent.spend("first", time + 600_000)).toBe(true);
    expect(await spent.spend("first", time + 600_000)).toBe(false);
    time += 600_001;
    expect(await spent.spend("second", time + 600_000)).toBe(true);
    expect((await store.list("")).map((entry) => entry.key)).toEqual([`${time + 600_000}-second`]);
  });

  it("never take a write the store refused for a first spend", async () => {
    const refused = new BlobsStore(`${SPENT_STATES_STORE}-refused`, { ...edgeAccess(), token: "not-the-token" });
    // @netlify/blobs answers such a conditional write as made; the store reads the status itself.
    await expect(refused.writeIfNew(`${Date.now() + 600_000}-state`, { spent: true })).rejects.toBeInstanceOf(
      BlobsWriteError,
    );
  });

  it("read an invocation's store access only where strong consistency is possible", () => {
    const event = blobs.lambdaEvent();
    expect(blobsAccessFromLambdaEvent(event)).toEqual(edgeAccess());
    const cachedOnly = Buffer.from(JSON.stringify({ url: blobs.url, token: "t" })).toString("base64");
    expect(blobsAccessFromLambdaEvent({ ...event, blobs: cachedOnly })).toBeNull();
    expect(blobsAccessFromLambdaEvent({ ...event, headers: {} })).toBeNull();
    expect(blobsAccessFromLambdaEvent(undefined)).toBeNull();
  });

  it("refuse on Netlify when the invocation carries no store credentials, rather than accept a state unrecorded", async () => {
    const { url, cookie } = await begin({ headers: {} });
    const answer = await get(
      createSignInFunctions({ siteHeaders: {}, log: (line) => logs.push(line) }).callback,
      url,
      cookie,
      { headers: {} },
    );
    expect(answer.status).toBe(503);
    expect(github.exchanges).toEqual([]);
  });

  it("spend a state in the process's memory under `gatsby serve`", async () => {
    const functions = createSignInFunctions({ siteHeaders: {}, log: (line) => logs.push(line) });
    const { url, cookie } = await begin(undefined);
    expect((await get(functions.callback, url, cookie, undefined)).status).toBe(200);
    expect((await get(functions.callback, url, cookie, undefined)).body).toMatch(/already used/);
    expect(github.exchanges).toHaveLength(1);
  });

  it("answer 503 and log why while a setting is wrong, read once for the instance", async () => {
    process.env.CMS_GITHUB_CLIENT_SECRET = "";
    const functions = createSignInFunctions({ siteHeaders: {}, log: (line) => logs.push(line) });
    const answer = await get(functions.begin, "/api/auth", undefined, undefined);
    expect([answer.status, JSON.parse(answer.body)]).toEqual([503, { error: "Sign-in is not available now." }]);
    expect(logs).toEqual([
      "not available: CMS_GITHUB_CLIENT_ID and CMS_GITHUB_CLIENT_SECRET go together: set both, or neither",
    ]);
    // Mended in the environment, it stays unavailable until a new instance reads it.
    process.env.CMS_GITHUB_CLIENT_SECRET = FAKE_CLIENT_SECRET;
    expect((await get(functions.begin, "/api/auth", undefined, undefined)).status).toBe(503);
  });
});

describe("the sign-in settings", () => {
  const from = (values: Record<string, string>) => readGithubOAuthSettings(values);
  it("are off without a client id, and name what is wrong", () => {
    expect(from({})).toBeNull();
    expect(() => from({ CMS_GITHUB_CLIENT_ID: "x" })).toThrow(/go together/);
    expect(() => from({ CMS_GITHUB_CLIENT_ID: "x", CMS_GITHUB_CLIENT_SECRET: "y", CMS_GITHUB_SCOPE: "admin" })).toThrow(
      /repo or public_repo/,
    );
    expect(() =>
      from({ CMS_GITHUB_CLIENT_ID: "x", CMS_GITHUB_CLIENT_SECRET: "y", CMS_GITHUB_URL: "http://github.example.com" }),
    ).toThrow(/https/);
    expect(() =>
      from({ CMS_GITHUB_CLIENT_ID: "x", CMS_GITHUB_CLIENT_SECRET: "y", CMS_SITE_ORIGIN: "https://x.example/admin" }),
    ).toThrow(/CMS_SITE_ORIGIN must be an origin/);
    expect(
      from({ CMS_GITHUB_CLIENT_ID: "x", CMS_GITHUB_CLIENT_SECRET: "y", CMS_GITHUB_URL: "https://github.example.com/" }),
    ).toEqual({
      clientId: "x",
      clientSecret: "y",
      githubUrl: "https://github.example.com",
      scope: "repo",
      siteOrigin: null,
    });
  });
});
