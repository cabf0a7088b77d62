/**
 * @jest-environment node
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import zlib from "node:zlib";
import { buildApp, type ServerOptions } from "../server/app";
import { adminPageHeaders } from "../build/admin-headers";
import { precompressFiles } from "../build/precompressed-files";
import { pagePolicy } from "../build/security-headers";
import { commonHeaders } from "../server/site/common-headers";
import { formatHeaderRules } from "../server/site/headers-file";
import { resultPagePolicy } from "../server/inquiries/intake/result-page";
import { readInquiryConfig } from "../server/inquiries/config";
import { readInquiryContent } from "../server/inquiries/content-on-disk";
import { referencePattern } from "../server/inquiries/intake/reference";
import { DATABASE_FILE } from "../server/inquiries/store/sqlite";
import { logInto } from "./support/server-log";
import { injectFetch, makePublicDir } from "./support/inquiry-app";
import { postJson, validInquiry, type Send } from "./support/inquiry-posts";
import { connectionRefused, exchange, offerBody, parseAnswer } from "./support/raw-http";
import { SQL_POSTGRES, useSqlStores } from "./support/sql-stores";
import { healthDetailsHeaders, TEST_HEALTH_TOKEN } from "../testing/site-server";
import { storedRecordsIn } from "./support/outbox-fixtures";
import { startSiteProcess, type SiteProcess } from "./support/site-process";

const content = readInquiryContent(path.resolve("content"));
const maxBodyBytes = content.form.delivery.maxBodyKilobytes * 1024;

const valid = validInquiry;

const policies = {
  home: pagePolicy(["sha256-home"]),
  contact: pagePolicy(["sha256-contact"]),
  missing: pagePolicy(["sha256-missing"]),
  // The rule for all paths carries one for the CDN's answers no page's rule covers; the server never sends it.
  anyPage: pagePolicy(["sha256-contact", "sha256-home", "sha256-missing"]),
};
const hashedScript = "app-0123456789abcdef0123.js";
const scriptText = `window.cart=${JSON.stringify(Array.from({ length: 200 }, (_, index) => `item-${index}`))};`;

/** The fake build of support/inquiry-app.ts, plus a second page, hashed and unhashed assets and page data. */
const makeSite = (): string => {
  const dir = makePublicDir();
  mkdirSync(path.join(dir, "contact"));
  writeFileSync(path.join(dir, "contact/index.html"), "<!doctype html><title>Contact</title><h1>Contact us</h1>");
  mkdirSync(path.join(dir, "admin"));
  writeFileSync(path.join(dir, "admin/index.html"), "<!doctype html><title>Content</title>");
  writeFileSync(path.join(dir, hashedScript), scriptText);
  mkdirSync(path.join(dir, "static"));
  writeFileSync(path.join(dir, "static/x.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  mkdirSync(path.join(dir, "page-data"));
  writeFileSync(path.join(dir, "page-data/app-data.json"), '{"webpackCompilationHash":"0123"}');
  writeFileSync(
    path.join(dir, "_headers"),
    formatHeaderRules(
      new Map([
        ["/*", { ...commonHeaders, "Content-Security-Policy": policies.anyPage }],
        ["/", { "Content-Security-Policy": policies.home }],
        ["/contact/", { "Content-Security-Policy": policies.contact }],
        ["/404.html", { "Content-Security-Policy": policies.missing }],
        ["/admin/", adminPageHeaders()],
      ]),
    ),
  );
  return dir;
};

interface Started {
  readonly origin: string;
  /** For the tests whose subject is the socket: raw bytes, timeouts, a connection closed or kept. */
  readonly port: number;
  /** A GET (or HEAD) through app.inject(), which neither asks for compression nor undoes it. */
  readonly request: (
    pathname: string,
    options?: { method?: string; headers?: Record<string, string> },
  ) => Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>;
  /** fetch's shape through app.inject(). */
  readonly fetch: Send;
  readonly close: () => Promise<void>;
}

let publicDir: string;
let dataDir: string;
let logs: string[] = [];

const inquiryEnv =
  (env: NodeJS.ProcessEnv = {}) =>
  () =>
    readInquiryConfig(content.form.delivery, {
      INQUIRY_DATA_DIR: dataDir,
      INQUIRY_RATE_LIMIT_REQUESTS: "1000",
      ...env,
    });

const startServer = async (options: Partial<ServerOptions> = {}): Promise<Started> => {
  const server = await buildApp({
    publicDir,
    content,
    inquiryConfig: inquiryEnv(),
    trustProxy: false,
    hsts: false,
    requestsPerMinute: 0,
    logStream: logInto(logs),
    healthToken: TEST_HEALTH_TOKEN,
    ...options,
  });
  await server.app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = server.app.server.address() as net.AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    request: async (pathname, { method = "GET", headers } = {}) => {
      const answer = await server.app.inject({ method: method as "GET", url: pathname, headers });
      return {
        status: answer.statusCode,
        headers: answer.headers as http.IncomingHttpHeaders,
        body: answer.rawPayload,
      };
    },
    fetch: injectFetch(server.app),
    close: () => server.close(),
  };
};

const storedLines = () => storedRecordsIn(dataDir).map((record) => JSON.stringify(record));

const expectSecurityHeaders = (headers: http.IncomingHttpHeaders | Readonly<Record<string, string>>) => {
  for (const [name, value] of Object.entries(commonHeaders))
    expect([name, headers[name.toLowerCase()]]).toEqual([name, value]);
  expect(headers["x-powered-by"]).toBeUndefined();
  expect(headers["access-control-allow-origin"]).toBeUndefined();
};

/** An answer in the handler's or the server's own terms: one message, nothing of the framework's. */
const expectOwnJsonError = (body: string) => {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  expect(Object.keys(parsed)).toEqual(["error"]);
  expect(body).not.toMatch(/FST_|statusCode|stack|at .*\.js|node_modules/);
};

beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), "production-server-"));
  logs = [];
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

beforeAll(() => {
  publicDir = makeSite();
});
afterAll(() => rmSync(publicDir, { recursive: true, force: true }));

describe("the built site, served as a CDN would", () => {
  let site: Started;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), "production-server-"));
    site = await startServer();
  });
  afterAll(() => site.close());

  it("serves a page with its own Content-Security-Policy and the common headers, and nothing cross-origin", async () => {
    const response = await site.request("/");
    expect(response.status).toBe(200);
    expect(response.body.toString()).toBe(readFileSync(path.join(publicDir, "index.html"), "utf8"));
    expect(response.headers["content-security-policy"]).toBe(policies.home);
    expect(response.headers["cache-control"]).toBe("public, max-age=0, must-revalidate");
    expect(response.headers["strict-transport-security"]).toBeUndefined();
    expectSecurityHeaders(response.headers);
  });

  it("gives a page its own policy under every path that reaches it", async () => {
    for (const [url, policy] of [
      ["/contact/", policies.contact],
      ["/contact/index.html", policies.contact],
      ["/index.html", policies.home],
      ["/?utm_source=mail", policies.home],
    ] as const) {
      const response = await site.request(url);
      expect([url, response.status, response.headers["content-security-policy"]]).toEqual([url, 200, policy]);
    }
  });

  it("sends every header of a page's rule: the editing screen's opener policy only with it", async () => {
    for (const url of ["/admin/", "/admin/index.html"]) {
      const admin = await site.request(url);
      expect([
        url,
        admin.status,
        admin.headers["content-security-policy"],
        admin.headers["cross-origin-opener-policy"],
      ]).toEqual([url, 200, adminPageHeaders()["Content-Security-Policy"], "same-origin-allow-popups"]);
    }
    const home = await site.request("/");
    expect(home.headers["cross-origin-opener-policy"]).toBeUndefined();
  });

  it("redirects a folder without its trailing slash to the slash form, keeping the query string", async () => {
    const response = await site.request("/contact?category=tactical&x=1");
    expect([301, 302, 308]).toContain(response.status);
    expect(response.headers.location).toBe("/contact/?category=tactical&x=1");
    expectSecurityHeaders(response.headers);
  });

  it("answers an unknown path with 404, the 404 page and the 404 page's policy", async () => {
    const notFound = readFileSync(path.join(publicDir, "404.html"), "utf8");
    for (const url of ["/no-such-page/", "/products/nothing", "/api/nothing", "/contact/..%2f_headers"]) {
      const response = await site.request(url);
      expect([url, response.status, response.body.toString()]).toEqual([url, 404, notFound]);
      expect(response.headers["content-security-policy"]).toBe(policies.missing);
      expectSecurityHeaders(response.headers);
    }
  });

  it("marks hashed assets immutable, and HTML and page data must-revalidate", async () => {
    const cacheOf = async (url: string) => (await site.request(url)).headers["cache-control"];
    expect(await cacheOf(`/${hashedScript}`)).toBe("public, max-age=31536000, immutable");
    expect(await cacheOf("/static/x.png")).toBe("public, max-age=31536000, immutable");
    expect(await cacheOf("/page-data/app-data.json")).toBe("public, max-age=0, must-revalidate");
    expect(await cacheOf("/contact/")).toBe("public, max-age=0, must-revalidate");
  });

  it("compresses with brotli or gzip when the client takes it, and not otherwise", async () => {
    const brotli = await site.request(`/${hashedScript}`, { headers: { "Accept-Encoding": "br, gzip" } });
    expect(brotli.headers["content-encoding"]).toBe("br");
    expect(brotli.headers.vary).toMatch(/accept-encoding/i);
    expect(zlib.brotliDecompressSync(brotli.body).toString()).toBe(scriptText);
    expect(brotli.body.length).toBeLessThan(scriptText.length / 2);

    const gzip = await site.request("/", { headers: { "Accept-Encoding": "gzip" } });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(zlib.gunzipSync(gzip.body).toString()).toBe(readFileSync(path.join(publicDir, "index.html"), "utf8"));
    expect(gzip.headers["content-security-policy"]).toBe(policies.home);

    const plain = await site.request(`/${hashedScript}`, { headers: { "Accept-Encoding": "identity" } });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.toString()).toBe(scriptText);
  });

  it("never serves the deploy's _headers file, however the path is written", async () => {
    const rules = readFileSync(path.join(publicDir, "_headers"), "utf8");
    for (const url of [
      "/_headers",
      "/%5Fheaders",
      "/%5fheaders",
      "/_header%73",
      "/./_headers",
      "//_headers",
      "/contact/../_headers",
    ]) {
      const answer = await exchange(site.port, `GET ${url} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
      expect([url, answer.includes("Content-Security-Policy:"), answer.includes(rules.slice(0, 40))]).toEqual([
        url,
        false,
        false,
      ]);
      expect([url, parseAnswer(answer)?.status]).not.toEqual([url, 200]);
    }
  });

  it("answers HEAD with the headers of GET and no body", async () => {
    const head = await site.request("/", { method: "HEAD" });
    const get = await site.request("/");
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers["content-security-policy"]).toBe(get.headers["content-security-policy"]);
    expect(head.headers["content-type"]).toBe(get.headers["content-type"]);
    const missing = await site.request("/no-such-page/", { method: "HEAD" });
    expect([missing.status, missing.body.length]).toEqual([404, 0]);
  });

  it("answers a path that is not a URL with its own short error, with the security headers", async () => {
    for (const url of ["/%", "/%zz", "/api/inquiry%"]) {
      const answer = parseAnswer(
        await exchange(site.port, `GET ${url} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`),
      );
      expect([url, answer?.status]).toEqual([url, 400]);
      expectSecurityHeaders(answer?.headers ?? {});
      expectOwnJsonError(answer?.body ?? "");
    }
  });

  it("answers a path in no canonical form (`//x`) with 404, the 404 page and its policy, as any unknown path", async () => {
    const notFound = readFileSync(path.join(publicDir, "404.html"), "utf8");
    for (const url of ["//x", "//no-such-page/", "///etc/passwd", "/./contact/", "/contact//", "/contact/../nothing"]) {
      const answer = parseAnswer(
        await exchange(site.port, `GET ${url} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`),
      );
      expect([url, answer?.status, answer?.headers["content-type"], answer?.body]).toEqual([
        url,
        404,
        "text/html; charset=utf-8",
        notFound,
      ]);
      expect([url, answer?.headers["content-security-policy"]]).toEqual([url, policies.missing]);
      expectSecurityHeaders(answer?.headers ?? {});
    }
    const head = parseAnswer(
      await exchange(site.port, "HEAD //x HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"),
    );
    expect([head?.status, head?.body]).toEqual([404, ""]);
  });

  it("answers a request it cannot parse with the site's headers and its own short error, and closes the connection", async () => {
    const malformed = [
      "GET /x HTTP/1.1\r\nHost localhost\r\n\r\n",
      "NOT HTTP AT ALL\r\n\r\n",
      "GET / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
      "GET /\u0001 HTTP/1.1\r\nHost: localhost\r\n\r\n",
    ];
    for (const text of malformed) {
      // exchange() resolves only once the server has closed the connection.
      const answer = parseAnswer(await exchange(site.port, text));
      expect([text, answer?.status, answer?.headers["cache-control"]]).toEqual([text, 400, "no-store"]);
      expect(answer?.headers["content-type"]).toBe("application/json; charset=utf-8");
      expectSecurityHeaders(answer?.headers ?? {});
      expectOwnJsonError(answer?.body ?? "");
    }
    const huge = parseAnswer(
      await exchange(site.port, `GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`),
    );
    expect(huge?.status).toBe(431);
    expectSecurityHeaders(huge?.headers ?? {});
    expectOwnJsonError(huge?.body ?? "");
  });

  it("answers GET /healthz with 200 and the status alone, and with a writable outbox to the holder of the token", async () => {
    const response = await site.fetch(`${site.origin}/healthz`);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toEqual({ status: "ok" });
    const details = await site.fetch(`${site.origin}/healthz`, { headers: healthDetailsHeaders });
    expect([details.status, details.headers.get("cache-control")]).toEqual([200, "no-store"]);
    expect(await details.json()).toMatchObject({
      status: "ok",
      outboxWritable: true,
      delivery: { pending: 0, dead: 0 },
      held: { count: 0 },
    });
    const guessed = await site.fetch(`${site.origin}/healthz`, { headers: { Authorization: "Bearer guessed" } });
    expect(await guessed.json()).toEqual({ status: "ok" });
  });

  it("gives no details without HEALTH_TOKEN, whatever a request sends", async () => {
    const untokened = await startServer({ healthToken: null });
    try {
      const answer = await untokened.fetch(`${untokened.origin}/healthz`, { headers: healthDetailsHeaders });
      expect([answer.status, await answer.json()]).toEqual([200, { status: "ok" }]);
    } finally {
      await untokened.close();
    }
  });
});

describe("the build's compressed copies", () => {
  let site: Started;
  let siteDir: string;
  const contactPage = `<!doctype html><title>Contact</title><h1>Contact us</h1>${"<p>Uniforms, gear and supplies.</p>".repeat(60)}`;
  const copy = (relative: string) => readFileSync(path.join(siteDir, relative));
  beforeAll(async () => {
    siteDir = makeSite();
    writeFileSync(path.join(siteDir, "contact/index.html"), contactPage);
    await precompressFiles(siteDir);
    site = await startServer({ publicDir: siteDir });
  });
  afterAll(async () => {
    await site.close();
    rmSync(siteDir, { recursive: true, force: true });
  });

  it("sends a page's copy as it is, with the page's type, caching and policy, to a client that takes it", async () => {
    for (const [accept, encoding, suffix] of [
      ["br, gzip", "br", ".br"],
      ["gzip, deflate, br, zstd", "br", ".br"],
      ["gzip, deflate", "gzip", ".gz"],
    ] as const) {
      const response = await site.request("/contact/", { headers: { "Accept-Encoding": accept } });
      expect([accept, response.status, response.headers["content-encoding"]]).toEqual([accept, 200, encoding]);
      expect(response.body.equals(copy(`contact/index.html${suffix}`))).toBe(true);
      expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(response.headers["cache-control"]).toBe("public, max-age=0, must-revalidate");
      expect(response.headers["content-security-policy"]).toBe(policies.contact);
      expect(response.headers.vary).toMatch(/accept-encoding/i);
    }
    const plain = await site.request("/contact/", { headers: { "Accept-Encoding": "identity" } });
    expect([plain.headers["content-encoding"], plain.body.toString()]).toEqual([undefined, contactPage]);
  });

  it("keeps a hashed asset's copy immutable and typed as its original", async () => {
    const response = await site.request(`/${hashedScript}`, { headers: { "Accept-Encoding": "br" } });
    expect(response.body.equals(copy(`${hashedScript}.br`))).toBe(true);
    expect(response.headers["content-type"]).toBe("application/javascript; charset=utf-8");
    expect(response.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
  });

  it("compresses a page that has no copy as it sends it", async () => {
    for (const suffix of [".br", ".gz"]) rmSync(path.join(siteDir, `index.html${suffix}`));
    const response = await site.request("/", { headers: { "Accept-Encoding": "br" } });
    expect([response.status, response.headers["content-encoding"]]).toEqual([200, "br"]);
    expect(zlib.brotliDecompressSync(response.body).toString()).toBe(
      readFileSync(path.join(siteDir, "index.html"), "utf8"),
    );
    expect(response.headers["content-security-policy"]).toBe(policies.home);
  });

  it("never serves a copy by its own name", async () => {
    for (const url of [`/${hashedScript}.br`, "/contact/index.html.gz"]) {
      const response = await site.request(url, { headers: { "Accept-Encoding": "br, gzip" } });
      expect([url, response.status]).toEqual([url, 404]);
    }
  });
});

describe("HSTS", () => {
  it("is sent only when the server is told every visitor arrives over HTTPS", async () => {
    const plain = await startServer();
    const behindTls = await startServer({ hsts: true });
    try {
      expect((await plain.request("/")).headers["strict-transport-security"]).toBeUndefined();
      for (const url of ["/", "/no-such-page/", "/api/inquiry"]) {
        const { headers } = await behindTls.request(url);
        expect([url, headers["strict-transport-security"]]).toEqual([url, "max-age=63072000; includeSubDomains"]);
      }
      // A request Node could not parse never reaches Fastify's hooks, and is answered with HSTS all the same.
      const malformed = parseAnswer(await exchange(behindTls.port, "GET /x HTTP/1.1\r\nHost localhost\r\n\r\n"));
      expect([malformed?.status, malformed?.headers["strict-transport-security"]]).toEqual([
        400,
        "max-age=63072000; includeSubDomains",
      ]);
    } finally {
      await plain.close();
      await behindTls.close();
    }
  });
});

describe("the flood guard (SITE_REQUESTS_PER_MINUTE)", () => {
  it("answers a client past its requests a minute with 429 and Retry-After, and leaves inquiry posts to their own limit", async () => {
    const site = await startServer({ requestsPerMinute: 3 });
    try {
      const statuses = [];
      for (const url of ["/", "/no-such-page/", "/api/inquiry"]) statuses.push((await site.request(url)).status);
      expect(statuses).toEqual([200, 404, 405]);
      const refused = await site.request("/");
      expect(refused.status).toBe(429);
      expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
      expect(refused.headers["cache-control"]).toBe("no-store");
      expectSecurityHeaders(refused.headers);
      expectOwnJsonError(refused.body.toString());
      // Counted by the inquiry handler alone, within its own (here generous) limit.
      for (let index = 0; index < 3; index += 1) {
        const response = await postJson(`${site.origin}/api/inquiry`, valid, site.fetch);
        expect(response.status).toBe(201);
      }
    } finally {
      await site.close();
    }
  });
});

describe("request bodies, bounded while they stream in", () => {
  let site: Started;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), "production-server-"));
    site = await startServer({
      inquiryConfig: () =>
        readInquiryConfig(content.form.delivery, { INQUIRY_DATA_DIR: dataDir, INQUIRY_RATE_LIMIT_REQUESTS: "1000" }),
      timeouts: { lingerMs: 300 },
    });
  });
  afterAll(() => site.close());

  const post = (target: string, type: string) => `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${type}`;

  it("refuses a chunked JSON body over the limit with 413, stores nothing, and stops reading", async () => {
    const result = await offerBody({
      port: site.port,
      head: post("/api/inquiry", "application/json"),
      total: 4 * 1024 * 1024,
      chunked: true,
      chunkBytes: 16 * 1024,
    });
    expect(result.answer?.status).toBe(413);
    expectOwnJsonError(result.answer?.body ?? "");
    expect(result.sentEverything).toBe(false);
    expect(result.closedByServer).toBe(true);
    expect(storedLines()).toHaveLength(0);
  });

  it("refuses a chunked form post over the limit with 413 and a page", async () => {
    const result = await offerBody({
      port: site.port,
      head: post("/api/inquiry", "application/x-www-form-urlencoded"),
      total: 4 * 1024 * 1024,
      chunked: true,
      chunkBytes: 16 * 1024,
    });
    expect(result.answer?.status).toBe(413);
    expect(result.answer?.headers["content-type"]).toMatch(/^text\/html/);
    expect(result.answer?.headers["content-security-policy"]).toBe(resultPagePolicy);
    expect(result.sentEverything).toBe(false);
    expect(storedLines()).toHaveLength(0);
  });

  it("refuses a 20 MB multipart post with 415 before reading it, and closes the connection", async () => {
    const result = await offerBody({
      port: site.port,
      head: post("/api/inquiry", "multipart/form-data; boundary=x"),
      total: 20 * 1024 * 1024,
    });
    expect(result.answer?.status).toBe(415);
    expectOwnJsonError(result.answer?.body ?? "");
    expect(result.sentEverything).toBe(false);
    // Reading (and throwing away) the other megabytes would keep the connection open for them.
    expect(result.closedByServer).toBe(true);
    expect(storedLines()).toHaveLength(0);
  });

  it("refuses a large body sent to a page or to an unknown /api/ path without reading it", async () => {
    for (const target of ["/", "/contact/", "/api/other", "/api/inquiry/extra"]) {
      for (const type of ["application/json", "multipart/form-data; boundary=x", "text/plain"]) {
        const result = await offerBody({ port: site.port, head: post(target, type), total: 20 * 1024 * 1024 });
        expect([target, type, result.answer?.status]).toEqual([target, type, 404]);
        expectOwnJsonError(result.answer?.body ?? "");
        expect([target, type, result.sentEverything, result.closedByServer]).toEqual([target, type, false, true]);
      }
    }
  });

  it("refuses a body declared on a GET to the inquiry endpoint without reading it", async () => {
    const result = await offerBody({
      port: site.port,
      head: `GET /api/inquiry HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json`,
      total: 20 * 1024 * 1024,
    });
    expect(result.answer?.status).toBe(405);
    expect([result.sentEverything, result.closedByServer]).toEqual([false, true]);
  });

  it("answers malformed JSON with the handler's 400 in JSON, never the framework's", async () => {
    for (const body of ["{bad", "", '{"fullName": "Pat"', "\u0000"]) {
      const response = await site.fetch(`${site.origin}/api/inquiry`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body,
      });
      expect([body, response.status]).toEqual([body, 400]);
      expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expectOwnJsonError(await response.text());
    }
  });

  it("answers a form post it cannot use with a page of what to fix, not an error", async () => {
    const response = await site.fetch(`${site.origin}/api/inquiry`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "%%%&&=&fullName=%E0%A4%A",
    });
    expect(response.status).toBe(422);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(response.headers.get("content-security-policy")).toBe(resultPagePolicy);
    expect(await response.text()).toMatch(/<!doctype html>/i);
  });

  it("takes a body that fits, sent in chunks, and keeps the connection for the next request", async () => {
    const body = JSON.stringify(valid);
    const answer = await exchange(
      site.port,
      `POST /api/inquiry HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n` +
        `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n` +
        `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
    );
    expect(parseAnswer(answer)?.status).toBe(201);
    expect(answer).toMatch(/HTTP\/1\.1 200 OK[\s\S]*\{"status":"ok"\}/);
    expect(storedLines()).toHaveLength(1);
    expect(maxBodyBytes).toBeGreaterThan(Buffer.byteLength(body));
  });
});

describe("slow clients", () => {
  let site: Started;
  beforeAll(async () => {
    site = await startServer({ timeouts: { headersMs: 400, requestMs: 800, keepAliveMs: 300 } });
  });
  afterAll(() => site.close());

  /** Sends `text` a byte at a time, one every `everyMs`, until the server closes the connection or `limitMs` pass. */
  const trickle = (text: string, everyMs: number, limitMs: number) =>
    new Promise<{ closedByServer: boolean; received: string }>((resolve) => {
      const socket = new net.Socket();
      let received = "";
      let index = 0;
      let timer: NodeJS.Timeout | undefined;
      const done = (closedByServer: boolean) => {
        clearInterval(timer);
        clearTimeout(limit);
        socket.destroy();
        resolve({ closedByServer, received });
      };
      const limit = setTimeout(() => done(false), limitMs);
      socket.on("data", (data: Buffer) => (received += data.toString()));
      socket.on("error", () => undefined);
      socket.on("close", () => done(true));
      socket.connect(site.port, "127.0.0.1", () => {
        timer = setInterval(() => {
          if (index < text.length) socket.write(text[index++] ?? "");
        }, everyMs);
      });
    });

  it("cuts off a client that sends its headers slower than the headers timeout", async () => {
    const headers = `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: ${"slow".repeat(200)}\r\n\r\n`;
    const result = await trickle(headers, 20, 4_000);
    expect(result.closedByServer).toBe(true);
    const answer = parseAnswer(result.received);
    expect(answer?.status).toBe(408);
    expectSecurityHeaders(answer?.headers ?? {});
    expectOwnJsonError(answer?.body ?? "");
  });

  it("cuts off a client that sends its body slower than the request timeout, and stores nothing", async () => {
    const body = JSON.stringify(valid);
    const head = `POST /api/inquiry HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    const socket = await new Promise<net.Socket>((resolve) => {
      const opened = net.connect(site.port, "127.0.0.1", () => resolve(opened));
    });
    socket.write(head);
    const result = await new Promise<{ closedByServer: boolean; received: string }>((resolve) => {
      let received = "";
      let index = 0;
      const timer = setInterval(() => {
        if (index < body.length) socket.write(body[index++] ?? "");
      }, 20);
      const limit = setTimeout(() => finish(false), 4_000);
      const finish = (closedByServer: boolean) => {
        clearInterval(timer);
        clearTimeout(limit);
        socket.destroy();
        resolve({ closedByServer, received });
      };
      socket.on("data", (data: Buffer) => (received += data.toString()));
      socket.on("error", () => undefined);
      socket.on("close", () => finish(true));
    });
    expect(result.closedByServer).toBe(true);
    expect(result.received).not.toMatch(/^HTTP\/1\.1 201/);
    expect(storedLines()).toHaveLength(0);
  });

  it("closes an idle keep-alive connection after the keep-alive timeout", async () => {
    const answer = await exchange(site.port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 5_000);
    expect(parseAnswer(answer)?.status).toBe(200);
  });
});

describe("errors become answers, and the server keeps answering", () => {
  it("answers 503 in JSON when the settings cannot be read, and 500 from /healthz, then serves pages", async () => {
    let calls = 0;
    const site = await startServer({
      inquiryConfig: () => {
        calls += 1;
        if (calls > 1) throw new Error(`INQUIRY_RATE_LIMIT_REQUESTS is not a valid number: lots (call ${calls})`);
        return inquiryEnv()();
      },
    });
    try {
      const posted = await postJson(`${site.origin}/api/inquiry`, valid, site.fetch);
      expect(posted.status).toBe(503);
      expectOwnJsonError(await posted.text());
      const health = await site.fetch(`${site.origin}/healthz`);
      expect(health.status).toBeGreaterThanOrEqual(500);
      expectOwnJsonError(await health.text());
      expect((await site.fetch(`${site.origin}/`)).status).toBe(200);
      expect(logs.join("\n")).toMatch(/not a valid number/);
    } finally {
      await site.close();
    }
  });

  it("answers 503 when the outbox folder is a file, reports it on /healthz, and serves pages", async () => {
    const blocked = path.join(dataDir, "not-a-folder");
    writeFileSync(blocked, "");
    const site = await startServer({ inquiryConfig: inquiryEnv({ INQUIRY_DATA_DIR: blocked }) });
    try {
      const posted = await postJson(`${site.origin}/api/inquiry`, valid, site.fetch);
      expect(posted.status).toBe(503);
      expectOwnJsonError(await posted.text());
      const health = await site.fetch(`${site.origin}/healthz`);
      expect([health.status, await health.json()]).toEqual([503, { status: "outbox not writable" }]);
      const details = await site.fetch(`${site.origin}/healthz`, { headers: healthDetailsHeaders });
      expect([details.status, await details.json()]).toEqual([503, expect.objectContaining({ outboxWritable: false })]);
      expect((await site.fetch(`${site.origin}/`)).status).toBe(200);
      const again = await postJson(`${site.origin}/api/inquiry`, valid, site.fetch);
      expect(again.status).toBe(503);
    } finally {
      await site.close();
    }
  });
});

describe("/healthz with the store in Postgres", () => {
  const sqlStores = useSqlStores();
  sqlStores.databasePerTest(SQL_POSTGRES);

  it("probes the Postgres in use, not the data folder SQLite would use", async () => {
    // A data folder that cannot be made: it must not matter to this store.
    const blocked = path.join(dataDir, "not-a-folder");
    writeFileSync(blocked, "");
    const env = { INQUIRY_DATABASE_URL: sqlStores.postgresUrl, INQUIRY_DATA_DIR: blocked };
    const site = await startServer({ inquiryConfig: inquiryEnv(env) });
    try {
      const health = await site.fetch(`${site.origin}/healthz`, { headers: healthDetailsHeaders });
      expect([health.status, await health.json()]).toEqual([200, expect.objectContaining({ outboxWritable: true })]);
    } finally {
      await site.close();
    }
    // A database that cannot be reached is reported, whatever the data folder.
    const missing = `${sqlStores.postgresUrl}_missing`;
    const refusing = await startServer({
      inquiryConfig: inquiryEnv({ INQUIRY_DATABASE_URL: missing, INQUIRY_DATA_DIR: dataDir }),
    });
    try {
      expect((await refusing.fetch(`${refusing.origin}/healthz`)).status).toBe(503);
    } finally {
      await refusing.close();
    }
  });
});

describe("the server process (server/main.ts)", () => {
  let server: SiteProcess | null = null;
  afterEach(async () => {
    await server?.stop();
    server = null;
  });

  const env = () => ({ PUBLIC_DIR: publicDir, INQUIRY_DATA_DIR: dataDir });

  // Each test starts a server process of its own: several seconds on a busy machine, past jest's default timeout.
  it("logs an unhandled rejection and goes on serving", async () => {
    server = await startSiteProcess(env(), [path.resolve("__tests__/support/reject-on-signal.ts")]);
    server.child.kill("SIGWINCH");
    // Logged with the error itself, its message and stack.
    await server.waitForLine(
      /"err":\{"type":"Error","message":"a rejection nobody handles","stack":"Error: a rejection nobody handles.*"msg":"unhandled rejection"/,
    );
    expect((await fetch(`${server.origin}/`)).status).toBe(200);
    expect(server.child.exitCode).toBeNull();
  }, 60_000);

  it("on SIGTERM finishes the inquiry in flight, refuses new connections, and exits 0", async () => {
    server = await startSiteProcess(env());
    const body = JSON.stringify(valid);
    const socket = net.connect(server.port, "127.0.0.1");
    let received = "";
    socket.on("data", (data: Buffer) => (received += data.toString()));
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    // Expect: 100-continue makes the server say when it has the request's headers: the request is in flight.
    socket.write(
      `POST /api/inquiry HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`,
    );
    for (let waited = 0; !received.includes("100 Continue") && waited < 10_000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(received).toMatch(/^HTTP\/1\.1 100 Continue/);
    socket.write(body.slice(0, 20));

    server.child.kill("SIGTERM");
    await server.waitForLine(/SIGTERM/);
    // The listening socket closes a moment after the signal (Fastify's close hooks run first).
    let refused = false;
    for (let tries = 0; !refused && tries < 200; tries += 1) {
      refused = await connectionRefused(server.port);
      if (!refused) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(refused).toBe(true);

    socket.write(body.slice(20));
    await closed;
    const answer = parseAnswer(received);
    expect(answer?.status).toBe(201);
    const { reference } = JSON.parse(answer?.body ?? "{}") as { reference: string };
    expect(reference).toMatch(referencePattern);
    expect(await server.exited).toEqual({ code: 0, signal: null });
    const lines = storedLines();
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? "{}")).toMatchObject({ reference, values: { fullName: valid.fullName } });
  });

  it("keeps every inquiry it answered 201 when killed with SIGKILL in the middle of 600 posts", async () => {
    const running = await startSiteProcess({
      ...env(),
      SITE_REQUESTS_PER_MINUTE: "0",
      INQUIRY_RATE_LIMIT_REQUESTS: "100000",
    });
    server = running;
    const acknowledged: string[] = [];
    let killedAfter = 0;
    await Promise.all(
      Array.from({ length: 600 }, () =>
        postJson(`${running.origin}/api/inquiry`, valid).then(
          async (response) => {
            if (response.status !== 201) return;
            acknowledged.push(((await response.json()) as { reference: string }).reference);
            if (acknowledged.length >= 150 && killedAfter === 0) {
              killedAfter = acknowledged.length;
              running.child.kill("SIGKILL");
            }
          },
          // Posts under way when it was killed get a reset connection: they were never acknowledged.
          () => undefined,
        ),
      ),
    );
    expect(await running.exited).toEqual({ code: null, signal: "SIGKILL" });
    expect(killedAfter).toBeGreaterThan(0);
    expect(acknowledged.length).toBeLessThan(600);
    const stored = new Set(storedRecordsIn(dataDir).map((record) => record.reference));
    expect(acknowledged.filter((reference) => !stored.has(reference))).toEqual([]);
    const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE));
    try {
      expect(db.prepare("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    } finally {
      db.close();
    }
  }, 60_000);

  it("refuses inquiries with 503 once the disk is full, loses none it accepted, and says so on /healthz", async () => {
    server = await startSiteProcess(
      { ...env(), SITE_REQUESTS_PER_MINUTE: "0", INQUIRY_RATE_LIMIT_REQUESTS: "100000" },
      [],
      { fileSizeLimitKb: 160 },
    );
    const acknowledged: string[] = [];
    let refused = 0;
    for (let sent = 0; sent < 400 && refused === 0; sent += 1) {
      const response = await postJson(`${server.origin}/api/inquiry`, valid);
      if (response.status === 201) acknowledged.push(((await response.json()) as { reference: string }).reference);
      else {
        expect(response.status).toBe(503);
        expectOwnJsonError(await response.text());
        refused += 1;
      }
    }
    expect([acknowledged.length > 0, refused]).toEqual([true, 1]);
    expect((await fetch(`${server.origin}/healthz`)).status).toBe(503);
    expect((await fetch(`${server.origin}/`)).status).toBe(200);
    await server.stop();
    const stored = storedRecordsIn(dataDir).map((record) => record.reference);
    expect(stored).toEqual(acknowledged);
  }, 60_000);

  // Memory over thousands of refused requests is the bench's to judge (npm run bench: refusedLiveGrowthMb, after a
  // full collection); here, only that a refused upload is never held in memory.
  it("refuses a 20 MB multipart upload without holding it in memory, and serves on", async () => {
    server = await startSiteProcess({ ...env(), SITE_REQUESTS_PER_MINUTE: "0" });
    const { origin, port } = server;
    expect((await fetch(`${origin}/`)).status).toBe(200);
    const before = server.usage();
    const upload = await offerBody({
      port,
      head: "POST /api/inquiry HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=x",
      total: 20 * 1024 * 1024,
    });
    const afterUpload = server.usage();
    expect(upload.answer?.status).toBe(415);
    expect(afterUpload.rssMb - before.rssMb).toBeLessThan(15);
    expect((await fetch(`${origin}/`)).status).toBe(200);
    expect(storedLines()).toHaveLength(0);
  }, 60_000);
});
