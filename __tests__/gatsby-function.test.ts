/**
 * @jest-environment node
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { commonHeaders } from "../server/site/common-headers";
import { readInquiryConfig } from "../server/inquiries/config";
import { readInquiryContent } from "../server/inquiries/content-on-disk";
import { createGatsbyFunction, NETLIFY_CLIENT_IP_HEADER } from "../server/inquiries/netlify/gatsby-function";
import { openOutbox } from "../server/inquiries/store/open-outbox";
import { runScheduledDelivery } from "../server/inquiries/netlify/scheduled-delivery";
import { callFunction as call } from "../testing/gatsby-function-call";
import { startWebhookReceiver } from "../testing/loopback-servers";
import { validInquiry } from "./support/inquiry-posts";
import { forgetProcessState } from "./support/outbox-restart";
import { migrateAsNetlifyDoes, onPostgres, startPostgres } from "../testing/postgres";
import { lineLog } from "../server/inquiries/operational-log";
import pino from "pino";

const content = readInquiryContent(path.resolve("content"));

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), "gatsby-function-"));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe("/api/inquiry as a Gatsby Function (the CDN deploy)", () => {
  it("answers 503 where the outbox is not durable and no transport took the inquiry, 201 once one does", async () => {
    const hook = await startWebhookReceiver(500);
    const fn = createGatsbyFunction({
      content,
      siteHeaders: commonHeaders,
      config: () =>
        readInquiryConfig(content.form.delivery, {
          INQUIRY_DATA_DIR: dataDir,
          INQUIRY_OUTBOX_EPHEMERAL: "1",
          INQUIRY_WEBHOOK_URL: hook.url,
          INQUIRY_RATE_LIMIT_REQUESTS: "1000",
        }),
      log: pino({ level: "silent" }),
    });
    try {
      const refused = await call(fn, validInquiry);
      expect(refused.status).toBe(503);
      expect(JSON.parse(refused.body)).toEqual({ error: "The inquiry could not be delivered." });
      hook.answerWith(204);
      const accepted = await call(fn, { ...validInquiry, message: "A second inquiry, once the webhook works." });
      expect(accepted.status).toBe(201);
      expect(hook.received).toHaveLength(2);
    } finally {
      await hook.close();
    }
  });

  it("refuses a post to the function's own address (/.netlify/functions/…), where no rate limit of netlify.toml reaches, and stores nothing", async () => {
    const fn = createGatsbyFunction({
      content,
      siteHeaders: commonHeaders,
      config: () => readInquiryConfig(content.form.delivery, { INQUIRY_DATA_DIR: dataDir }),
      log: pino({ level: "silent" }),
    });
    for (const url of ["/.netlify/functions/inquiry-js", "/.netlify/functions/inquiry-js/", "/.netlify/builders/x"]) {
      const answer = await call(fn, validInquiry, { url, remoteAddress: null, event: { path: url } });
      expect([url, answer.status, answer.headers["cache-control"], JSON.parse(answer.body)]).toEqual([
        url,
        404,
        "no-store",
        { error: "Not found." },
      ]);
      for (const [name, value] of Object.entries(commonHeaders)) expect(answer.headers[name.toLowerCase()]).toBe(value);
    }
    // Nothing was written: the outbox's folder is as the test made it.
    expect(readdirSync(dataDir)).toEqual([]);
    const routed = await call(fn, validInquiry, {
      url: "/api/inquiry",
      remoteAddress: null,
      event: { path: "/api/inquiry" },
    });
    expect(routed.status).toBe(201);
  });

  it("answers a form post with the result page and its own Content-Security-Policy", async () => {
    const fn = createGatsbyFunction({
      content,
      siteHeaders: commonHeaders,
      config: () => readInquiryConfig(content.form.delivery, { INQUIRY_DATA_DIR: dataDir }),
      log: pino({ level: "silent" }),
    });
    const answer = await call(fn, { email: "nope" }, { contentType: "application/x-www-form-urlencoded" });
    expect(answer.status).toBe(422);
    expect(answer.headers["content-type"]).toMatch(/^text\/html/);
    expect(answer.headers["content-security-policy"]).toMatch(/default-src 'none'/);
  });
});

describe("/api/inquiry as a Gatsby Function on Netlify Database", () => {
  it("stores in the Postgres NETLIFY_DB_URL names and answers 201 though no transport took it; the scheduled delivery sends it", async () => {
    const postgres = await startPostgres();
    const hook = await startWebhookReceiver(500);
    const url = await postgres.database();
    await migrateAsNetlifyDoes(url);
    // What Netlify gives a function of a site with a database; nothing of the site's own names it.
    process.env.NETLIFY_DB_URL = url;
    const env = { INQUIRY_OUTBOX: "postgres", INQUIRY_WEBHOOK_URL: hook.url, INQUIRY_RATE_LIMIT_REQUESTS: "1000" };
    const config = () => readInquiryConfig(content.form.delivery, env);
    const fn = createGatsbyFunction({
      content,
      siteHeaders: commonHeaders,
      config,
      log: pino({ level: "silent" }),
    });
    const stored = openOutbox(config());
    try {
      const first = await call(fn, { ...validInquiry, idempotency_key: "function-test-key-0002" });
      expect(first.status).toBe(201);
      const { reference } = JSON.parse(first.body) as { reference: string };
      // A repeat (the visitor's retry) is the same inquiry, tried once.
      const again = await call(fn, { ...validInquiry, idempotency_key: "function-test-key-0002" });
      expect([again.status, JSON.parse(again.body)]).toEqual([201, { reference }]);
      expect(hook.received).toHaveLength(1);
      const entry = await stored.entry(reference, 8);
      expect([entry?.record.values.email, entry?.state, entry?.deliveries]).toEqual([
        validInquiry.email,
        "pending",
        { webhook: "failed" },
      ]);

      hook.answerWith(204);
      const later = new Date(Date.parse(entry?.dueAt ?? "") + 1);
      const outcome = await runScheduledDelivery({
        config,
        log: pino({ level: "silent" }),
        now: () => later,
      });
      expect(outcome).toMatchObject({ ran: true, due: 1, delivered: 1, pending: 0 });
      expect(hook.received.map((request) => request.headers["x-inquiry-reference"])).toEqual([reference, reference]);
      expect((await stored.entry(reference, 8))?.state).toBe("delivered");
      // Netlify's tracker owns the versions there: the store ran no migration of its own.
      expect(await onPostgres(url, "SELECT to_regclass('store_migrations') AS found")).toEqual([{ found: null }]);
    } finally {
      delete process.env.NETLIFY_DB_URL;
      await stored.close();
      forgetProcessState();
      await hook.close();
      await postgres.stop();
    }
  }, 120_000);
});

describe("/api/inquiry as a Gatsby Function, where the platform differs from a server", () => {
  // Each test its own limit, so the process-wide counters of one never count another's posts.
  const functionWith = (env: NodeJS.ProcessEnv, logs: string[] = []) =>
    createGatsbyFunction({
      content,
      siteHeaders: commonHeaders,
      config: () => readInquiryConfig(content.form.delivery, { INQUIRY_DATA_DIR: dataDir, ...env }),
      log: lineLog((line) => logs.push(line)),
    });
  const event = { path: "/api/inquiry", httpMethod: "POST" };
  const post = (index: number) => ({ ...validInquiry, message: `Inquiry ${index} about forty duty shirts, please.` });
  const statuses = async (calls: Promise<{ status: number }>[]) =>
    (await Promise.all(calls)).map(({ status }) => status);

  it("counts a visitor by Netlify's own address header on the platform, by the configured one where set, and never fails for want of an address", async () => {
    const onNetlify = functionWith({ INQUIRY_RATE_LIMIT_REQUESTS: "1", INQUIRY_RATE_LIMIT_WINDOW_SECONDS: "7101" });
    // As the adapter calls it: no socket, the Lambda event on the request, the address in Netlify's header.
    const from = (address: string) => ({
      remoteAddress: null,
      event,
      headers: { [NETLIFY_CLIENT_IP_HEADER]: address },
    });
    expect(await statuses([call(onNetlify, post(1), from("198.51.100.1"))])).toEqual([201]);
    expect(
      await statuses([call(onNetlify, post(2), from("198.51.100.1")), call(onNetlify, post(3), from("198.51.100.2"))]),
    ).toEqual([429, 201]);

    // Neither a header nor a socket: one fixed key for all such posts, so they share one count.
    const nowhere = { remoteAddress: null } as const;
    expect(await statuses([call(onNetlify, post(4), nowhere)])).toEqual([201]);
    expect(await statuses([call(onNetlify, post(5), nowhere)])).toEqual([429]);

    // INQUIRY_CLIENT_IP_HEADER names another platform's header: that one counts, Netlify's is ignored.
    const configured = functionWith({
      INQUIRY_RATE_LIMIT_REQUESTS: "1",
      INQUIRY_RATE_LIMIT_WINDOW_SECONDS: "7102",
      INQUIRY_CLIENT_IP_HEADER: "X-Real-IP",
    });
    const behind = (real: string, netlify: string) => ({
      remoteAddress: null,
      event,
      headers: { "x-real-ip": real, [NETLIFY_CLIENT_IP_HEADER]: netlify },
    });
    expect(await statuses([call(configured, post(6), behind("203.0.113.7", "198.51.100.3"))])).toEqual([201]);
    expect(await statuses([call(configured, post(7), behind("203.0.113.7", "198.51.100.4"))])).toEqual([429]);
  });

  it("off the platform (a socket, no Lambda event) counts the connection's address, whatever a visitor writes in Netlify's header", async () => {
    const served = functionWith({ INQUIRY_RATE_LIMIT_REQUESTS: "1", INQUIRY_RATE_LIMIT_WINDOW_SECONDS: "7103" });
    const forged = (address: string) => ({
      remoteAddress: "192.0.2.50",
      headers: { [NETLIFY_CLIENT_IP_HEADER]: address },
    });
    expect(await statuses([call(served, post(1), forged("198.51.100.5"))])).toEqual([201]);
    expect(await statuses([call(served, post(2), forged("198.51.100.6"))])).toEqual([429]);
  });

  it("reads the body's bytes by the single server's rules, wherever the platform's parser left them", async () => {
    const fn = functionWith({ INQUIRY_RATE_LIMIT_REQUESTS: "1000", INQUIRY_RATE_LIMIT_WINDOW_SECONDS: "7104" });
    const unreadable = { status: 400, body: JSON.stringify({ error: "The inquiry could not be read." }) };
    const tooLarge = { status: 413, body: JSON.stringify({ error: "The inquiry is larger than this form can send." }) };
    const answer = async (body: unknown, options: Parameters<typeof call>[2] = {}) => {
      const { status, body: text } = await call(fn, body, options);
      return { status, body: text };
    };
    const limit = content.form.delivery.maxBodyKilobytes * 1024;

    expect(await answer('{"fullName": "Pat')).toEqual(unreadable);
    expect(await answer("")).toEqual(unreadable);
    // Refused as Fastify's parser refuses it on the single server, and never stored.
    const poisoned = JSON.stringify(post(8)).replace(/^\{/, '{"__proto__":{"quarantine":null},');
    expect(await answer(poisoned)).toEqual(unreadable);
    expect(await answer(poisoned.replace('"__proto__"', '"constructor":{"prototype":{}},"x"'))).toEqual(unreadable);
    expect(readdirSync(dataDir)).toEqual([]);
    expect(await answer("null")).toMatchObject({ status: 422 });
    expect(await answer(gzipSync(JSON.stringify(post(1))), { headers: { "content-encoding": "gzip" } })).toEqual(
      unreadable,
    );
    // A length declared past the limit, a body the parser refused, one past it in the stream: all 413.
    expect(await answer({ ...post(2), message: "x".repeat(limit) })).toEqual(tooLarge);
    expect(await answer(post(3), { bodyIn: "refused" })).toEqual(tooLarge);
    expect(await answer({ ...post(4), message: "x".repeat(limit) }, { bodyIn: "stream" })).toEqual(tooLarge);
    // No length declared: the parser left it in the stream, and it is read from there.
    expect(await answer(post(5), { bodyIn: "stream" })).toMatchObject({ status: 201 });
    expect(await answer('{"fullName": "Pat', { bodyIn: "stream" })).toEqual(unreadable);
    // Exactly at the limit is within it, as on the single server.
    const padded = JSON.stringify({ ...post(6), message: "" });
    const atLimit = JSON.stringify({ ...post(6), message: "y".repeat(limit - Buffer.byteLength(padded)) });
    expect(Buffer.byteLength(atLimit)).toBe(limit);
    expect((await answer(atLimit)).status).not.toBe(413);
    // A form with a field sent twice (the compliance boxes) reaches the checks as a list, as on the server.
    const form = await call(fn, "fullName=Pat&compliance=a&compliance=b", {
      contentType: "application/x-www-form-urlencoded",
    });
    expect(form.status).toBe(422);
  });

  it("reads the body of a request made as gatsby-adapter-netlify makes it, whose end Node 24 took for an abort", async () => {
    const fn = functionWith({ INQUIRY_RATE_LIMIT_REQUESTS: "1000" });
    const errors: unknown[] = [];
    const onError = (error: unknown) => errors.push(error);
    process.on("uncaughtException", onError);
    try {
      const { status } = await call(fn, post(7), { bodyIn: "adapter", remoteAddress: null });
      await new Promise((resolve) => setImmediate(resolve));
      expect({ status, errors }).toEqual({ status: 201, errors: [] });
    } finally {
      process.off("uncaughtException", onError);
    }
  });

  it("leaves the body to itself: Gatsby's parsers take no type, with the single server's limit", () => {
    const fn = functionWith({});
    const unread = { type: "application/x-read-by-the-function", limit: content.form.delivery.maxBodyKilobytes * 1024 };
    expect(fn.config).toEqual({
      bodyParser: { raw: unread, json: unread, text: unread, urlencoded: { ...unread, extended: false } },
    });
  });

  it("sends the site-wide security headers with every answer, and an answer's own headers over them", async () => {
    const fn = functionWith({ INQUIRY_RATE_LIMIT_REQUESTS: "1000", INQUIRY_RATE_LIMIT_WINDOW_SECONDS: "7105" });
    const answers = [
      await call(fn, post(1)),
      await call(fn, "{", {}),
      await call(fn, { email: "nope" }, { contentType: "application/x-www-form-urlencoded" }),
      await call(fn, "hello", { contentType: "text/plain" }),
    ];
    expect(answers.map(({ status }) => status)).toEqual([201, 400, 422, 415]);
    for (const answer of answers) {
      for (const [name, value] of Object.entries(commonHeaders))
        expect([name, answer.headers[name.toLowerCase()]]).toEqual([name, value]);
    }
    expect(answers[2]?.headers["content-security-policy"]).toMatch(/default-src 'none'/);

    const cached = createGatsbyFunction({
      content,
      siteHeaders: { ...commonHeaders, "Cache-Control": "public, max-age=600" },
      config: () => readInquiryConfig(content.form.delivery, { INQUIRY_DATA_DIR: dataDir }),
      log: pino({ level: "silent" }),
    });
    const refused = await call(cached, "hello", { contentType: "text/plain" });
    expect([refused.status, refused.headers["cache-control"], refused.headers["x-frame-options"]]).toEqual([
      415,
      "no-store",
      "DENY",
    ]);
  });
});
