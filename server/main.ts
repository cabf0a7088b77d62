// First: on too old a Node this stops with the version to install, before any other import can fail.
import "./require-node";
/**
 * `npm run serve`: the production server (docs/deploy-server.md). Settings come from the environment
 * (docs/configuration.md): PORT, HOST, TRUST_PROXY, HSTS, SITE_REQUESTS_PER_MINUTE, the inquiry settings, and
 * the releases (DEPLOY_DIR, DEPLOY_REPOSITORY, DEPLOY_BRANCH, DEPLOY_WEBHOOK_SECRET, ...; server/releases/).
 */
import path from "node:path";
import { readInquiryContent } from "./inquiries/content-on-disk";
import { buildApp, type ServerOptions } from "./app";
import { readDeploySettings } from "./releases/settings";
import { readGithubOAuthSettings } from "./sign-in/github-oauth";
import { projectRoot } from "./project";

// How long a stop may take beyond the longest delivery attempt under way when it began.
const SHUTDOWN_MARGIN_MS = 10_000;

/** TRUST_PROXY: unset or 0 (no proxy), a number of proxy hops, or a comma-separated list of addresses and ranges. */
export const trustProxySetting = (value: string | undefined): ServerOptions["trustProxy"] => {
  const text = (value ?? "").trim();
  if (text === "" || text === "0" || text.toLowerCase() === "false") return false;
  if (/^\d+$/.test(text)) return Number(text);
  if (text.toLowerCase() === "true")
    throw new Error(
      "TRUST_PROXY=true would believe any client's X-Forwarded-For; give a hop count or the proxy addresses",
    );
  return text
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
};

const numberSetting = (name: string, fallback: number): number => {
  const text = process.env[name]?.trim();
  if (!text) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, not ${text}`);
  return value;
};

/** The environment file's sample (deploy/cardinal-site.env.example) marks what an operator must fill in. */
const PLACEHOLDER = "change-me";

const main = async () => {
  const unfilled = Object.entries(process.env)
    .filter(([, value]) => value?.includes(PLACEHOLDER))
    .map(([name]) => name);
  if (unfilled.length > 0) {
    throw new Error(
      `${unfilled.join(", ")} still ${unfilled.length === 1 ? "holds" : "hold"} the sample's ${PLACEHOLDER}: ` +
        "give the real values in the environment file (/etc/cardinal-site.env)",
    );
  }
  const root = projectRoot();
  const content = readInquiryContent(path.join(root, "content"));
  // A stop waits for the deliveries under way, each cut at its attempt deadline: give it that long and more.
  const shutdownGraceMs = content.form.delivery.attemptTimeoutSeconds * 1000 + SHUTDOWN_MARGIN_MS;
  const deploy = readDeploySettings();
  const server = await buildApp({
    publicDir: path.resolve(process.env.PUBLIC_DIR ?? path.join(root, "public")),
    deploy,
    projectDir: root,
    content,
    githubOAuth: readGithubOAuthSettings(),
    trustProxy: trustProxySetting(process.env.TRUST_PROXY),
    hsts: ["1", "true", "yes"].includes((process.env.HSTS ?? "").toLowerCase()),
    requestsPerMinute: numberSetting("SITE_REQUESTS_PER_MINUTE", 1200),
  });
  const log = (line: string) => server.app.log.info(line);
  const port = numberSetting("PORT", 9000);
  // Unset or blank: loopback only.
  const hostSetting = process.env.HOST?.trim();
  const host = hostSetting === undefined || hostSetting === "" ? "127.0.0.1" : hostSetting;
  await server.app.listen({ port, host });
  const live = server.deployer?.status().live;
  const served = live
    ? `release ${live.id} (${live.commit.slice(0, 12)})`
    : path.relative(process.cwd(), path.resolve(process.env.PUBLIC_DIR ?? "public")) || ".";
  log(`serving ${served} on http://${host.includes(":") ? `[${host}]` : host}:${port}`);
  if (deploy?.webhookSecret) log(`deploying pushes to ${deploy.branch} from POST /api/deploy/github`);

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    log(`${signal}: finishing requests in flight, then stopping`);
    const force = setTimeout(() => {
      server.app.log.error("stopped before everything in flight had finished");
      process.exit(1);
    }, shutdownGraceMs);
    force.unref();
    server.close().then(
      () => {
        log("stopped");
        process.exit(0);
      },
      (error: unknown) => {
        server.app.log.error(`stopped with an error: ${(error as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
  // Node ignores SIGXFSZ, so a write past the file-size limit fails (EFBIG) and the inquiry is answered 503;
  // the deploy lock's library (proper-lockfile, through signal-exit) re-raises any signal no one else listens
  // to, which would end the server instead.
  process.on("SIGXFSZ", () => undefined);
  // Every request's errors are answered where they happen; anything that still escapes is logged,
  // and the server goes on serving rather than dropping every visitor's connection.
  // The reason's name where it has one (an Error's), else the reason itself.
  process.on("unhandledRejection", (reason: unknown) => {
    const name = (reason as { readonly name?: unknown } | null | undefined)?.name;
    server.app.log.error(`unhandled rejection: ${String(name ?? reason)}`);
  });
};

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(`The server could not start: ${(error as Error).message}`);
    process.exit(1);
  });
}
