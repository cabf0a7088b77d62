/**
 * @jest-environment node
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readInquiryConfig } from "../src/inquiry/server/config";
import { readInquiryContent } from "../src/inquiry/server/content-on-disk";
import { createGatsbyFunction } from "../src/inquiry/server/gatsby-function";
import { openOutbox } from "../src/inquiry/server/open-outbox";
import { runScheduledDelivery } from "../src/inquiry/server/scheduled-delivery";
import { startBlobsServer } from "./support/blobs-server";
import { callFunction as call } from "./support/gatsby-function-call";
import { startWebhookReceiver } from "./support/loopback-servers";
import { validInquiry } from "./support/inquiry-posts";

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
    const answer = await call(fn, { email: "nope" }, { contentType: "application/x-www-form-urlencoded" });
    expect(answer.status).toBe(422);
    expect(answer.headers["content-type"]).toMatch(/^text\/html/);
    expect(answer.headers["content-security-policy"]).toMatch(/default-src 'none'/);
  });

  it("with the Blobs outbox, stores through the invocation's own store access and answers 201 though no transport took it; the scheduled delivery sends it", async () => {
    const blobs = await startBlobsServer();
    const hook = await startWebhookReceiver(500);
    const logs: string[] = [];
    // No site ID or token: the store is reached with what the platform puts in each invocation's event.
    const env = {
      INQUIRY_OUTBOX: "blobs",
      INQUIRY_BLOBS_STORE: "function-test",
      INQUIRY_WEBHOOK_URL: hook.url,
      INQUIRY_RATE_LIMIT_REQUESTS: "1000",
    };
    const fn = createGatsbyFunction({
      content,
      config: () => readInquiryConfig(content.form.delivery, env),
      log: (line) => logs.push(line),
    });
    try {
      const event = blobs.lambdaEvent();
      const first = await call(fn, { ...validInquiry, idempotency_key: "function-test-key-0001" }, { event });
      expect(first.status).toBe(201);
      const { reference } = JSON.parse(first.body) as { reference: string };
      // A repeat (the visitor's retry) is the same inquiry.
      const again = await call(fn, { ...validInquiry, idempotency_key: "function-test-key-0001" }, { event });
      expect([again.status, JSON.parse(again.body)]).toEqual([201, { reference }]);
      expect(hook.received).toHaveLength(1);
      // Without the event's access (and no other), nothing can be stored: the visitor is told so.
      const unstored = await call(fn, { ...validInquiry, message: "Sent where the store cannot be reached." });
      expect([unstored.status, JSON.parse(unstored.body)]).toEqual([
        503,
        { error: "The inquiry could not be stored." },
      ]);

      const stored = openOutbox(readInquiryConfig(content.form.delivery, blobs.env("function-test")));
      const entry = await stored.entry(reference, 8);
      expect([entry?.record.values.email, entry?.state, entry?.deliveries]).toEqual([
        validInquiry.email,
        "pending",
        { webhook: "failed" },
      ]);

      hook.answerWith(204);
      process.env.NETLIFY_BLOBS_CONTEXT = blobs.functionContext();
      const later = new Date(Date.parse(entry?.dueAt ?? "") + 1);
      const outcome = await runScheduledDelivery(content.form.delivery, {
        config: () => readInquiryConfig(content.form.delivery, env),
        log: (line) => logs.push(line),
        now: () => later,
      });
      expect(outcome).toMatchObject({ ran: true, due: 1, delivered: 1, pending: 0 });
      expect(hook.received.map((request) => request.headers["x-inquiry-reference"])).toEqual([reference, reference]);
      expect((await stored.entry(reference, 8))?.state).toBe("delivered");
    } finally {
      delete process.env.NETLIFY_BLOBS_CONTEXT;
      await hook.close();
      await blobs.close();
    }
  });
});
