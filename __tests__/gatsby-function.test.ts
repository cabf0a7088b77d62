/**
 * @jest-environment node
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { GatsbyFunctionRequest, GatsbyFunctionResponse } from "gatsby";
import { readInquiryConfig } from "../src/inquiry/server/config";
import { readInquiryContent } from "../src/inquiry/server/content-on-disk";
import { createGatsbyFunction } from "../src/inquiry/server/gatsby-function";
import { startWebhookReceiver } from "./support/loopback-servers";
import { validInquiry } from "./support/inquiry-posts";

const content = readInquiryContent(path.resolve("content"));

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Calls the function as Gatsby does: a parsed body on the request, an Express-like response. */
const call = async (
  fn: ReturnType<typeof createGatsbyFunction>,
  body: unknown,
  contentType = "application/json",
): Promise<Answer> => {
  const answer: Answer = { status: 200, headers: {}, body: "" };
  const req = {
    method: "POST",
    headers: { "content-type": contentType, host: "site.example" },
    body,
    socket: { remoteAddress: "192.0.2.10" },
  } as unknown as GatsbyFunctionRequest;
  const res = {
    setHeader: (name: string, value: string) => {
      answer.headers[name.toLowerCase()] = value;
    },
    status(code: number) {
      answer.status = code;
      return this;
    },
    send: (text: string) => {
      answer.body = text;
    },
  } as unknown as GatsbyFunctionResponse;
  await fn(req, res);
  return answer;
};

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
      config: () =>
        readInquiryConfig(content.form.delivery, {
          INQUIRY_DATA_DIR: dataDir,
          INQUIRY_OUTBOX_EPHEMERAL: "1",
          INQUIRY_WEBHOOK_URL: hook.url,
          INQUIRY_RATE_LIMIT_REQUESTS: "1000",
        }),
      log: () => undefined,
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

  it("answers a form post with the result page and its own Content-Security-Policy", async () => {
    const fn = createGatsbyFunction({
      content,
      config: () => readInquiryConfig(content.form.delivery, { INQUIRY_DATA_DIR: dataDir }),
      log: () => undefined,
    });
    const answer = await call(fn, { email: "nope" }, "application/x-www-form-urlencoded");
    expect(answer.status).toBe(422);
    expect(answer.headers["content-type"]).toMatch(/^text\/html/);
    expect(answer.headers["content-security-policy"]).toMatch(/default-src 'none'/);
  });
});
