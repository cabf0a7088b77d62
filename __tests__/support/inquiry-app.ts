import { mkdtempSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildApp, type ServerOptions } from "../../server/app";
import { pagePolicy } from "../../build/security-headers";
import { commonHeaders } from "../../server/site/common-headers";
import { formatHeaderRules } from "../../server/site/headers-file";
import type { InquiryConfig } from "../../server/inquiries/config";
import type { InquiryContent } from "../../server/inquiries/content";
import { TEST_HEALTH_TOKEN } from "../../testing/site-server";
import type { Send } from "./inquiry-posts";

/** A built site of two pages and the `_headers` file a build writes, for a server under test. */
export const makePublicDir = (): string => {
  const dir = mkdtempSync(path.join(tmpdir(), "site-public-"));
  const page = (title: string) =>
    `<!doctype html><html lang="en"><head><title>${title}</title><script>window.started=1</script></head><body><h1>${title}</h1>${"<p>Uniforms and tactical gear for agencies.</p>".repeat(40)}</body></html>`;
  writeFileSync(path.join(dir, "index.html"), page("Home"));
  writeFileSync(path.join(dir, "404.html"), page("Page not found"));
  writeFileSync(
    path.join(dir, "_headers"),
    formatHeaderRules(
      new Map([
        ["/*", commonHeaders],
        ["/", { "Content-Security-Policy": pagePolicy(["sha256-home"]) }],
        ["/404.html", { "Content-Security-Policy": pagePolicy(["sha256-missing"]) }],
      ]),
    ),
  );
  return dir;
};

export interface InquiryAppOptions {
  readonly content: InquiryContent;
  readonly config: () => InquiryConfig;
  /** Each message of the server's log, as an operator greps it. */
  readonly log: (line: string) => void;
  /** Where the log's whole JSON lines go too, for a test of what they carry. */
  readonly logLines?: string[];
  readonly trustProxy?: ServerOptions["trustProxy"];
  readonly requestsPerMinute?: number;
  readonly publicDir?: string;
  /** The release this server is and the deploys behind its webhook and /healthz (DEPLOY_*). */
  readonly releases?: ServerOptions["releases"];
  /** The editing screen's GitHub sign-in (CMS_GITHUB_*). */
  readonly githubOAuth?: ServerOptions["githubOAuth"];
  /** HEALTH_TOKEN: the tests' own by default, as every server they start has it; null, no details. */
  readonly healthToken?: string | null;
  /** Listen on a loopback port (the default), or answer only through app.inject(), for a test of no socket. */
  readonly listen?: boolean;
}

/** The origin a test without a socket addresses the server by, as its Host header. */
const INJECTED_ORIGIN = "http://site.test";

/** fetch's shape over app.inject(): the request is built as fetch would send it, and never touches a socket. */
export const injectFetch =
  (app: FastifyInstance): Send =>
  async (url, init) => {
    const request = new Request(new URL(url, INJECTED_ORIGIN), init);
    const target = new URL(request.url);
    const body = Buffer.from(await request.arrayBuffer());
    const answer = await app.inject({
      method: request.method as "GET",
      url: `${target.pathname}${target.search}`,
      headers: { ...Object.fromEntries(request.headers), host: target.host },
      ...(body.length > 0 ? { payload: body } : {}),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      for (const one of Array.isArray(value) ? value : [value])
        if (one !== undefined) headers.append(name, String(one));
    }
    const empty = [101, 204, 205, 304].includes(answer.statusCode) || request.method === "HEAD";
    return new Response(empty ? null : new Uint8Array(answer.rawPayload), { status: answer.statusCode, headers });
  };

/** The production server on a free loopback port, with the inquiry settings the test gives. */
export const startInquiryApp = async (options: InquiryAppOptions) => {
  const server = await buildApp({
    publicDir: options.publicDir ?? makePublicDir(),
    content: options.content,
    inquiryConfig: options.config,
    trustProxy: options.trustProxy ?? false,
    hsts: false,
    requestsPerMinute: options.requestsPerMinute ?? 0,
    logStream: {
      write: (line: string) => {
        options.logLines?.push(line);
        options.log((JSON.parse(line) as { msg: string }).msg);
      },
    },
    releases: options.releases ?? null,
    githubOAuth: options.githubOAuth ?? null,
    healthToken: options.healthToken === undefined ? TEST_HEALTH_TOKEN : options.healthToken,
  });
  let origin = INJECTED_ORIGIN;
  if (options.listen ?? true) {
    await server.app.listen({ port: 0, host: "127.0.0.1" });
    origin = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
  } else await server.app.ready();
  return {
    origin,
    /** fetch to this server: over the socket, or through app.inject() without one. */
    fetch: (options.listen ?? true) ? fetch : injectFetch(server.app),
    url: `${origin}/api/inquiry`,
    server,
    /** Waits until the delivery worker has nothing to do at once. */
    delivered: () => server.worker.idle(),
    close: () => server.close(),
  };
};
