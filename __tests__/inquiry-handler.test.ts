/**
 * @jest-environment node
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readInquiryConfig } from "../server/inquiries/config";
import { readInquiryContent } from "../server/inquiries/content-on-disk";
import { createInquiryHandler, type InquiryReply, type InquiryRequest } from "../server/inquiries/intake/handler";
import type { OutboxRecord } from "../server/inquiries/store/outbox";
import { referencePattern } from "../server/inquiries/intake/reference";
import { parseFormBody } from "../server/inquiries/intake/request-body";
import { quoteInquiry as quote, validInquiry as valid, visitorsAnswers } from "./support/inquiry-posts";
import { storedRecordsIn } from "./support/outbox-fixtures";
import { lineLog } from "../server/inquiries/operational-log";

/**
 * The inquiry handler's rules, run against the framework-free core that both deploys adapt (the single
 * server's plugin, the Gatsby Function): what it refuses before reading a body, what it accepts, what it
 * stores and what it answers. The adapters' own tests check only their wiring.
 */
const content = readInquiryContent(path.resolve("content"));
const messages = content.form.formFields;

let dataDir: string;
let logs: string[] = [];
/** Each line with its level: `warn refused: …`. */
let leveled: string[] = [];
beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), "inquiry-handler-"));
  logs = [];
  leveled = [];
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const handlerWith = (env: NodeJS.ProcessEnv = {}) =>
  createInquiryHandler({
    content,
    config: () =>
      readInquiryConfig(content.form.delivery, {
        INQUIRY_DATA_DIR: dataDir,
        INQUIRY_RATE_LIMIT_REQUESTS: "1000",
        ...env,
      }),
    log: lineLog((line, level) => {
      logs.push(line);
      leveled.push(`${level} ${line}`);
    }),
  });

const JSON_TYPE = "application/json";
const FORM_TYPE = "application/x-www-form-urlencoded";

const request = (overrides: Partial<InquiryRequest> = {}): InquiryRequest => ({
  method: "POST",
  contentType: JSON_TYPE,
  clientAddress: "192.0.2.1",
  host: "www.example.gov",
  origin: undefined,
  secFetchSite: undefined,
  ...overrides,
});

type Handler = ReturnType<typeof handlerWith>;

/** A post as an adapter makes it: screened before its body is read, then accepted. */
const post = async (
  handler: Handler,
  body: unknown,
  overrides: Partial<InquiryRequest> = {},
): Promise<InquiryReply> => {
  const refused = await handler.screen(request(overrides));
  if (refused) return refused;
  return (await handler.accept(request(overrides), body)).reply;
};

/** A plain form post, its body as the adapters parse a urlencoded one; a list repeats its name. */
const postForm = (handler: Handler, body: Record<string, string | readonly string[]>) => {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(body)) {
    for (const item of typeof value === "string" ? [value] : value) params.append(key, item);
  }
  return post(handler, parseFormBody(params.toString()), { contentType: FORM_TYPE });
};

const json = (answer: InquiryReply): unknown => JSON.parse(answer.body);
const storedRecords = (): OutboxRecord[] => storedRecordsIn(dataDir);

/** jest's any-string matcher, typed as the value it stands for rather than `any`. */
const anyString: unknown = expect.any(String);

describe("the inquiry handler: what it refuses before reading a body", () => {
  it("answers anything but POST with 405 and says what is allowed", async () => {
    const answer = await handlerWith().screen(request({ method: "GET", contentType: undefined }));
    expect(answer?.status).toBe(405);
    expect(answer?.headers.Allow).toBe("POST");
    expect(json(answer!)).toEqual({ error: anyString });
  });

  it("refuses other content types with 415", async () => {
    const handler = handlerWith();
    expect((await handler.screen(request({ contentType: "text/plain" })))?.status).toBe(415);
    expect((await handler.screen(request({ contentType: "multipart/form-data; boundary=x" })))?.status).toBe(415);
  });

  it("limits one client to the configured number of inquiries, then answers 429 with Retry-After", async () => {
    const handler = handlerWith({ INQUIRY_RATE_LIMIT_REQUESTS: "2", INQUIRY_RATE_LIMIT_WINDOW_SECONDS: "97" });
    const statuses = [];
    for (let index = 0; index < 3; index += 1) statuses.push((await post(handler, valid)).status);
    const refused = await post(handler, valid);
    expect(statuses).toEqual([201, 201, 429]);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers["Retry-After"]);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(97);
    expect(json(refused)).toEqual({ retryAfterSeconds: retryAfter });
    expect(storedRecords()).toHaveLength(2);
    // Stored ones at info; the refusal at warn, which an operator watching for abuse looks for.
    expect(leveled.map((line) => line.replace(/\bCRS-\S+/, "<ref>"))).toEqual([
      "info <ref> stored (general)",
      "info <ref> stored (general)",
      "warn refused: rate limit (2 per 97 s)",
      "warn refused: rate limit (2 per 97 s)",
    ]);
    // Another client has its own count.
    expect((await post(handler, valid, { clientAddress: "192.0.2.2" })).status).toBe(201);
  });

  it("counts every POST, invalid ones included, against the limit", async () => {
    const handler = handlerWith({ INQUIRY_RATE_LIMIT_REQUESTS: "2", INQUIRY_RATE_LIMIT_WINDOW_SECONDS: "99" });
    expect((await post(handler, { email: "nope" })).status).toBe(422);
    expect((await post(handler, "x", { contentType: "text/plain" })).status).toBe(415);
    expect((await post(handler, valid)).status).toBe(429);
    expect(storedRecords()).toHaveLength(0);
  });

  it("refuses a post from another site, with a page for a visitor without JavaScript", async () => {
    const handler = handlerWith();
    expect((await postForm(handler, { ...valid, fill_ms: [] })).status).toBe(201);
    const fromElsewhere = await post(
      handler,
      { fullName: "Pat", email: "pat@example.gov", message: "Hello there" },
      { contentType: FORM_TYPE, secFetchSite: "cross-site" },
    );
    expect(fromElsewhere.status).toBe(403);
    expect(fromElsewhere.body).toContain(`<h1>${content.form.resultPage.crossSiteTitle}</h1>`);
    expect(fromElsewhere.body).toContain('href="/contact/"');
    const byOrigin = await post(handler, valid, { origin: "https://evil.example" });
    expect(byOrigin.status).toBe(403);
    expect(json(byOrigin)).toEqual({ error: anyString });
    const sameOrigin = await post(handler, valid, { origin: "https://www.example.gov", secFetchSite: "same-origin" });
    expect(sameOrigin.status).toBe(201);
    expect(storedRecords()).toHaveLength(2);
  });
});

describe("the inquiry handler: what it accepts", () => {
  it("answers 422 with the content's message for each field at fault", async () => {
    const answer = await post(handlerWith(), { email: "not-an-address", inquiryType: "free-stuff", fill_ms: 9000 });
    expect(answer.status).toBe(422);
    expect(json(answer)).toEqual({
      errors: {
        fullName: messages.fullName.errors.required,
        email: messages.email.errors.invalid,
        inquiryType: messages.inquiryType.errors.invalid,
        message: messages.message.errors.required,
      },
    });
    expect(storedRecords()).toHaveLength(0);
  });

  it("bounds every field, quote fields included", async () => {
    const answer = await post(handlerWith(), {
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
    const { errors } = json(answer) as { errors: Record<string, string> };
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
    expect((await post(handlerWith(), ["fullName"])).status).toBe(422);
  });
});

describe("the inquiry handler: accepted inquiries", () => {
  it("stores the inquiry before answering 201 with a short reference", async () => {
    const answer = await post(handlerWith(), valid);
    expect(answer.status).toBe(201);
    const { reference } = json(answer) as { reference: string };
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
  });

  it("strips control characters, so a name cannot carry a mail header", async () => {
    await post(handlerWith(), {
      ...valid,
      fullName: "Pat\r\nBcc: victim@example.com\u0000",
      message: "Line one\r\nLine two\u0007 ok",
    });
    const [record] = storedRecords();
    expect(record!.values.fullName).toBe("Pat Bcc: victim@example.com");
    expect(record!.values.message).toBe("Line one\nLine two ok");
  });

  it("removes invisible characters and Unicode line separators from one-line fields", async () => {
    const answer = await post(handlerWith(), {
      ...valid,
      fullName: "Pat\u2028Bcc: victim@example.com\u200b\u200e\ufeff",
      organization: "Wake\u2029County\u2060 Sheriff\u061c",
      email: "pat.buyer@wake.example.gov\u200b",
      message: "Line one\u2028Line two",
    });
    expect(answer.status).toBe(201);
    const [record] = storedRecords();
    expect(record!.values.fullName).toBe("Pat Bcc: victim@example.com");
    expect(record!.values.organization).toBe("Wake County Sheriff");
    expect(record!.values.email).toBe("pat.buyer@wake.example.gov");
    expect(record!.values.message).toBe("Line one\nLine two");
  });

  it("keeps the quote details, with the labels the visitor saw, only for a quote request", async () => {
    const handler = handlerWith();
    await post(handler, quote);
    await post(handler, { ...quote, inquiryType: "general" });
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
  });

  it("answers a plain form post with a thank-you page that shows the reference", async () => {
    const { fill_ms: _ignored, ...withoutScript } = quote;
    const answer = await postForm(handlerWith(), { ...withoutScript, fill_ms: [] });
    expect(answer.status).toBe(201);
    expect(answer.headers["Content-Type"]).toMatch(/text\/html/);
    const [record] = storedRecords();
    expect(answer.body).toContain(`<strong>${record!.reference}</strong>`);
    expect(answer.body).toContain(`<h1>${content.form.resultPage.receivedTitle}</h1>`);
    expect(record!.values.compliance).toEqual(["berry", "taa"]);
  });

  it("answers a plain form post with problems with a page listing what to fix, escaped", async () => {
    const answer = await postForm(handlerWith(), { fullName: "<script>alert(1)</script>", email: "nope" });
    expect(answer.status).toBe(422);
    expect(answer.body).toContain(messages.email.errors.invalid ?? "missing");
    expect(answer.body).toContain(messages.message.errors.required ?? "missing");
    expect(answer.body).not.toContain("<script>");
    expect(answer.body).toContain('href="/contact/"');
  });

  it("never writes a visitor's answers to the log", async () => {
    await post(handlerWith(), quote);
    const text = logs.join("\n");
    expect(text).toMatch(/stored \(quote\)/);
    for (const value of visitorsAnswers) expect(text).not.toContain(value);
  });

  it("stores concurrent submissions as whole records, each once", async () => {
    const handler = handlerWith();
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        post(handler, { ...valid, message: `Concurrent inquiry number ${index}` }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(40).fill(201));
    const records = storedRecords();
    expect(records).toHaveLength(40);
    expect(new Set(records.map((record) => record.values.message)).size).toBe(40);
    expect(new Set(records.map((record) => record.reference)).size).toBe(40);
  });

  it("answers 503 and stores nothing when the outbox cannot be written", async () => {
    const blocked = path.join(dataDir, "not-a-folder");
    writeFileSync(blocked, "");
    const answer = await post(handlerWith({ INQUIRY_DATA_DIR: blocked }), valid);
    expect(answer.status).toBe(503);
    expect(leveled.join("\n")).toMatch(/^error not stored: E/m);
  });
});
