import { mkdtempSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildApp, type ServerOptions } from "../../server/app";
import { pagePolicy } from "../../build/security-headers";
import { commonHeaders } from "../../server/site/common-headers";
import { formatHeaderRules } from "../../server/site/headers-file";
import type { InquiryConfig } from "../../server/inquiries/config";
import type { InquiryContent } from "../../server/inquiries/content";

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
  readonly log: (line: string) => void;
  readonly trustProxy?: ServerOptions["trustProxy"];
  readonly requestsPerMinute?: number;
  readonly publicDir?: string;
  /** Releases (DEPLOY_*) and the deploy's commands, for the deploy tests. */
  readonly deploy?: Pick<ServerOptions, "deploy" | "deploySteps">;
  /** The editing screen's GitHub sign-in (CMS_GITHUB_*). */
  readonly githubOAuth?: ServerOptions["githubOAuth"];
}

/** The production server on a free loopback port, with the inquiry settings the test gives. */
export const startInquiryApp = async (options: InquiryAppOptions) => {
  const server = await buildApp({
    publicDir: options.publicDir ?? makePublicDir(),
    content: options.content,
    inquiryConfig: options.config,
    trustProxy: options.trustProxy ?? false,
    hsts: false,
    requestsPerMinute: options.requestsPerMinute ?? 0,
    logStream: { write: (line: string) => options.log((JSON.parse(line) as { msg: string }).msg) },
    ...options.deploy,
    githubOAuth: options.githubOAuth ?? null,
  });
  await server.app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = server.app.server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    url: `${origin}/api/inquiry`,
    server,
    /** Waits until the delivery worker has nothing to do at once. */
    delivered: () => server.worker.idle(),
    close: () => server.close(),
  };
};
