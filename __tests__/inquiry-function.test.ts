/**
 * @jest-environment node
 */
// The inquiry plugin's wiring on the single server, through app.inject(): the refusals it makes before a
// body is read, the bodies it parses, the client address it counts, and the delivery it starts. The
// handler's rules are tested against the handler itself (inquiry-handler.test.ts).
import { createHmac, timingSafeEqual } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readInquiryConfig } from "../server/inquiries/config";
import { readInquiryContent } from "../server/inquiries/content-on-disk";
import type { OutboxRecord } from "../server/inquiries/store/outbox";
import { openSqliteOutbox } from "../server/inquiries/store/sqlite";
import { referencePattern } from "../server/inquiries/intake/reference";
import { honeypotField, retiredHoneypotFields } from "../src/inquiry/protocol";
import { startInquiryApp, type InquiryAppOptions } from "./support/inquiry-app";
import { postForm, postJson, quoteInquiry, validInquiry, visitorsAnswers } from "./support/inquiry-posts";
import { startMailServer, startWebhookReceiver } from "../testing/loopback-servers";
import { storedRecordsIn } from "./support/outbox-fixtures";

const content = readInquiryContent(path.resolve("content"));

const valid = validInquiry;
const quote = quoteInquiry;

let dataDir: string;
let logs: string[] = [];

const startApp = (env: NodeJS.ProcessEnv = {}, server: Partial<InquiryAppOptions> = {}) =>
  startInquiryApp({
    content,
    config: () =>
      readInquiryConfig(content.form.delivery, {
        INQUIRY_DATA_DIR: dataDir,
        INQUIRY_RATE_LIMIT_REQUESTS: "1000",
        SMTP_ALLOW_PLAIN: "1",
        // The receivers here count inquiries; the digest of held ones has tests of its own (held-digest.test.ts).
        INQUIRY_DIGEST_HOUR: "off",
        ...env,
      }),
    log: (line) => logs.push(line),
    // Sockets and timeouts are the production server's tests' subject (production-server.test.ts).
    listen: false,
    ...server,
  });

const maxAttempts = readInquiryConfig(content.form.delivery, {}).delivery.maxAttempts;
const outboxEntries = async () => await openSqliteOutbox(dataDir).entries(maxAttempts);

/** The stored inquiries, as the outbox wrote them. */
const storedRecords = (): OutboxRecord[] => storedRecordsIn(dataDir);
const storedLines = () => storedRecords().map((record) => JSON.stringify(record));

/** jest's any-string matcher, typed as the value it stands for rather than `any`. */
const anyString: unknown = expect.any(String);

beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), "inquiry-test-"));
  logs = [];
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe("/api/inquiry on the single server: what it refuses before reading a body", () => {
  let app: Awaited<ReturnType<typeof startApp>>;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), "inquiry-test-"));
    app = await startApp();
  });
  afterAll(() => app.close());

  it("answers anything but POST with 405 and says what is allowed", async () => {
    const response = await app.fetch(app.url);
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect(await response.json()).toEqual({ error: anyString });
  });

  it("refuses other content types with 415", async () => {
    const response = await app.fetch(app.url, {
      method: "POST",
      headers: { "Content-Type": "text/plain" },
      body: "hi",
    });
    expect(response.status).toBe(415);
    const multipart = new FormData();
    multipart.append("fullName", "Pat");
    expect((await app.fetch(app.url, { method: "POST", body: multipart })).status).toBe(415);
  });

  it("refuses a body over the limit in content with 413", async () => {
    const limit = content.form.delivery.maxBodyKilobytes * 1024;
    const response = await postJson(app.url, { ...valid, message: "x".repeat(limit) }, app.fetch);
    expect(response.status).toBe(413);
    expect(storedLines()).toHaveLength(0);
  });
});

describe("/api/inquiry on the single server: the bodies it parses", () => {
  it("parses a JSON post for the handler and sends its 201 as it is", async () => {
    const app = await startApp();
    try {
      const response = await postJson(app.url, valid, app.fetch);
      expect([response.status, response.headers.get("content-type")]).toEqual([201, "application/json; charset=utf-8"]);
      const { reference } = (await response.json()) as { reference: string };
      expect(reference).toMatch(referencePattern);
      expect(storedRecords().map((record) => [record.reference, record.values.message])).toEqual([
        [reference, valid.message],
      ]);
    } finally {
      await app.close();
    }
  });

  it("answers a plain form post with a thank-you page that shows the reference", async () => {
    const app = await startApp();
    try {
      const { fill_ms: _ignored, ...withoutScript } = quote;
      const response = await postForm(app.url, { ...withoutScript, fill_ms: [] as string[] }, app.fetch);
      expect(response.status).toBe(201);
      expect(response.headers.get("content-type")).toMatch(/text\/html/);
      const html = await response.text();
      const [record] = storedRecords();
      expect(html).toContain(`<strong>${record!.reference}</strong>`);
      expect(html).toContain(`<h1>${content.form.resultPage.receivedTitle}</h1>`);
      expect(record!.values.compliance).toEqual(["berry", "taa"]);
    } finally {
      await app.close();
    }
  });

  it("refuses JSON that would poison a prototype with 400, as Fastify's parser does, and stores nothing", async () => {
    const app = await startApp();
    try {
      const text = JSON.stringify(valid);
      for (const poison of ['"__proto__":{"quarantine":null}', '"constructor":{"prototype":{"quarantine":null}}']) {
        const response = await app.fetch(app.url, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: text.replace(/^\{/, `{${poison},`),
        });
        expect([poison, response.status, await response.json()]).toEqual([
          poison,
          400,
          { error: "The inquiry could not be read." },
        ]);
      }
      expect(storedRecords()).toEqual([]);
      // The same inquiry without them is taken; and a form field so named is a field like any other.
      expect((await postJson(app.url, valid, app.fetch)).status).toBe(201);
      const { fill_ms: _ignored, ...withoutScript } = valid;
      const form = await postForm(app.url, { ...withoutScript, ["__proto__"]: "x", constructor: "y" }, app.fetch);
      expect(form.status).toBe(201);
      expect(storedRecords()).toHaveLength(2);
    } finally {
      await app.close();
    }
  });

  it("writes no visitor's answers, cookie or query string to any line of the server's log", async () => {
    const lines: string[] = [];
    const app = await startApp({}, { logLines: lines });
    try {
      await app.fetch(`${app.url}?fullName=${encodeURIComponent(quote.fullName)}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Cookie: "session=not-for-the-log" },
        body: JSON.stringify(quote),
      });
      const text = lines.join("\n");
      expect(text).toMatch(/"msg":"[^"]*stored \(quote\)"/);
      for (const value of [...visitorsAnswers, encodeURIComponent(quote.fullName), "not-for-the-log"]) {
        expect(text).not.toContain(value);
      }
    } finally {
      await app.close();
    }
  });
});

describe("/api/inquiry on the single server: spam and repeats, and the delivery it starts", () => {
  let app: Awaited<ReturnType<typeof startApp>>;
  let hook: Awaited<ReturnType<typeof startWebhookReceiver>>;
  beforeEach(async () => {
    hook = await startWebhookReceiver(204);
    app = await startApp({ INQUIRY_WEBHOOK_URL: hook.url });
  });
  afterEach(async () => {
    await app.close();
    await hook.close();
  });

  it.each([honeypotField, ...retiredHoneypotFields])(
    "keeps an inquiry that filled the honeypot (%s) in quarantine, answers as usual, and delivers nothing",
    async (name) => {
      const response = await postJson(app.url, { ...valid, [name]: "https://spam.example" }, app.fetch);
      expect(response.status).toBe(201);
      const { reference } = (await response.json()) as { reference: string };
      expect(reference).toMatch(referencePattern);
      await app.delivered();
      expect(hook.received).toHaveLength(0);
      const [entry, ...others] = await outboxEntries();
      expect(others).toHaveLength(0);
      expect(entry?.record.reference).toBe(reference);
      expect(entry?.state).toBe("quarantined");
      expect(entry?.record.quarantine).toEqual({ reason: "honeypot filled" });
    },
  );

  it("quarantines a form sent faster than the minimum fill time the same way, and a release delivers it", async () => {
    const response = await postJson(
      app.url,
      { ...valid, fill_ms: content.form.delivery.minFillSeconds * 1000 - 1 },
      app.fetch,
    );
    expect(response.status).toBe(201);
    expect(logs.join("\n")).toMatch(/quarantined: sent too fast/);
    const [entry] = await outboxEntries();
    expect(entry?.state).toBe("quarantined");
    await openSqliteOutbox(dataDir).release(entry?.record.reference ?? "");
    app.server.worker.notify();
    await app.delivered();
    expect(hook.received).toHaveLength(1);
    expect((await outboxEntries())[0]?.state).toBe("delivered");
  });

  it("answers a repeated submission with the same idempotency key with the same reference and one record", async () => {
    const key = "3f2b8c1e-5d4a-4b6f-9e7d-1a2b3c4d5e6f";
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => postJson(app.url, { ...valid, idempotency_key: key }, app.fetch)),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(5).fill(201));
    const references = await Promise.all(
      answers.map(async (answer) => ((await answer.json()) as { reference: string }).reference),
    );
    expect(new Set(references).size).toBe(1);
    const again = await postJson(app.url, { ...valid, idempotency_key: key }, app.fetch);
    expect(((await again.json()) as { reference: string }).reference).toBe(references[0]);
    expect(storedLines()).toHaveLength(1);
    await app.delivered();
    expect(hook.received).toHaveLength(1);
  });

  it("tells clients behind a trusted proxy apart by the rightmost untrusted address", async () => {
    const limited = await startApp(
      { INQUIRY_RATE_LIMIT_REQUESTS: "1", INQUIRY_RATE_LIMIT_WINDOW_SECONDS: "98" },
      { trustProxy: 1 },
    );
    try {
      const post = (forwardedFor: string) =>
        limited.fetch(limited.url, {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-Forwarded-For": forwardedFor },
          body: JSON.stringify(valid),
        });
      expect((await post("192.0.2.1")).status).toBe(201);
      expect((await post("192.0.2.2")).status).toBe(201);
      // The client may write anything to the left; the proxy appends the address it saw.
      expect((await post("198.51.100.9, 192.0.2.1")).status).toBe(429);
      expect((await post("198.51.100.10, 192.0.2.1")).status).toBe(429);
      // One IPv4 address written another way, and one IPv6 /64, are one client.
      expect((await post("::ffff:192.0.2.2")).status).toBe(429);
      expect((await post("::ffff:c000:202")).status).toBe(429);
      expect((await post("0:0:0:0:0:FFFF:C000:0202")).status).toBe(429);
      expect((await post("192.0.2.2:4444")).status).toBe(429);
      expect((await post("2001:db8:1:2::1")).status).toBe(201);
      expect((await post("2001:db8:1:2:aaaa:bbbb:cccc:dddd")).status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});

/**
 * What a receiver of the webhook does with a delivery, as docs/inquiries.md shows it (Stripe's `v1` scheme): the
 * HMAC-SHA256 of `${timestamp}.${body}` must be the signature, and the timestamp within five minutes.
 */
const receiverAccepts = (
  delivery: { readonly timestamp: string; readonly signature: string; readonly body: string },
  secret: string,
  nowMs: number,
): boolean => {
  const toleranceSeconds = 5 * 60;
  if (!/^\d+$/.test(delivery.timestamp)) return false;
  if (Math.abs(nowMs / 1000 - Number(delivery.timestamp)) > toleranceSeconds) return false;
  const expected = Buffer.from(
    `v1=${createHmac("sha256", secret).update(`${delivery.timestamp}.${delivery.body}`).digest("hex")}`,
  );
  const given = Buffer.from(delivery.signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
};

describe("/api/inquiry on the single server: delivery", () => {
  it("posts the stored record to the webhook, signed, and records the delivery", async () => {
    const hook = await startWebhookReceiver(204);
    const app = await startApp({ INQUIRY_WEBHOOK_URL: hook.url, INQUIRY_WEBHOOK_SECRET: "s3cret" });
    try {
      const { reference } = (await (await postJson(app.url, quote, app.fetch)).json()) as { reference: string };
      await app.delivered();
      expect(hook.received).toHaveLength(1);
      const [call] = hook.received;
      const payload = JSON.parse(call?.body ?? "{}") as unknown;
      expect(payload).toMatchObject({ reference, values: { quantities: quote.quantities, shipToState: "NC" } });
      expect(call?.headers["x-inquiry-reference"]).toBe(reference);
      // Checked as docs/inquiries.md tells a receiver to: the signature over the timestamp and the body, and the
      // timestamp within five minutes of the receiver's clock.
      const delivery = {
        timestamp: String(call?.headers["x-inquiry-timestamp"]),
        signature: String(call?.headers["x-inquiry-signature"]),
        body: call?.body ?? "",
      };
      expect(receiverAccepts(delivery, "s3cret", Date.now())).toBe(true);
      // The same delivery replayed ten minutes later is refused, and so is one whose time was changed.
      expect(receiverAccepts(delivery, "s3cret", Date.now() + 10 * 60_000)).toBe(false);
      const moved = { ...delivery, timestamp: String(Math.floor(Date.now() / 1000) + 600) };
      expect(receiverAccepts(moved, "s3cret", Date.now() + 10 * 60_000)).toBe(false);
      expect(receiverAccepts({ ...delivery, body: `${delivery.body} ` }, "s3cret", Date.now())).toBe(false);
      expect(receiverAccepts(delivery, "another secret", Date.now())).toBe(false);
      const entries = await outboxEntries();
      expect(entries.map((entry) => [entry.record.reference, entry.deliveries, entry.state])).toEqual([
        [reference, { webhook: "delivered" }, "delivered"],
      ]);
    } finally {
      await app.close();
      await hook.close();
    }
  });

  it("keeps the inquiry pending when the webhook fails, and still answers 201", async () => {
    const hook = await startWebhookReceiver(500);
    const app = await startApp({ INQUIRY_WEBHOOK_URL: hook.url });
    try {
      const response = await postJson(app.url, valid, app.fetch);
      expect(response.status).toBe(201);
      await app.delivered();
      const entries = await outboxEntries();
      expect(entries[0]?.deliveries).toEqual({ webhook: "failed" });
      expect(entries[0]?.state).toBe("pending");
      expect(logs.join("\n")).toMatch(/webhook: failed \(HTTP 500\)/);
    } finally {
      await app.close();
      await hook.close();
    }
  });

  it("emails the sales desk in text and escaped HTML, replying to the visitor, with no injected header", async () => {
    const mail = await startMailServer();
    const app = await startApp({
      SMTP_URL: mail.url,
      INQUIRY_TO: "sales@cardinal.example",
      INQUIRY_FROM: "Website <website@cardinal.example>",
    });
    try {
      const response = await postJson(
        app.url,
        {
          ...quote,
          fullName: "Pat <b>Buyer</b>\r\nBcc: victim@example.com",
          message: "Please quote <script>alert(1)</script> & thanks",
        },
        app.fetch,
      );
      const { reference } = (await response.json()) as { reference: string };
      await app.delivered();
      expect(mail.received).toHaveLength(1);
      const [message] = mail.received;
      expect(message?.to).toEqual(["sales@cardinal.example"]);
      expect(message?.from).toBe("website@cardinal.example");
      const raw = message?.raw ?? "";
      expect(raw).toMatch(new RegExp(`^Subject: Website inquiry ${reference}: Request a quote`, "m"));
      // The visitor's address alone: no display name typed by a visitor reaches a header.
      expect(raw).toMatch(/^Reply-To: pat\.buyer@wake\.example\.gov\r?$/m);
      expect(raw).not.toMatch(/^Bcc:/im);
      const [textPart, htmlPart] = raw.replace(/=\r?\n/g, "").split(/Content-Type: text\/html/);
      expect(textPart).toContain("Please quote <script>alert(1)</script> & thanks");
      expect(htmlPart).toContain("&lt;script&gt;alert(1)&lt;/script&gt; &amp; thanks");
      expect(htmlPart).toContain("Pat &lt;b&gt;Buyer&lt;/b&gt;");
      expect(htmlPart).not.toContain("<script>");
      expect((await outboxEntries())[0]?.deliveries).toEqual({ email: "delivered" });
    } finally {
      await app.close();
      await mail.close();
    }
  });

  it("fails the delivery, not the inquiry, when the email settings are incomplete", async () => {
    const app = await startApp({ SMTP_URL: "smtp://127.0.0.1:1", INQUIRY_TO: "", INQUIRY_FROM: "x@y.example" });
    try {
      expect((await postJson(app.url, valid, app.fetch)).status).toBe(201);
      await app.delivered();
      expect((await outboxEntries())[0]?.deliveries).toEqual({ email: "failed" });
      expect(logs.join("\n")).toMatch(/INQUIRY_TO must be an email address/);
    } finally {
      await app.close();
    }
  });
});
