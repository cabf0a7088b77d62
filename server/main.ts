// First: on too old a Node this stops with the version to install, before any other import can fail.
import "./require-node";
/**
 * `npm run serve`: the production server (docs/deploy-server.md). Settings come from the environment
 * (docs/configuration.md). It runs in one of three roles:
 * - without releases (DEPLOY_DIR unset): one process serving its own folder's build;
 * - with releases, as started: the primary (server/releases/primary.ts), which deploys and runs the live
 *   release's own server as a cluster worker;
 * - as such a worker: the server of the release folder it runs from, its pages, content and code.
 */
import cluster from "node:cluster";
import fs from "node:fs";
import path from "node:path";
import closeWithGrace from "close-with-grace";
import pino from "pino";
import { readInquiryContent } from "./inquiries/content-on-disk";
import { inquiryConfigOf, inquirySettings, type InquiryConfig } from "./inquiries/config";
import { buildApp, type ServedReleases } from "./app";
import { DeployerProcess } from "./releases/deployer-process";
import { Primary } from "./releases/primary";
import { siteDirOf } from "./releases/release-store";
import { deploySettings, deploySettingsOf, type DeploySettings } from "./releases/settings";
import { privateAddress } from "./releases/handoff";
import { answerWorker, workerEnd, type WorkerEnd } from "./releases/worker-link";
import { logOutput } from "./log-output";
import { githubOAuthSettings, githubOAuthSettingsOf } from "./sign-in/github-oauth";
import { projectRoot } from "./project";
import { readSettings, settingsPart, variablesHolding } from "./settings/catalog";
import { stopGraceMs } from "./stop-grace";

/** The environment file's sample (deploy/cardinal-site.env.example) marks what an operator must fill in. */
const PLACEHOLDER = "change-me";

const refuseUnfilledSettings = () => {
  const unfilled = variablesHolding(PLACEHOLDER);
  if (unfilled.length > 0) {
    throw new Error(
      `${unfilled.join(", ")} still ${unfilled.length === 1 ? "holds" : "hold"} the sample's ${PLACEHOLDER}: ` +
        "give the real values in the environment file (/etc/cardinal-site.env)",
    );
  }
};

/** The server's own settings; the inquiries', the releases' and sign-in's are their parts'. */
const siteServerSettings = settingsPart([
  "PORT",
  "HOST",
  "TRUST_PROXY",
  "HSTS",
  "SITE_REQUESTS_PER_MINUTE",
  "PUBLIC_DIR",
  "HEALTH_TOKEN",
]);

/**
 * Every setting the server reads, read once before anything starts, and every problem named at once: each value
 * its setting refuses, and the rules between settings (a database named beside another store, a release secret
 * without its origin, ...).
 */
const readServerSettings = () => {
  refuseUnfilledSettings();
  return readSettings([siteServerSettings, inquirySettings, deploySettings, githubOAuthSettings]);
};

type ServerSettings = ReturnType<typeof readServerSettings>;

/** The inquiry settings, with what content/inquiry.json promises. */
const inquiryConfigAt = (root: string, settings: ServerSettings): InquiryConfig =>
  inquiryConfigOf(readInquiryContent(path.join(root, "content")).form.delivery, settings);

/**
 * Stops on SIGTERM, SIGINT and the like (close-with-grace) with `close`, exiting 0 when it ends within the grace
 * and 1 otherwise, or after an exception nobody caught. A rejection nobody handled is logged with its error and
 * the process goes on serving, rather than dropping every visitor's connection. A worker is stopped by its
 * primary with a message, not a signal, so that a terminal's Ctrl-C reaching both is not a second signal: the
 * function returned starts that stop.
 * Node ignores SIGXFSZ, so a write past the file-size limit fails (EFBIG) and the inquiry is answered 503; the
 * deploy lock's library (proper-lockfile, through signal-exit) re-raises any signal no one else listens to,
 * which would end the process instead.
 */
const stopOnSignals = (log: pino.Logger, graceMs: number, close: () => Promise<void>): (() => void) => {
  let stopping = false;
  const grace = closeWithGrace(
    {
      delay: graceMs,
      skip: ["unhandledRejection"],
      logger: { error: (message: unknown) => log.error({ err: message }, String(message)) },
    },
    async ({ signal, err }) => {
      stopping = true;
      if (err) log.error({ err }, "an exception nobody caught: finishing requests in flight, then stopping");
      else log.info({ signal: signal ?? "stop" }, `${signal ?? "stop"}: finishing requests in flight, then stopping`);
      await close();
      log.info("stopped");
    },
  );
  process.on("unhandledRejection", (reason: unknown) => log.error({ err: reason }, "unhandled rejection"));
  process.on("SIGXFSZ", () => undefined);
  return () => {
    if (!stopping) grace.close();
  };
};

/** The release a worker runs, from the folder it runs in (null: the checkout). */
const releaseOfFolder = (deploy: DeploySettings, root: string): string | null => {
  const id = path.basename(path.dirname(root));
  // Both sides as the file system resolves them: DEPLOY_DIR may be reached through a link.
  const real = (folder: string) => (fs.existsSync(folder) ? fs.realpathSync(folder) : folder);
  return real(siteDirOf(deploy.dir, id)) === real(root) ? id : null;
};

/** Where visitors connect: PORT, and HOST (unset or blank: loopback only). */
const publicAddress = (settings: ServerSettings) => ({
  port: settings.PORT ?? 9000,
  host: settings.HOST ?? "127.0.0.1",
});

/** One site server, in this process: the whole server without releases, or a release's own as a worker. */
const serveSite = async (settings: ServerSettings, deploy: DeploySettings | null) => {
  const root = projectRoot();
  const content = readInquiryContent(path.join(root, "content"));
  const inquiryConfig = inquiryConfigOf(content.form.delivery, settings);
  // As a release's server: the primary's orders and connections, once the logger exists to say what it got.
  let stop: () => void = () => undefined;
  let log: pino.Logger | null = null;
  const primary: WorkerEnd | null =
    deploy && cluster.isWorker
      ? workerEnd({ log: (level, fields, line) => log?.[level](fields, line), onStop: () => stop() })
      : null;
  const releases: ServedReleases | null =
    deploy && primary
      ? {
          served: releaseOfFolder(deploy, root),
          control: primary.releases(deploy.dir),
          drained: primary.drained,
          webhookSecret: deploy.webhookSecret,
          branch: deploy.branch,
        }
      : null;
  const server = await buildApp({
    // A release's server serves its own build, whatever PUBLIC_DIR says.
    publicDir: releases ? path.join(root, "public") : path.resolve(settings.PUBLIC_DIR ?? path.join(root, "public")),
    releases,
    content,
    inquiryConfig: () => inquiryConfig,
    githubOAuth: githubOAuthSettingsOf(settings),
    healthToken: settings.HEALTH_TOKEN,
    trustProxy: settings.TRUST_PROXY,
    hsts: settings.HSTS,
    requestsPerMinute: settings.SITE_REQUESTS_PER_MINUTE,
  });
  // Fastify's logger is a pino logger; its own type names only the methods Fastify's plugins may call.
  log = server.app.log as unknown as pino.Logger;
  stop = stopOnSignals(log, stopGraceMs(inquiryConfig.delivery.attemptTimeoutMs), server.close);
  const { port, host } = publicAddress(settings);
  if (primary) {
    // The primary holds the public socket and hands this server its connections.
    await server.app.listen({ path: privateAddress(), exclusive: true });
    primary.takeConnections(server.app.server);
    primary.ready();
  } else {
    await server.app.listen({ port, host });
  }
  const served = releases
    ? releases.served === null
      ? "the checkout (no release yet)"
      : `release ${releases.served}`
    : path.relative(process.cwd(), path.resolve(settings.PUBLIC_DIR ?? "public")) || ".";
  log.info(
    { release: releases?.served ?? null },
    `serving ${served} on http://${host.includes(":") ? `[${host}]` : host}:${port}`,
  );
};

/** The primary: runs the live release's own server as its worker, and the deploys in a process of their own. */
const runPrimary = async (settings: ServerSettings, deploy: DeploySettings) => {
  const root = projectRoot();
  const log = pino({ level: "info" }, logOutput());
  const graceMs = stopGraceMs(inquiryConfigAt(root, settings).delivery.attemptTimeoutMs);
  let primary: Primary | null = null;
  const primaryLog = (level: "info" | "warn" | "error", fields: Record<string, unknown>, message: string) =>
    log[level]({ component: "primary", ...fields }, message);
  const deployer = new DeployerProcess({ checkoutDir: root, log: primaryLog, onLive: () => void primary?.follow() });
  primary = new Primary({
    deployDir: deploy.dir,
    checkoutDir: root,
    listen: publicAddress(settings),
    stopGraceMs: graceMs,
    log: primaryLog,
    onMessage: answerWorker(deployer, primaryLog),
  });
  const running = primary;
  stopOnSignals(log, graceMs + 1_000, async () => {
    await Promise.all([deployer.stop(), running.stop()]);
  });
  await running.start();
  deployer.start();
  if (deploy.webhookSecret) log.info(`deploying pushes to ${deploy.branch} from POST /api/deploy/github`);
};

const main = async () => {
  const settings = readServerSettings();
  const deploy = deploySettingsOf(settings);
  if (deploy && cluster.isPrimary) await runPrimary(settings, deploy);
  else await serveSite(settings, deploy);
};

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(`The server could not start: ${(error as Error).message}`);
    process.exit(1);
  });
}
