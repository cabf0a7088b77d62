/**
 * @jest-environment node
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readInquiryConfig } from "../src/inquiry/server/config";
import { readInquiryContent } from "../src/inquiry/server/content-on-disk";
import { Outbox } from "../src/inquiry/server/outbox";
import { referencePattern } from "../src/inquiry/server/reference";
import { startInquiryApp } from "./support/inquiry-app";
import { startMailServer, startWebhookReceiver } from "./support/loopback-servers";

const content = readInquiryContent(path.resolve("content"));
const messages = content.form.formFields;

const valid = {
  fullName: "Pat Buyer",
  organization: "Wake County Sheriff's Office",
  email: "pat.buyer@wake.example.gov",
  phone: "(919) 555-0100",
  inquiryType: "general",
  message: "We need forty duty shirts before the spring academy.",
  fill_ms: 12_000,
};

const quote = {
  ...valid,
  inquiryType: "quote",
  productCategory: "uniforms",
  quantities: "40 duty shirts: 10 S, 20 M, 10 L",
  needBy: "2099-03-31",
  shipToState: "NC",
  buyingMethod: "purchase-card",
  compliance: ["berry", "taa"],
};

let dataDir: string;
let logs: string[];

const startApp = (env: NodeJS.ProcessEnv = {}) =>
  startInquiryApp({
    content,
    config: () =>
      readInquiryConfig(content.form.delivery, {
        INQUIRY_DATA_DIR: dataDir,
        INQUIRY_RATE_LIMIT_REQUESTS: "1000",
        ...env,
      }),
    log: (line) => logs.push(line),
  });

const postJson = (url: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

const postForm = (url: string, body: Record<string, string | string[]>) => {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(body)) {
    for (const item of Array.isArray(value) ? value : [value]) params.append(key, item);
  }
  return fetch(url, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: params });
};

const storedLines = () => {
  const file = path.join(dataDir, "inquiries.ndjson");
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
};

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
    expect(await response.json()).toEqual({ error: expect.any(String) });
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
      const [line, ...rest] = storedLines();
      expect(rest).toHaveLength(0);
      const record = JSON.parse(line ?? "{}");
      expect(record).toMatchObject({
        reference,
        transports: [],
        subject: `Website inquiry ${reference}: General question`,
        replyTo: { name: valid.fullName, address: valid.email },
      });
      expect(record.values).toMatchObject({ fullName: valid.fullName, message: valid.message });
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
      const record = JSON.parse(storedLines()[0] ?? "{}");
      expect(record.values.fullName).toBe("Pat Bcc: victim@example.com");
      expect(record.values.message).toBe("Line one\nLine two ok");
    } finally {
      await app.close();
    }
  });

  it("keeps the quote details, with the labels the visitor saw, only for a quote request", async () => {
    const app = await startApp();
    try {
      await postJson(app.url, quote);
      await postJson(app.url, { ...quote, inquiryType: "general" });
      const [quoted, general] = storedLines().map((line) => JSON.parse(line));
      const shown = Object.fromEntries(
        quoted.fields.map((field: { label: string; value: string }) => [field.label, field.value]),
      );
      expect(shown).toMatchObject({
        "Inquiry Type": "Request a quote",
        "Product category": "Uniforms",
        "Quantities and sizes": quote.quantities,
        "Need-by date": "2099-03-31",
        "Ship-to state": "North Carolina",
        "Buying method": "Government purchase card",
        "Compliance required": "Berry Amendment, TAA compliant",
      });
      expect(general.values).toMatchObject({ productCategory: "", quantities: "", compliance: [] });
    } finally {
      await app.close();
    }
  });

  it("answers a plain form post with a thank-you page that shows the reference", async () => {
    const app = await startApp();
    try {
      const { fill_ms: _ignored, ...withoutScript } = quote;
      const response = await postForm(app.url, { ...withoutScript, fill_ms: [] as string[] } as Record<
        string,
        string | string[]
      >);
      expect(response.status).toBe(201);
      expect(response.headers.get("content-type")).toMatch(/text\/html/);
      const html = await response.text();
      const record = JSON.parse(storedLines()[0] ?? "{}");
      expect(html).toContain(`<strong>${record.reference}</strong>`);
      expect(html).toContain(`<h1>${content.form.resultPage.receivedTitle}</h1>`);
      expect(record.values.compliance).toEqual(["berry", "taa"]);
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
      const records = storedLines().map((line) => JSON.parse(line));
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
  beforeEach(async () => {
    app = await startApp();
  });
  afterEach(() => app.close());

  it("tells a bot that filled the honeypot it worked, and keeps nothing", async () => {
    const response = await postJson(app.url, { ...valid, company_website: "https://spam.example" });
    expect(response.status).toBe(201);
    expect((await response.json()).reference).toMatch(referencePattern);
    expect(storedLines()).toHaveLength(0);
  });

  it("treats a form sent faster than the minimum fill time the same way", async () => {
    const response = await postJson(app.url, { ...valid, fill_ms: content.form.delivery.minFillSeconds * 1000 - 1 });
    expect(response.status).toBe(201);
    expect(storedLines()).toHaveLength(0);
    expect(logs.join("\n")).toMatch(/discarded as automated \(sent too fast\)/);
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

  it("tells a client behind a configured proxy header apart from another", async () => {
    const limited = await startApp({
      INQUIRY_RATE_LIMIT_REQUESTS: "1",
      INQUIRY_RATE_LIMIT_WINDOW_SECONDS: "98",
      INQUIRY_CLIENT_IP_HEADER: "X-Client-IP",
    });
    try {
      const post = (client: string) =>
        fetch(limited.url, {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-Client-IP": client },
          body: JSON.stringify(valid),
        });
      expect((await post("192.0.2.1")).status).toBe(201);
      expect((await post("192.0.2.2")).status).toBe(201);
      expect((await post("192.0.2.1")).status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});

describe("/api/inquiry: delivery", () => {
  it("posts the stored record to the webhook, signed, and records the delivery", async () => {
    const hook = await startWebhookReceiver(204);
    const app = await startApp({ INQUIRY_WEBHOOK_URL: hook.url, INQUIRY_WEBHOOK_SECRET: "s3cret" });
    try {
      const { reference } = (await (await postJson(app.url, quote)).json()) as { reference: string };
      expect(hook.received).toHaveLength(1);
      const [call] = hook.received;
      const payload = JSON.parse(call?.body ?? "{}");
      expect(payload).toMatchObject({ reference, values: { quantities: quote.quantities, shipToState: "NC" } });
      const { createHmac } = await import("node:crypto");
      expect(call?.headers["x-inquiry-signature"]).toBe(
        `sha256=${createHmac("sha256", "s3cret")
          .update(call?.body ?? "")
          .digest("hex")}`,
      );
      const { entries } = await new Outbox(dataDir).entries();
      expect(entries.map((entry) => [entry.record.reference, entry.deliveries, entry.pending])).toEqual([
        [reference, { webhook: "delivered" }, false],
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
      const { entries } = await new Outbox(dataDir).entries();
      expect(entries[0]?.deliveries).toEqual({ webhook: "failed" });
      expect(entries[0]?.pending).toBe(true);
      expect(logs.join("\n")).toMatch(/webhook: failed \(HTTP 500\)/);
    } finally {
      await app.close();
      await hook.close();
    }
  });

  it("answers 503 where the outbox is not durable and no transport took the inquiry", async () => {
    const hook = await startWebhookReceiver(500);
    const app = await startApp({ INQUIRY_WEBHOOK_URL: hook.url, INQUIRY_OUTBOX_EPHEMERAL: "1" });
    try {
      expect((await postJson(app.url, valid)).status).toBe(503);
      hook.answerWith(204);
      expect((await postJson(app.url, valid)).status).toBe(201);
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
      expect(mail.received).toHaveLength(1);
      const [message] = mail.received;
      expect(message?.to).toEqual(["sales@cardinal.example"]);
      expect(message?.from).toBe("website@cardinal.example");
      const raw = message?.raw ?? "";
      expect(raw).toMatch(new RegExp(`^Subject: Website inquiry ${reference}: Request a quote`, "m"));
      expect(raw).toMatch(/^Reply-To: .*<pat\.buyer@wake\.example\.gov>/m);
      expect(raw).not.toMatch(/^Bcc:/im);
      const [textPart, htmlPart] = raw.replace(/=\r?\n/g, "").split(/Content-Type: text\/html/);
      expect(textPart).toContain("Please quote <script>alert(1)</script> & thanks");
      expect(htmlPart).toContain("&lt;script&gt;alert(1)&lt;/script&gt; &amp; thanks");
      expect(htmlPart).toContain("Pat &lt;b&gt;Buyer&lt;/b&gt;");
      expect(htmlPart).not.toContain("<script>");
      const { entries } = await new Outbox(dataDir).entries();
      expect(entries[0]?.deliveries).toEqual({ email: "delivered" });
    } finally {
      await app.close();
      await mail.close();
    }
  });

  it("fails the delivery, not the inquiry, when the email settings are incomplete", async () => {
    const app = await startApp({ SMTP_URL: "smtp://127.0.0.1:1", INQUIRY_TO: "", INQUIRY_FROM: "x@y.example" });
    try {
      expect((await postJson(app.url, valid)).status).toBe(201);
      const { entries } = await new Outbox(dataDir).entries();
      expect(entries[0]?.deliveries).toEqual({ email: "failed" });
      expect(logs.join("\n")).toMatch(/INQUIRY_TO must be an email address/);
    } finally {
      await app.close();
    }
  });
});
