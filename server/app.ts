import { constants as zlibConstants } from "node:zlib";
import fastifyCompress from "@fastify/compress";
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from "fastify";
import { inquiryEndpoint } from "../src/inquiry/protocol";
import { health, type HealthOptions } from "./health/plugin";
import { logOutput } from "./log-output";
import type { InquiryConfig } from "./inquiries/config";
import type { InquiryContent } from "./inquiries/content";
import { preloadEmailTransport } from "./inquiries/delivery/deliver";
import { DeliveryWorker } from "./inquiries/delivery/delivery-worker";
import { createInquiryHandler } from "./inquiries/intake/handler";
import { openOutbox } from "./inquiries/store/open-outbox";
import { inquiries } from "./inquiries/fastify/plugin";
import { createReleaseHandler } from "./inquiries/held/release";
import { inquiryRelease } from "./inquiries/fastify/release-plugin";
import { deployWebhook } from "./releases/webhook-plugin";
import type { ReleaseControl } from "./releases/worker-link";
import type { GithubOAuthSettings } from "./sign-in/github-oauth";
import { signIn } from "./sign-in/plugin";
import { COMPRESSION_THRESHOLD_BYTES } from "./site/compression";
import { siteAnswers, siteFiles } from "./site/plugin";
import { answerClientError, COULD_NOT_HANDLE, hstsHeaders } from "./site/refusals";
import { limitRequests } from "./site/request-limit";
import { loadServedSite } from "./site/served-site";

export interface ServerOptions {
  /** The built site (`public/`), with the `_headers` file the build wrote. */
  readonly publicDir: string;
  /**
   * With releases (DEPLOY_*): which one this server is, the deploys it takes GitHub's webhook for (run by
   * the primary process) and the webhook's secret and branch; null or absent without releases.
   */
  readonly releases?: ServedReleases | null;
  readonly content: InquiryContent;
  /** Editors' sign-in with GitHub for the editing screen (CMS_GITHUB_*); null: its routes do not exist. */
  readonly githubOAuth?: GithubOAuthSettings | null;
  /** HEALTH_TOKEN, which /healthz's details take; absent or null: no details. */
  readonly healthToken?: string | null;
  /** Inquiry settings, read for every request: the entry point's, read once as it started (tests vary them). */
  readonly inquiryConfig: () => InquiryConfig;
  /**
   * Which proxies in front of this server to believe about the client's address: a number of hops,
   * a list of addresses or ranges, or false for none (the socket's address is the client's).
   */
  readonly trustProxy: false | number | readonly string[];
  /** Send Strict-Transport-Security: only when every visitor reaches the site over HTTPS. */
  readonly hsts: boolean;
  /** Requests per minute from one client to anything, a guard against floods; 0 turns it off. */
  readonly requestsPerMinute: number;
  /**
   * Where the server's log goes, as pino's JSON lines (stdout by default); the operational lines are its
   * messages (`msg`), and no visitor's answers or contact details ever reach them.
   */
  readonly logStream?: { write(line: string): void };
  readonly now?: () => Date;
  /** How long a slow client may hold a connection; the defaults suit a public site (tests lower them). */
  readonly timeouts?: Partial<ServerTimeouts>;
}

export interface ServedReleases {
  /** The release this server is (null: the server's own checkout, before the first release). */
  readonly served: string | null;
  readonly control: ReleaseControl;
  /** DEPLOY_WEBHOOK_SECRET: without it there is no webhook route. */
  readonly webhookSecret: string | null;
  readonly branch: string;
  /** Run by the primary: resolves once the connections it handed over have closed (worker-link.ts). */
  readonly drained?: () => Promise<void>;
}

interface ServerTimeouts {
  /** The request line and every header must have arrived within this, or the client is answered 408 and cut off. */
  readonly headersMs: number;
  /** The whole request, body included. */
  readonly requestMs: number;
  /** An idle keep-alive connection is closed after this. */
  readonly keepAliveMs: number;
  /**
   * After answering a request whose body is still arriving (a refusal), how long the connection stays
   * half-open, its input discarded, so the client reads the answer instead of a reset; then it is closed.
   */
  readonly lingerMs: number;
}

// Slow clients hold a socket at most this long: headers within 10 s, a whole request within 15 s.
const defaultTimeouts: ServerTimeouts = {
  headersMs: 10_000,
  requestMs: 15_000,
  keepAliveMs: 5_000,
  lingerMs: 2_000,
};

export interface SiteServer {
  readonly app: FastifyInstance;
  readonly worker: DeliveryWorker;
  /** Stops accepting, finishes the requests in flight and the delivery pass under way. */
  readonly close: () => Promise<void>;
}

// Nothing but the inquiry endpoint and the deploy webhook take a body.
const DEFAULT_BODY_LIMIT = 1024;

/**
 * Fastify's logger (pino). No line names a visitor's answers, cookies or sign-in code: request logging is
 * off (a line per request would also put every visitor's address in the journal), a request logged with
 * an error is its method and path only, and any body, cookie, authorization or query that a line might
 * carry is redacted.
 */
const serverLogger = (stream?: { write(line: string): void }): FastifyServerOptions["logger"] => ({
  level: "info",
  stream: stream ?? logOutput(),
  serializers: {
    req: (request: { method: string; url: string }) => ({ method: request.method, path: request.url.split("?")[0] }),
  },
  redact: {
    paths: ["req.body", "req.query", "req.headers.cookie", "req.headers.authorization", "body", "query"],
    censor: "[redacted]",
  },
});

/** Fastify's own form of the setting: a hop count becomes "trust the nearest N addresses". */
const trustProxyOption = (
  setting: ServerOptions["trustProxy"],
): boolean | string[] | ((address: string, hop: number) => boolean) =>
  setting === false ? false : typeof setting === "number" ? (_address, hop) => hop < setting : [...setting];

/**
 * Fastify with the server's logger, limits and timeouts; every answer Fastify gives itself (a path that is no
 * URL, a request Node cannot parse) carries the site's headers.
 */
const createFastify = (
  options: ServerOptions,
  timeouts: ServerTimeouts,
  headersOfEveryAnswer: () => Record<string, string>,
): FastifyInstance =>
  Fastify({
    logger: serverLogger(options.logStream),
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: trustProxyOption(options.trustProxy),
    bodyLimit: DEFAULT_BODY_LIMIT,
    http: {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      // Node looks for connections past these deadlines only this often (every 30 s by default, which
      // let a client that trickles its headers hold a socket for up to 40 s instead of 10).
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(timeouts.headersMs / 4))),
    },
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    connectionTimeout: timeouts.requestMs * 2,
    forceCloseConnections: "idle",
    // A request that still arrives on an open connection while this server stops (it hands over to another
    // release's server, or the service stops) is answered, not refused: it is one of this release's visitors.
    return503OnClosing: false,
    exposeHeadRoutes: true,
    // A path that is no URL (`/%`): Fastify's own answer would echo it, without the site's headers.
    frameworkErrors: (_error, _request, reply) => {
      void (reply as FastifyReply)
        .code(400)
        .headers({ ...headersOfEveryAnswer(), "Cache-Control": "no-store" })
        .send({ error: COULD_NOT_HANDLE });
    },
    clientErrorHandler: answerClientError(headersOfEveryAnswer, timeouts.lingerMs),
  });

/**
 * Each capability logs through a child of Fastify's logger named for it, made once, so an operator filters
 * by `component`. The inquiry cores take the child itself and choose each event's level.
 */
const componentLog = (app: FastifyInstance) => (component: string) => app.log.child({ component });

/** Sign-in and deploys log lines, at `info`. */
const infoLines =
  (log: FastifyBaseLogger) =>
  (line: string, fields?: Readonly<Record<string, unknown>>): void => {
    log.info(fields ?? {}, line);
  };

/**
 * The delivery worker lives and ends with the app: app.close() stops it. Its stop begins as the close does
 * and is awaited at the close's end, so a stop takes the longer of the two, not their sum (the grace in
 * main.ts). Inquiries stored meanwhile stay pending in the outbox for the next start.
 */
const stopWithApp = (app: FastifyInstance, worker: DeliveryWorker, drained?: () => Promise<void>) => {
  let workerStopped: Promise<void> | null = null;
  app.addHook("preClose", (done) => {
    workerStopped = worker.stop();
    done();
  });
  app.addHook("onClose", async () => {
    await (workerStopped ?? worker.stop());
  });
  // Registered last, so it runs first of the close hooks after the server stops listening (they run in reverse):
  // the answers under way on connections the primary handed over end before the worker and the stores do.
  if (drained) app.addHook("onClose", () => drained());
};

/** /healthz's: the store as the inquiry settings say now, and the token its details take. */
const healthOptions = (
  options: ServerOptions,
  readConfig: () => InquiryConfig,
  worker: DeliveryWorker,
): HealthOptions => ({
  openOutbox: () => openOutbox(readConfig()),
  worker,
  releases: options.releases?.control ?? null,
  served: options.releases?.served ?? null,
  token: options.healthToken ?? null,
});

/**
 * The production server for one machine: the built site as a CDN would serve it, and every endpoint as a
 * plugin over its framework-free core: /api/inquiry (server/inquiries), the editors' sign-in
 * (server/sign-in), the deploy webhook (server/releases) and /healthz (server/health). Inquiries are
 * delivered by a worker in this process after the visitor has had their answer.
 */
export const buildApp = async (options: ServerOptions): Promise<SiteServer> => {
  const { content } = options;
  const timeouts: ServerTimeouts = { ...defaultTimeouts, ...options.timeouts };
  const hsts = hstsHeaders(options.hsts);
  const releases = options.releases ?? null;
  // Read now, so a folder without a build stops the start instead of failing the first request.
  const site = loadServedSite(options.publicDir);
  const headersOfEveryAnswer = () => ({ ...site.siteHeaders, ...hsts });
  const app = createFastify(options, timeouts, headersOfEveryAnswer);
  const logFor = componentLog(app);
  const readConfig = options.inquiryConfig;
  const startConfig = readConfig();
  const core = { content, config: readConfig, now: options.now };
  const handler = createInquiryHandler({ ...core, log: logFor("inquiries") });
  const outbox = openOutbox(startConfig);
  const worker = new DeliveryWorker({ ...core, outbox, log: logFor("delivery") });
  const releaseHandler = createReleaseHandler({ ...core, log: logFor("held-inquiries") });

  // Shared by every route below: the site's headers and its 404.
  await app.register(siteAnswers, { site, hsts: options.hsts, lingerMs: timeouts.lingerMs });

  // Errors become answers, never a crash, in JSON; a plugin answers its own in its terms first.
  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    const status = error.statusCode ?? 500;
    // The error itself (its type, message and stack) for the operator; the request is its method and path only.
    if (status >= 500)
      request.log.error({ err: error, req: request }, `error ${request.method} ${request.url.split("?")[0]}`);
    return reply
      .code(status >= 400 && status < 600 ? status : 500)
      .header("Cache-Control", "no-store")
      .send({ error: status >= 500 ? "Something went wrong." : COULD_NOT_HANDLE });
  });

  if (options.requestsPerMinute > 0) {
    // A flood guard on every request but inquiry posts, which have a limit of their own counted by the
    // handler (the sign-in has one too, which holds whether or not this one is on).
    const ownLimit = (request: FastifyRequest) =>
      request.method === "POST" && request.url.split("?")[0] === inquiryEndpoint;
    app.addHook("onRequest", limitRequests({ requests: options.requestsPerMinute, windowSeconds: 60 }, ownLimit));
  }
  await app.register(fastifyCompress, {
    global: true,
    encodings: ["br", "gzip"],
    threshold: COMPRESSION_THRESHOLD_BYTES,
    // Quality 4 compresses about as well as gzip -9 at a fraction of brotli's default cost per request.
    brotliOptions: { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 4 } },
  });

  await app.register(inquiries, { handler, worker });
  await app.register(inquiryRelease, { handler: releaseHandler, outbox, worker });
  if (options.githubOAuth)
    await app.register(signIn, { settings: options.githubOAuth, log: infoLines(logFor("sign-in")) });
  await app.register(health, healthOptions(options, readConfig, worker));
  if (releases?.webhookSecret) {
    await app.register(deployWebhook, {
      releases: releases.control,
      secret: releases.webhookSecret,
      branch: releases.branch,
      log: infoLines(logFor("deploy")),
    });
  }
  await app.register(siteFiles, { site });

  if (startConfig.email) preloadEmailTransport();
  stopWithApp(app, worker, releases?.drained);
  worker.start();
  return { app, worker, close: () => app.close() };
};
