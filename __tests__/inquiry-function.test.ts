/**
 * @jest-environment node
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readInquiryConfig } from "../server/inquiries/config";
import { readInquiryContent } from "../server/inquiries/content-on-disk";
import type { OutboxRecord } from "../server/inquiries/outbox";
import { SqliteOutbox } from "../server/inquiries/sqlite-outbox";
import { referencePattern } from "../server/inquiries/reference";
import { startInquiryApp, type InquiryAppOptions } from "./support/inquiry-app";
import { postForm, postJson, quoteInquiry, validInquiry } from "./support/inquiry-posts";
import { startMailServer, startWebhookReceiver } from "./support/loopback-servers";
import { storedRecordsIn } from "./support/outbox-fixtures";

const content = readInquiryContent(path.resolve("content"));
const messages = content.form.formFields;

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
        ...env,
      }),
    log: (line) => logs.push(line),
    ...server,
  });

const maxAttempts = content.form.delivery.retry.maxAttempts;
const outboxEntries = async () => (await new SqliteOutbox(dataDir).entries(maxAttempts)).entries;

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

describe("/api/inquiry: what it accepts", () => {
  let app: Awaited<ReturnType<typeof startApp>>;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), "inquiry-test-"));
    app = await startApp();
  });
  afterAll(() => app.close());

  it("answers anything but POST with 405 and says what is allowed", async () => {
    const response = await fetch(app.url);
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect(await response.json()).toEqual({ error: anyString });
  });

  it("refuses other content types with 415", async () => {
    const response = await fetch(app.url, { method: "POST", headers: { "Content-Type": "text/plain" }, body: "hi" });
    expect(response.status).toBe(415);
    const multipart = new FormData();
    multipart.append("fullName", "Pat");
    expect((await fetch(app.url, { method: "POST", body: multipart })).status).toBe(415);
  });

  it("refuses a body over the limit in content with 413", async () => {
    const limit = content.form.delivery.maxBodyKilobytes * 1024;
    const response = await postJson(app.url, { ...valid, message: "x".repeat(limit) });
    expect(response.status).toBe(413);
    expect(storedLines()).toHaveLength(0);
  });

  it("answers 422 with the content's message for each field at fault", async () => {
    const response = await postJson(app.url, { email: "not-an-address", inquiryType: "free-stuff", fill_ms: 9000 });
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({
      errors: {
        fullName: messages.fullName.errors.required,
        email: messages.email.errors.invalid,
        inquiryType: messages.inquiryType.errors.invalid,
        message: messages.message.errors.required,
      },
    });
    expect(storedLines()).toHaveLength(0);
  });

  it("bounds every field, quote fields included", async () => {
    const response = await postJson(app.url, {
      ...quote,
      fullName: "P".repeat(101),
      organization: "O".repeat(151),
      phone: "1".repeat(31),
      quantities: "q".repeat(2001),
      needBy: "2001-01-01",
      shipToState: "ZZ",
      buyingMethod: "barter",
      compliance: ["taa", "made-on-mars"],
      productCategory: "jetpacks",
      message: "m".repeat(5001),
    });
    const { errors } = (await response.json()) as { errors: Record<string, string> };
    expect(Object.keys(errors).sort()).toEqual(
      [
        "buyingMethod",
        "compliance",
        "fullName",
        "message",
        "needBy",
        "organization",
        "phone",
        "productCategory",
        "quantities",
        "shipToState",
      ].sort(),
    );
  });

  it("turns a JSON body that is not an object into field errors, not a crash", async () => {
    const response = await postJson(app.url, ["fullName"]);
    expect(response.status).toBe(422);
  });
});

describe("/api/inquiry: accepted inquiries", () => {
  it("stores the inquiry before answering 201 with a short reference", async () => {
    const app = await startApp();
    try {
      const response = await postJson(app.url, valid);
      expect(response.status).toBe(201);
      const { reference } = (await response.json()) as { reference: string };
      expect(reference).toMatch(referencePattern);
      expect(reference.startsWith(`${content.form.delivery.referencePrefix}-`)).toBe(true);
      const [record, ...rest] = storedRecords();
      expect(rest).toHaveLength(0);
      expect(record).toMatchObject({
        reference,
        transports: [],
        subject: `Website inquiry ${reference}: General question`,
        replyTo: { address: valid.email },
      });
      expect(record!.values).toMatchObject({ fullName: valid.fullName, message: valid.message });
    } finally {
      await app.close();
    }
  });

  it("strips control characters, so a name cannot carry a mail header", async () => {
    const app = await startApp();
    try {
      await postJson(app.url, {
        ...valid,
        fullName: "Pat\r\nBcc: victim@example.com\u0000",
        message: "Line one\r\nLine two\u0007 ok",
      });
      const [record] = storedRecords();
      expect(record!.values.fullName).toBe("Pat Bcc: victim@example.com");
      expect(record!.values.message).toBe("Line one\nLine two ok");
    } finally {
      await app.close();
    }
  });

  it("removes invisible characters and Unicode line separators from one-line fields", async () => {
    const app = await startApp();
    try {
      const response = await postJson(app.url, {
        ...valid,
        fullName: "Pat\u2028Bcc: victim@example.com\u200b\u200e\ufeff",
        organization: "Wake\u2029County\u2060 Sheriff\u061c",
        email: "pat.buyer@wake.example.gov\u200b",
        message: "Line one\u2028Line two",
      });
      expect(response.status).toBe(201);
      const [record] = storedRecords();
      expect(record!.values.fullName).toBe("Pat Bcc: victim@example.com");
      expect(record!.values.organization).toBe("Wake County Sheriff");
      expect(record!.values.email).toBe("pat.buyer@wake.example.gov");
      expect(record!.values.message).toBe("Line one\nLine two");
    } finally {
      await app.close();
    }
  });

  it("keeps the quote details, with the labels the visitor saw, only for a quote request", async () => {
    const app = await startApp();
    try {
      await postJson(app.url, quote);
      await postJson(app.url, { ...quote, inquiryType: "general" });
      const [quoted, general] = storedRecords();
      const shown = Object.fromEntries(quoted!.fields.map((field) => [field.label, field.value]));
      expect(shown).toMatchObject({
        "Inquiry Type": "Request a quote",
        "Product category": "Uniforms",
        "Quantities and sizes": quote.quantities,
        "Need-by date": "2099-03-31",
        "Ship-to state": "North Carolina",
        "Buying method": "Government purchase card",
        "Compliance required": "Berry Amendment, TAA compliant",
      });
      expect(general!.values).toMatchObject({ productCategory: "", quantities: "", compliance: [] });
    } finally {
      await app.close();
    }
  });

  it("answers a plain form post with a thank-you page that shows the reference", async () => {
    const app = await startApp();
    try {
      const { fill_ms: _ignored, ...withoutScript } = quote;
      const response = await postForm(app.url, { ...withoutScript, fill_ms: [] as string[] });
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

  it("answers a plain form post with problems with a page listing what to fix, escaped", async () => {
    const app = await startApp();
    try {
      const response = await postForm(app.url, { fullName: "<script>alert(1)</script>", email: "nope" });
      expect(response.status).toBe(422);
      const html = await response.text();
      expect(html).toContain(messages.email.errors.invalid ?? "missing");
      expect(html).toContain(messages.message.errors.required ?? "missing");
      expect(html).not.toContain("<script>");
      expect(html).toContain('href="/contact/"');
    } finally {
      await app.close();
    }
  });

  it("never writes a visitor's answers to the log", async () => {
    const app = await startApp();
    try {
      await postJson(app.url, quote);
      const text = logs.join("\n");
      expect(text).toMatch(/stored \(quote\)/);
      for (const value of [
        valid.fullName,
        valid.email,
        valid.phone,
        valid.organization,
        valid.message,
        quote.quantities,
      ]) {
        expect(text).not.toContain(value);
      }
    } finally {
      await app.close();
    }
  });

  it("stores concurrent submissions as whole lines, each once", async () => {
    const app = await startApp();
    try {
      const responses = await Promise.all(
        Array.from({ length: 40 }, (_, index) =>
          postJson(app.url, { ...valid, message: `Concurrent inquiry number ${index}` }),
        ),
      );
      expect(responses.map((response) => response.status)).toEqual(Array(40).fill(201));
      const records = storedRecords();
      expect(records).toHaveLength(40);
      expect(new Set(records.map((record) => record.values.message)).size).toBe(40);
      expect(new Set(records.map((record) => record.reference)).size).toBe(40);
    } finally {
      await app.close();
    }
  });

  it("answers 503 and stores nothing when the outbox cannot be written", async () => {
    const blocked = path.join(dataDir, "not-a-folder");
    writeFileSync(blocked, "");
    const app = await startApp({ INQUIRY_DATA_DIR: blocked });
    try {
      const response = await postJson(app.url, valid);
      expect(response.status).toBe(503);
      expect(logs.join("\n")).toMatch(/not stored: E/);
    } finally {
      await app.close();
    }
  });
});

describe("/api/inquiry: spam", () => {
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

  it("keeps an inquiry that filled the honeypot in quarantine, answers as usual, and delivers nothing", async () => {
    const response = await postJson(app.url, { ...valid, company_website: "https://spam.example" });
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
  });

  it("quarantines a form sent faster than the minimum fill time the same way, and a release delivers it", async () => {
    const response = await postJson(app.url, { ...valid, fill_ms: content.form.delivery.minFillSeconds * 1000 - 1 });
    expect(response.status).toBe(201);
    expect(logs.join("\n")).toMatch(/quarantined: sent too fast/);
    const [entry] = await outboxEntries();
    expect(entry?.state).toBe("quarantined");
    await new SqliteOutbox(dataDir).release(entry?.record.reference ?? "");
    app.server.worker.notify();
    await app.delivered();
    expect(hook.received).toHaveLength(1);
    expect((await outboxEntries())[0]?.state).toBe("delivered");
  });

  it("answers a repeated submission with the same idempotency key with the same reference and one record", async () => {
    const key = "3f2b8c1e-5d4a-4b6f-9e7d-1a2b3c4d5e6f";
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => postJson(app.url, { ...valid, idempotency_key: key })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(5).fill(201));
    const references = await Promise.all(
      answers.map(async (answer) => ((await answer.json()) as { reference: string }).reference),
    );
    expect(new Set(references).size).toBe(1);
    const again = await postJson(app.url, { ...valid, idempotency_key: key });
    expect(((await again.json()) as { reference: string }).reference).toBe(references[0]);
    expect(storedLines()).toHaveLength(1);
    await app.delivered();
    expect(hook.received).toHaveLength(1);
  });

  it("limits one client to the configured number of inquiries, then answers 429 with Retry-After", async () => {
    const limited = await startApp({ INQUIRY_RATE_LIMIT_REQUESTS: "2", INQUIRY_RATE_LIMIT_WINDOW_SECONDS: "97" });
    try {
      const statuses = [];
      for (let index = 0; index < 3; index += 1) statuses.push((await postJson(limited.url, valid)).status);
      const refused = await postJson(limited.url, valid);
      expect(statuses).toEqual([201, 201, 429]);
      expect(refused.status).toBe(429);
      const retryAfter = Number(refused.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(97);
      expect(await refused.json()).toEqual({ retryAfterSeconds: retryAfter });
      expect(storedLines()).toHaveLength(2);
    } finally {
      await limited.close();
    }
  });

  it("tells clients behind a trusted proxy apart by the rightmost untrusted address", async () => {
    const limited = await startApp(
      { INQUIRY_RATE_LIMIT_REQUESTS: "1", INQUIRY_RATE_LIMIT_WINDOW_SECONDS: "98" },
      { trustProxy: 1 },
    );
    try {
      const post = (forwardedFor: string) =>
        fetch(limited.url, {
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

  it("counts every POST, invalid ones included, against the limit", async () => {
    const limited = await startApp({ INQUIRY_RATE_LIMIT_REQUESTS: "2", INQUIRY_RATE_LIMIT_WINDOW_SECONDS: "99" });
    try {
      expect((await postJson(limited.url, { email: "nope" })).status).toBe(422);
      expect(
        (await fetch(limited.url, { method: "POST", body: "x", headers: { "Content-Type": "text/plain" } })).status,
      ).toBe(415);
      expect((await postJson(limited.url, valid)).status).toBe(429);
      expect(storedLines()).toHaveLength(0);
    } finally {
      await limited.close();
    }
  });

  it("refuses a post from another site, with a page for a visitor without JavaScript", async () => {
    const crossSite = await postForm(app.url, { ...valid, fill_ms: [] });
    expect(crossSite.status).toBe(201);
    const fromElsewhere = await fetch(app.url, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "cross-site" },
      body: new URLSearchParams({ fullName: "Pat", email: "pat@example.gov", message: "Hello there" }),
    });
    expect(fromElsewhere.status).toBe(403);
    const page = await fromElsewhere.text();
    expect(page).toContain(`<h1>${content.form.resultPage.crossSiteTitle}</h1>`);
    expect(page).toContain('href="/contact/"');
    const byOrigin = await fetch(app.url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: "https://evil.example" },
      body: JSON.stringify(valid),
    });
    expect(byOrigin.status).toBe(403);
    expect(await byOrigin.json()).toEqual({ error: anyString });
    const sameOrigin = await fetch(app.url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: app.origin, "Sec-Fetch-Site": "same-origin" },
      body: JSON.stringify(valid),
    });
    expect(sameOrigin.status).toBe(201);
    expect(storedLines()).toHaveLength(2);
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

describe("/api/inquiry: delivery", () => {
  it("posts the stored record to the webhook, signed, and records the delivery", async () => {
    const hook = await startWebhookReceiver(204);
    const app = await startApp({ INQUIRY_WEBHOOK_URL: hook.url, INQUIRY_WEBHOOK_SECRET: "s3cret" });
    try {
      const { reference } = (await (await postJson(app.url, quote)).json()) as { reference: string };
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
      const response = await postJson(app.url, valid);
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
      const response = await postJson(app.url, {
        ...quote,
        fullName: "Pat <b>Buyer</b>\r\nBcc: victim@example.com",
        message: "Please quote <script>alert(1)</script> & thanks",
      });
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
      expect((await postJson(app.url, valid)).status).toBe(201);
      await app.delivered();
      expect((await outboxEntries())[0]?.deliveries).toEqual({ email: "failed" });
      expect(logs.join("\n")).toMatch(/INQUIRY_TO must be an email address/);
    } finally {
      await app.close();
    }
  });
});
