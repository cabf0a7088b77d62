import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import path from "node:path";
import fastifyCompress from "@fastify/compress";
import fastifyRateLimit from "@fastify/rate-limit";
import fastifyStatic from "@fastify/static";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import {
  AUTH_PATH,
  CALLBACK_PATH,
  createGithubOAuth,
  type GithubOAuthSettings,
  type OAuthAnswer,
} from "./sign-in/github-oauth";
import { clientKey } from "./inquiries/client-address";
import { readInquiryConfig, type InquiryConfig } from "./inquiries/config";
import type { InquiryContent } from "./inquiries/content";
import { preloadEmailTransport } from "./inquiries/deliver";
import { DeliveryWorker } from "./inquiries/delivery-worker";
import { createInquiryHandler, type InquiryReply, type InquiryRequest } from "./inquiries/handler";
import { importEarlierOutbox, openOutbox } from "./inquiries/open-outbox";
import { parseFormBody, parseJsonBody } from "./inquiries/request-body";
import { inquiryEndpoint } from "../src/inquiry/protocol";
import { COMPRESSION_THRESHOLD_BYTES, PRECOMPRESSED_SUFFIX } from "./site/compression";
import { pagePathOf } from "./site/headers-file";
import { Deployer, type DeploySteps } from "./releases/deployer";
import { handleGithubWebhook, MAX_WEBHOOK_BODY_BYTES } from "./releases/github-webhook";
import type { DeploySettings } from "./releases/settings";
import { SiteSource, type ServedSite } from "./site/served-site";

declare module "fastify" {
  interface FastifyRequest {
    /** The built site this request is answered from, fixed when it arrives (served-site.ts). */
    servedSite: ServedSite | null;
  }
}

export interface ServerOptions {
  /** The built site (`public/`), with the `_headers` file the build wrote; before the first release when `deploy` is set. */
  readonly publicDir: string;
  /** Releases built from the branch and switched atomically (DEPLOY_*); null to serve `publicDir` as it is. */
  readonly deploy?: DeploySettings | null;
  /** The deploy's commands, for tests; by default npm ci, the content check and gatsby build. */
  readonly deploySteps?: DeploySteps;
  /** The server's own checkout, whose node_modules a release with the same lockfile reuses. */
  readonly projectDir?: string;
  readonly content: InquiryContent;
  /** Editors' sign-in with GitHub for the editing screen (CMS_GITHUB_*); null: its routes do not exist. */
  readonly githubOAuth?: GithubOAuthSettings | null;
  /** Inquiry settings, read for every request; by default the environment, read once as the server starts. */
  readonly inquiryConfig?: () => InquiryConfig;
  /**
   * Which proxies in front of this server to believe about the client's address: a number of hops,
   * a list of addresses or ranges, or false for none (the socket's address is the client's).
   */
  readonly trustProxy: false | number | readonly string[];
  /** Send Strict-Transport-Security: only when every visitor reaches the site over HTTPS. */
  readonly hsts: boolean;
  /** Requests per minute from one client to anything, a guard against floods; 0 turns it off. */
  readonly requestsPerMinute: number;
  /** Operational log lines: no visitor's answers or contact details ever reach them. */
  readonly log: (line: string) => void;
  readonly now?: () => Date;
  /** How long a slow client may hold a connection; the defaults suit a public site (tests lower them). */
  readonly timeouts?: Partial<ServerTimeouts>;
}

export interface ServerTimeouts {
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
export const defaultTimeouts: ServerTimeouts = {
  headersMs: 10_000,
  requestMs: 15_000,
  keepAliveMs: 5_000,
  lingerMs: 2_000,
};

export interface SiteServer {
  readonly app: FastifyInstance;
  readonly worker: DeliveryWorker;
  /** Builds and switches releases (null without DEPLOY_DIR). */
  readonly deployer: Deployer | null;
  /** Stops accepting, finishes the requests in flight and the delivery pass under way. */
  readonly close: () => Promise<void>;
}

// Nothing but the inquiry endpoint takes a body.
const DEFAULT_BODY_LIMIT = 1024;

const HASHED_ASSET = /(^|\/)(static\/|[\w.~-]+-[0-9a-f]{16,}\.(js|css)$|styles\.[0-9a-f]{16,}\.css$)/;
const HSTS = "max-age=63072000; includeSubDomains";
const IMMUTABLE = "public, max-age=31536000, immutable";
const REVALIDATE = "public, max-age=0, must-revalidate";

/** GitHub's push webhook (DEPLOY_WEBHOOK_SECRET), which deploys the branch to this server. */
export const DEPLOY_WEBHOOK_PATH = "/api/deploy/github";

/**
 * What /healthz says of the releases: the live commit, and the last deploy's outcome; `degraded` while a
 * push newer than the live release has failed, so the site serves an older commit than the branch's.
 */
const siteHealth = (deployer: Deployer) => {
  const { live, last, running, queued } = deployer.status();
  return {
    degraded: last !== null && last.state === "failed" && (live === null || last.startedAt > live.startedAt),
    liveCommit: live?.commit ?? null,
    liveRelease: live?.id ?? null,
    deploying: running,
    queuedCommit: queued,
    lastDeploy: last
      ? {
          commit: last.commit,
          state: last.state,
          finishedAt: last.finishedAt ?? null,
          // The first line only: the build's output (npm run releases, the release's build.log) is for the operator.
          failedStep: last.failedStep ?? null,
          reason: last.reason?.split("\n")[0] ?? null,
        }
      : null,
  };
};

/** The path a page's rules in `_headers` are written under: `/contact/index.html` is the page `/contact/`. */
const pagePathOfUrl = (url: string): string => pagePathOf((url.split("?")[0] ?? "/").slice(1));

/** Whether the request carries a body that has not all arrived yet (so answering now leaves it unread). */
const bodyStillComing = (request: FastifyRequest): boolean => {
  const { headers } = request.raw;
  const declared = headers["transfer-encoding"] !== undefined || Number(headers["content-length"] ?? 0) > 0;
  return declared && !request.raw.complete;
};

/**
 * Makes Node close this connection, once the answer is sent, the way RFC 9112 (section 9.6) asks when
 * the request is not all read: the answer and a FIN first, the client's further bytes discarded for a
 * moment, then the socket closed. Closing at once would reset the connection, and a reset can destroy
 * the answer before the client has read it, so a visitor would see a network error instead of a 413.
 */
const lingerOnClose = (socket: Socket, lingerMs: number) => {
  socket.destroySoon = () => {
    socket.end();
    const timer = setTimeout(() => socket.destroy(), lingerMs);
    timer.unref();
    socket.once("close", () => clearTimeout(timer));
  };
};

/** What the server says, in its own words, to a request it cannot handle. */
const COULD_NOT_HANDLE = "The request could not be handled.";

/**
 * The answer to a request Node's HTTP parser refused (Fastify's `clientErrorHandler`): the status Node
 * and Fastify give it, in the server's own words rather than Fastify's.
 */
const clientErrorAnswer = (code: string): { readonly status: number; readonly message: string } => {
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return { status: 408, message: "The request did not arrive in time." };
  if (code === "HPE_HEADER_OVERFLOW") return { status: 431, message: "The request's headers are too large." };
  return { status: 400, message: COULD_NOT_HANDLE };
};

/** A single value from a header that may repeat. */
const headerValue = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

/** Fastify's own form of the setting: a hop count becomes "trust the nearest N addresses". */
const trustProxyOption = (
  setting: ServerOptions["trustProxy"],
): boolean | string[] | ((address: string, hop: number) => boolean) =>
  setting === false ? false : typeof setting === "number" ? (_address, hop) => hop < setting : [...setting];

const sendReply = (reply: FastifyReply, answer: InquiryReply) =>
  reply.code(answer.status).headers(answer.headers).send(answer.body);

/**
 * The production server for one machine: the built site as a CDN would serve it, and /api/inquiry
 * through the same handler as the CDN deploy's function, loaded once. Inquiries are delivered by a
 * worker in this process after the visitor has had their answer.
 */
export const createSiteServer = async (options: ServerOptions): Promise<SiteServer> => {
  const { content, log } = options;
  // A process's environment does not change while it runs, so the default settings are read once, here,
  // where a bad one stops the start, rather than again for every inquiry (bench/inquiry-load.ts).
  const startConfig = options.inquiryConfig?.() ?? readInquiryConfig(content.form.delivery);
  const readConfig = options.inquiryConfig ?? (() => startConfig);
  // A switch this process's deploy made is logged by the deploy; any other came from the releases command.
  let switchedHere: string | null = null;
  const sites = new SiteSource(options.publicDir, options.deploy?.dir ?? null, (from, to) => {
    if (to !== null && to === switchedHere) return;
    log(
      `site: the live release is now ${to ?? "none"} (it was ${from ?? "none"}), switched outside the server ` +
        "(a rollback, or a deploy, by the releases command)",
    );
  });
  // Loaded now, so a folder without a build stops the start instead of failing the first request.
  sites.current();
  const deployer = options.deploy
    ? new Deployer({
        settings: options.deploy,
        log,
        steps: options.deploySteps,
        modulesFrom: options.projectDir,
        // Read as the server will serve it before it goes live, so that a release the server cannot read
        // fails instead, and the first request after the switch does not pay for the reading.
        verify: (id) => void sites.release(id),
        onLive: (record) => {
          switchedHere = record.id;
        },
      })
    : null;
  const hstsHeaders: Readonly<Record<string, string>> = options.hsts ? { "Strict-Transport-Security": HSTS } : {};
  // The 404 page of the request's release, with status 404; its policy is added by the onSend hook below,
  // as for any 404 page.
  const sendNotFoundPage = (request: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(404)
      .type("text/html; charset=utf-8")
      .header("Cache-Control", REVALIDATE)
      .send((request.servedSite ?? sites.current()).notFoundPage);
  const handler = createInquiryHandler({ content, config: readConfig, log, now: options.now });
  const worker = new DeliveryWorker({ outbox: openOutbox(startConfig), config: readConfig, log, now: options.now });

  const timeouts: ServerTimeouts = { ...defaultTimeouts, ...options.timeouts };
  const app = Fastify({
    logger: false,
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
    return503OnClosing: true,
    exposeHeadRoutes: true,
    // A path that is no URL (`/%`): Fastify's own answer would echo it, without the site's headers.
    frameworkErrors: (_error, _request, reply) => {
      void (reply as FastifyReply)
        .code(400)
        .headers({ ...sites.current().siteHeaders, "Cache-Control": "no-store", ...hstsHeaders })
        .send({ error: COULD_NOT_HANDLE });
    },
    // A request Node could not parse (a header line without a colon, a body both chunked and of a given
    // length, headers too large or too slow) never becomes a request, so no hook sees it: its answer is
    // written here, with the site's headers, and the connection closed as after any refusal.
    clientErrorHandler: (error, socket) => {
      if (error.code === "ECONNRESET" || socket.destroyed || !socket.writable) {
        socket.destroy();
        return;
      }
      const { status, message } = clientErrorAnswer(error.code);
      const body = JSON.stringify({ error: message });
      const headers = {
        ...sites.current().siteHeaders,
        ...hstsHeaders,
        "Cache-Control": "no-store",
        "Content-Type": "application/json; charset=utf-8",
        "Content-Length": String(Buffer.byteLength(body)),
        Connection: "close",
      };
      const head = [
        `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}`,
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      ].join("\r\n");
      lingerOnClose(socket, timeouts.lingerMs);
      socket.write(`${head}\r\n\r\n${body}`);
      socket.destroySoon();
    },
  });

  const requestOf = (request: FastifyRequest): InquiryRequest => ({
    method: request.method,
    contentType: headerValue(request.headers["content-type"]),
    clientAddress: clientKey(request.ip),
    host: request.host,
    origin: headerValue(request.headers.origin),
    secFetchSite: headerValue(request.headers["sec-fetch-site"]),
  });

  app.decorateRequest("servedSite", null);
  // First of all hooks: a request is answered from the release that was live when it arrived.
  app.addHook("onRequest", (request, _reply, done) => {
    request.servedSite = sites.current();
    done();
  });
  const siteOf = (request: FastifyRequest): ServedSite => request.servedSite ?? sites.current();

  let closing = false;
  app.addHook("onSend", async (request, reply, payload) => {
    const { headerRules, siteHeaders } = siteOf(request);
    for (const [name, value] of Object.entries(siteHeaders)) if (!reply.hasHeader(name)) reply.header(name, value);
    if (options.hsts) reply.header("Strict-Transport-Security", HSTS);
    // A refusal sent before the body was read (a multipart post, a body to a page) ends the connection:
    // otherwise Node reads and discards the rest of the body, however large, to reuse the connection.
    // While the server stops, an answered connection is not kept for a next request either.
    if (bodyStillComing(request)) {
      reply.header("Connection", "close");
      lingerOnClose(request.raw.socket, timeouts.lingerMs);
    } else if (closing) reply.header("Connection", "close");
    const type = String(reply.getHeader("content-type") ?? "");
    if (type.startsWith("text/html")) {
      const pathname = reply.statusCode === 404 ? "/404.html" : pagePathOfUrl(request.url);
      // A built page gets every header of its rule; any other HTML answer without a policy of its own
      // gets the 404 page's policy and nothing else of that page's.
      const fallbackPolicy = headerRules.get("/404.html")?.["Content-Security-Policy"];
      const headers =
        headerRules.get(pathname) ?? (fallbackPolicy ? { "Content-Security-Policy": fallbackPolicy } : {});
      for (const [name, value] of Object.entries(headers)) if (!reply.hasHeader(name)) reply.header(name, value);
    }
    return payload;
  });

  // Errors become answers, never a crash: the inquiry endpoint's in its own terms, the rest in JSON.
  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status >= 500) log(`error ${request.method} ${request.url.split("?")[0]}: ${error.code ?? error.name}`);
    if (request.url.split("?")[0] === inquiryEndpoint && request.method === "POST") {
      const inquiryRequest = requestOf(request);
      if (status === 413) return sendReply(reply, handler.tooLarge(inquiryRequest));
      if (status === 400) return sendReply(reply, handler.malformed(inquiryRequest));
      if (status === 415) return sendReply(reply, handler.unsupported(inquiryRequest));
      return sendReply(reply, handler.failed(inquiryRequest));
    }
    // A path @fastify/static will not read, because it is not in its one canonical form (`//x`, `/./x`,
    // `/a/../b`): it names no page, so a visitor (or a scanner) gets the 404 page, as for any other path
    // no file answers, rather than a 403 that says something is there.
    if (status === 403 && (request.method === "GET" || request.method === "HEAD"))
      return sendNotFoundPage(request, reply);
    return reply
      .code(status >= 400 && status < 600 ? status : 500)
      .header("Cache-Control", "no-store")
      .send({ error: status >= 500 ? "Something went wrong." : COULD_NOT_HANDLE });
  });

  // Only the inquiry endpoint takes a body: a POST (PUT, ...) to any other path is answered before a
  // byte of its body is read (the not-found handler would otherwise parse it first).
  app.addHook("onRequest", (request, reply, done) => {
    if (request.is404 && request.method !== "GET" && request.method !== "HEAD") {
      void reply.code(404).header("Cache-Control", "no-store").send({ error: "Not found." });
      return;
    }
    done();
  });

  app.setNotFoundHandler((request, reply) => {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return reply.code(404).header("Cache-Control", "no-store").send({ error: "Not found." });
    }
    return sendNotFoundPage(request, reply);
  });

  if (options.requestsPerMinute > 0) {
    await app.register(fastifyRateLimit, {
      max: options.requestsPerMinute,
      timeWindow: 60_000,
      keyGenerator: (request) => clientKey(request.ip),
      // The inquiry endpoint has a limit of its own, from content, counted by its handler.
      allowList: (request) => request.url.split("?")[0] === inquiryEndpoint && request.method === "POST",
    });
  }

  await app.register(fastifyCompress, {
    global: true,
    encodings: ["br", "gzip"],
    threshold: COMPRESSION_THRESHOLD_BYTES,
    // Quality 4 compresses about as well as gzip -9 at a fraction of brotli's default cost per request.
    brotliOptions: { params: { [(await import("node:zlib")).constants.BROTLI_PARAM_QUALITY]: 4 } },
  });

  // Async with nothing to await on purpose: Fastify waits for the promise a plugin returns, so a throw
  // in here rejects the register() above rather than escaping avvio's queue as an uncaught exception.
  // eslint-disable-next-line @typescript-eslint/require-await
  await app.register(async (api) => {
    api.removeAllContentTypeParsers();
    api.addContentTypeParser(
      "application/json",
      { parseAs: "string", bodyLimit: handler.maxBodyBytes },
      (_req, body, done) => {
        const parsed = parseJsonBody(body as string);
        if (parsed.readable) done(null, parsed.body);
        else done(Object.assign(new Error("malformed JSON"), { statusCode: 400 }), undefined);
      },
    );
    api.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "string", bodyLimit: handler.maxBodyBytes },
      (_req, body, done) => done(null, parseFormBody(body as string)),
    );
    api.route({
      method: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
      url: inquiryEndpoint,
      bodyLimit: handler.maxBodyBytes,
      // Decided before a byte of the body is read: the method, the type, the origin, the rate limit.
      onRequest: async (request, reply) => {
        const refused = await handler.screen(requestOf(request));
        if (refused) return sendReply(reply, refused);
      },
      handler: async (request, reply) => {
        const { reply: answer, stored } = await handler.accept(requestOf(request), request.body);
        if (stored?.created && !stored.quarantined) worker.notify();
        return sendReply(reply, answer);
      },
    });
  });

  if (options.githubOAuth) {
    const oauth = createGithubOAuth({ settings: options.githubOAuth, log });
    const oauthRequest = (request: FastifyRequest) => ({
      url: request.url,
      cookie: headerValue(request.headers.cookie),
      // As the editor's browser reaches this server: behind a trusted proxy, the scheme it was reached by.
      origin: `${request.protocol}://${request.host}`,
    });
    const sendOAuth = (reply: FastifyReply, answer: OAuthAnswer) =>
      reply.code(answer.status).headers(answer.headers).send(answer.body);
    // GET only, and at most a sign-in every few seconds from one address: each callback can cost a token
    // exchange with GitHub under the site's secret, and an editor signs in a few times a day.
    const signInRoute = { exposeHeadRoute: false, config: { rateLimit: { max: 20, timeWindow: 60_000 } } };
    app.get(AUTH_PATH, signInRoute, (request, reply) => sendOAuth(reply, oauth.begin(oauthRequest(request))));
    app.get(CALLBACK_PATH, signInRoute, async (request, reply) =>
      sendOAuth(reply, await oauth.callback(oauthRequest(request))),
    );
  }

  app.get("/healthz", async (_request, reply) => {
    const outbox = openOutbox(readConfig());
    const site = deployer ? siteHealth(deployer) : null;
    let writable = true;
    // A real write, synced as an inquiry is, to the store in use (the database, or the Blobs store): not
    // a permission check, since root passes every access() test and a full disk only shows on a write.
    try {
      await outbox.probe();
    } catch {
      writable = false;
    }
    return reply
      .code(writable ? 200 : 503)
      .header("Cache-Control", "no-store")
      .send({
        status: !writable
          ? "outbox not writable"
          : site?.degraded
            ? "degraded: the newest push failed to deploy"
            : "ok",
        outboxWritable: writable,
        delivery: worker.status(),
        ...(site ? { site } : {}),
      });
  });

  const webhookSecret = options.deploy?.webhookSecret;
  if (options.deploy && deployer && webhookSecret) {
    const { branch } = options.deploy;
    // eslint-disable-next-line @typescript-eslint/require-await
    await app.register(async (hook) => {
      hook.removeAllContentTypeParsers();
      // The exact bytes: the signature is over them, not over a parse of them.
      hook.addContentTypeParser(
        "application/json",
        { parseAs: "buffer", bodyLimit: MAX_WEBHOOK_BODY_BYTES },
        (_req, body, done) => done(null, body),
      );
      hook.post(DEPLOY_WEBHOOK_PATH, { bodyLimit: MAX_WEBHOOK_BODY_BYTES }, async (request, reply) => {
        const answer = await handleGithubWebhook(
          {
            headers: request.headers as Record<string, string | undefined>,
            // No body at all arrives as none: refused like any unsigned delivery.
            body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
          },
          { secret: webhookSecret, branch },
        );
        if (answer.deploy) {
          log(`deploy: push of ${answer.deploy.slice(0, 12)} to ${branch} received`);
          deployer.request(answer.deploy);
        }
        return reply.code(answer.status).header("Cache-Control", "no-store").send(answer.body);
      });
    });
  }

  // Files are sent from the request's own release (reply.sendFile with its folder), so the plugin's own
  // route, fixed to one folder, is off; the path checks, redirects, index files and compressed copies
  // are still the plugin's, in sendFile.
  const publicDirOfResponse = new WeakMap<object, string>();
  await app.register(fastifyStatic, {
    root: options.publicDir,
    serve: false,
    redirect: true,
    // An array: with preCompressed, @fastify/static finds a folder's index file only in a list; given a
    // single name it answered every page of the site 404 to a client that takes br or gzip.
    index: ["index.html"],
    dotfiles: "ignore",
    cacheControl: false,
    // The build's brotli and gzip copies (build/precompressed-files.ts), sent as they are to a client that
    // takes them; a file without copies is compressed on the fly by @fastify/compress.
    preCompressed: true,
    // public/_headers is the deploy's configuration, not a page; the compressed copies are reached only
    // through their originals, which carry the right type.
    allowedPath: (pathname) => !pathname.startsWith("/_headers") && !PRECOMPRESSED_SUFFIX.test(pathname),
    setHeaders: (res, file) => {
      const relative = path
        .relative(publicDirOfResponse.get(res) ?? options.publicDir, file)
        .split(path.sep)
        .join("/")
        .replace(PRECOMPRESSED_SUFFIX, "");
      res.header("Cache-Control", HASHED_ASSET.test(relative) ? IMMUTABLE : REVALIDATE);
    },
  });

  app.route({
    method: ["GET", "HEAD"],
    url: "/*",
    handler: (request, reply) => {
      const site = siteOf(request);
      const query = request.raw.url?.indexOf("?") ?? -1;
      const rawPath = query === -1 ? (request.raw.url ?? "/") : (request.raw.url ?? "/").slice(0, query);
      let pathname: string;
      try {
        // As the plugin's own route decodes it: an encoded # or ? is part of a name, not of the URL.
        pathname = decodeURI(rawPath.replace(/%(?:23|3f)/giu, decodeURIComponent));
      } catch {
        reply.callNotFound();
        return reply;
      }
      publicDirOfResponse.set(reply.raw, site.publicDir);
      return reply.sendFile(pathname, site.publicDir);
    },
  });

  if (startConfig.email) preloadEmailTransport();
  await importEarlierOutbox(openOutbox(startConfig), log);
  worker.start();
  return {
    app,
    worker,
    deployer,
    close: async () => {
      closing = true;
      // Side by side, so a stop takes the longer of the two, not their sum (the grace in main.ts).
      // Inquiries stored meanwhile stay pending in the outbox for the next start; a build under way is
      // ended and its release marked failed (the live one stays).
      await Promise.all([app.close(), worker.stop(), deployer?.stop()]);
    },
  };
};
