/**
 * @jest-environment node
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readInquiryConfig, type InquiryConfig } from "../server/inquiries/config";
import { readInquiryContent } from "../server/inquiries/content-on-disk";
import type { InquiryContent } from "../server/inquiries/content";
import { webhookSignature } from "../server/inquiries/delivery/deliver";
import { deliveryPass, DeliveryWorker } from "../server/inquiries/delivery/delivery-worker";
import { digestDayDue, localDayAndHour } from "../server/inquiries/held/digest";
import { openOutbox } from "../server/inquiries/store/open-outbox";
import type { InquiryOutbox } from "../server/inquiries/store/sql-outbox";
import { checkReleaseLink } from "../server/inquiries/held/release-link";
import { runScheduledDelivery } from "../server/inquiries/netlify/scheduled-delivery";
import { mailParts, startMailServer, startWebhookReceiver } from "../testing/loopback-servers";
import { healthDetailsHeaders } from "../testing/site-server";
import { startInquiryApp } from "./support/inquiry-app";
import { sampleRecord } from "./support/outbox-fixtures";
import { editedContentCopy } from "./support/content-copy";
import { heldRecord, RELEASE_LINKS_ENV, RELEASE_ORIGIN, RELEASE_SECRET, visitor } from "./support/held-inquiries";
import { forgetProcessState } from "./support/outbox-restart";
import { SQL_POSTGRES, SQL_SQLITE, useSqlStores } from "./support/sql-stores";
import { lineLog } from "../server/inquiries/operational-log";
import { removeExpired } from "../server/inquiries/privacy/retention";

/**
 * The daily digest of inquiries held as suspected spam (server/inquiries/held/digest.ts), on both stores: made
 * once a day from its hour in the company's time zone (America/New_York: 7 in the morning is 12:00 UTC in
 * November), listing every inquiry held since the last one in full, delivered through the real SMTP
 * stand-in and a webhook, retried like an inquiry, and never repeated or skipped across a restart. And the
 * judgement kept whatever is configured: a held inquiry is never delivered without a release.
 */

const content = readInquiryContent(path.resolve("content"));
const { delivery } = content.form;
const held = content.form.held;
const WEBHOOK_SECRET = "whsec-test-0123456789";

/**
 * The test's day, the sample inquiry's: a winter day, when the digest's hour, 7 in New York (UTC-5), is 12:00
 * UTC on it.
 */
const DAY = sampleRecord("CRS-0000-0000").receivedAt.slice(0, 10);
/** The day `days` after DAY, as a digest is named (YYYY-MM-DD). */
const day = (days = 0) => new Date(Date.parse(DAY) + days * 86_400_000).toISOString().slice(0, 10);
/** The instant at `time` (UTC, HH:MM or HH:MM:SS) on the day `days` after DAY, as the outbox writes one. */
const at = (time: string, days = 0) => new Date(`${day(days)}T${time}Z`).toISOString();

type Receiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
/** The digest events a receiver was sent, in order. */
const digestsTo = (hook: Receiver) =>
  hook.received.filter((request) => request.headers["x-inquiry-event"] === "held-digest");

interface DigestEvent {
  event: string;
  digest: string;
  inquiries: {
    reference: string;
    replyTo: string;
    held: { label: string; reason: string; text: string };
    fields: { value: string }[];
    release: { url: string; expiresAt: string } | null;
  }[];
}
const eventOf = (request: { body: string }) => JSON.parse(request.body) as DigestEvent;

let dir: string;
let logs: string[];
let receiver: Receiver | null;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "held-digest-"));
  logs = [];
  receiver = null;
});
afterEach(async () => {
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Each store the server can be configured with, with the environment that names it. */
const configuredStores: [string, () => NodeJS.ProcessEnv][] = [[SQL_SQLITE, () => ({ INQUIRY_DATA_DIR: dir })]];
/** And the SQL store on Postgres, a database per test, which the suites open themselves. */
const stores: [string, () => NodeJS.ProcessEnv][] = [
  ...configuredStores,
  [SQL_POSTGRES, () => ({ INQUIRY_DATA_DIR: dir })],
];
const sqlStores = useSqlStores();
/** The SQL store's engine the running suite is on, which the configuration does not name yet; null for the others. */
let sqlKind: string | null = null;
const onStore = (kind: string) => {
  sqlStores.databasePerTest(kind);
  beforeEach(() => {
    sqlKind = kind === SQL_SQLITE || kind === SQL_POSTGRES ? kind : null;
  });
  afterEach(() => {
    sqlKind = null;
  });
};

const opened = (config: InquiryConfig): InquiryOutbox =>
  sqlKind === null ? openOutbox(config) : sqlStores.outbox(sqlKind, dir);

/**
 * One delivery pass at `when`, as the server's worker and the scheduled function run it, in a process of its own,
 * with the site's content (`passContent`, when an editor changed it).
 */
const passAt = (config: InquiryConfig, when: string, passContent: InquiryContent = content) => {
  forgetProcessState();
  return deliveryPass(
    opened(config),
    config,
    lineLog((line) => logs.push(line)),
    () => new Date(when),
    () => false,
    passContent,
  );
};

describe("when the digest is due", () => {
  it("is due once a day, from its hour in the company's time zone", () => {
    const zone = content.company.hours.timeZone;
    expect(zone).toBe("America/New_York");
    // 11:59 UTC is 6:59 in New York in November; 12:00 is 7:00.
    expect(localDayAndHour(new Date(at("11:59")), zone)).toEqual({ day: day(), hour: 6 });
    expect(digestDayDue(new Date(at("11:59")), 7, zone, null)).toBeNull();
    expect(digestDayDue(new Date(at("12:00")), 7, zone, null)).toBe(day());
    expect(digestDayDue(new Date(at("12:00")), 7, zone, day())).toBeNull();
    // 02:00 UTC on the 23rd is still the 22nd in New York: that day's, if it was not decided.
    expect(digestDayDue(new Date(at("02:00", 1)), 7, zone, day(-1))).toBe(day());
    expect(digestDayDue(new Date(at("02:00", 1)), 7, zone, day())).toBeNull();
    // In summer New York is UTC-4: 7:00 is 11:00 UTC (on July 1st).
    const july = -144;
    expect(digestDayDue(new Date(at("11:00", july)), 7, zone, day(july - 1))).toBe(day(july));
  });
});

describe.each(stores)("the digest of held inquiries on the %s store", (kind, storeEnv) => {
  onStore(kind);
  const configWith = (env: NodeJS.ProcessEnv = {}): InquiryConfig =>
    readInquiryConfig(delivery, {
      ...storeEnv(),
      ...RELEASE_LINKS_ENV,
      INQUIRY_DIGEST_HOUR: "7",
      ...env,
    });

  it("sends one digest a day from its hour, by email and webhook, listing each held inquiry in full, marked, with a release link", async () => {
    const mail = await startMailServer();
    receiver = await startWebhookReceiver();
    try {
      const config = configWith({
        SMTP_URL: mail.url,
        SMTP_ALLOW_PLAIN: "1",
        INQUIRY_TO: "sales@cardinal.example",
        INQUIRY_FROM: "Website <website@cardinal.example>",
        INQUIRY_WEBHOOK_URL: receiver.url,
        INQUIRY_WEBHOOK_SECRET: WEBHOOK_SECRET,
      });
      const outbox = opened(config);
      await outbox.add(heldRecord("CRS-7K4M-2Q9D", at("23:00", -1), "honeypot filled"));
      await outbox.add(heldRecord("CRS-8P3R-5T6V", at("03:00"), "sent too fast"));
      await outbox.add({ ...sampleRecord("CRS-1A2B-3C4D"), receivedAt: at("04:00") });
      await outbox.recordAttempt({ reference: "CRS-1A2B-3C4D", transport: "webhook", ok: true, at: "t1" });

      // 6:59 in New York: not yet.
      expect((await passAt(config, at("11:59"))).digests?.made).toBeNull();
      expect([mail.received.length, receiver.received.length]).toEqual([0, 0]);

      const due = await passAt(config, at("12:00"));
      expect(due.digests).toMatchObject({
        made: { id: day(), references: ["CRS-7K4M-2Q9D", "CRS-8P3R-5T6V"] },
        delivered: 1,
        pending: 0,
      });
      expect([mail.received.length, receiver.received.length]).toEqual([1, 1]);

      // The email, as the SMTP stand-in received it.
      const [message] = mail.received;
      expect(message?.to).toEqual(["sales@cardinal.example"]);
      const raw = message?.raw ?? "";
      expect(raw).toMatch(new RegExp(`^Subject: Held as suspected spam: 2 to look at \\(${day()}\\)\\r?$`, "m"));
      expect(raw).toMatch(/^X-Inquiry-Event: held-digest\r?$/m);
      expect(raw).toMatch(new RegExp(`^X-Inquiry-Digest: ${day()}\\r?$`, "m"));
      // Many senders in one digest: no Reply-To; each inquiry has its own reply link.
      expect(raw).not.toMatch(/^Reply-To:/m);
      const { text, html } = mailParts(message?.source ?? "");
      for (const expected of [
        `CRS-7K4M-2Q9D: ${held.label}: ${held.reasons.honeypot}`,
        `CRS-8P3R-5T6V: ${held.label}: ${held.reasons.tooFast}`,
        `${held.digest.replyLabel}: ${visitor.address}`,
        `Full name: ${visitor.name}`,
        `Message:\n${visitor.message}`,
        "Received November 21, 2026 at 6:00 PM",
      ]) {
        expect(text).toContain(expected);
      }
      expect(text).not.toContain("CRS-1A2B-3C4D");
      const links = [...text.matchAll(new RegExp(`${held.digest.releaseLabel}: (\\S+)`, "g"))].map((match) => match[1]);
      expect(links).toHaveLength(2);
      const checked = links.map((link) =>
        checkReleaseLink(RELEASE_SECRET, new URL(link ?? "").searchParams, new Date(at("12:00"))),
      );
      expect(checked.map((check) => (check.ok ? check.reference : check.why))).toEqual([
        "CRS-7K4M-2Q9D",
        "CRS-8P3R-5T6V",
      ]);
      // The link ends with the quarantine: 30 days after the inquiry arrived.
      expect(checked[0]?.ok && checked[0].expiresAt.toISOString()).toBe(at("23:00", 29));
      expect(links[0]?.startsWith(`${RELEASE_ORIGIN}/api/inquiry-release?`)).toBe(true);
      expect(html).toContain(`href="mailto:${visitor.address}?subject=Re%3A%20Website%20inquiry%20CRS-7K4M-2Q9D`);
      expect(html).toContain(held.label);

      // The webhook event, signed as every delivery is.
      const [request] = receiver.received;
      expect(request?.headers["x-inquiry-event"]).toBe("held-digest");
      expect(request?.headers["x-inquiry-digest"]).toBe(day());
      const timestamp = Number(request?.headers["x-inquiry-timestamp"]);
      expect(request?.headers["x-inquiry-signature"]).toBe(
        webhookSignature(WEBHOOK_SECRET, timestamp, request?.body ?? ""),
      );
      const event = eventOf(request ?? { body: "{}" });
      expect(event.event).toBe("held-digest");
      expect(event.digest).toBe(day());
      expect(event.inquiries.map((inquiry) => [inquiry.reference, inquiry.held, inquiry.replyTo])).toEqual([
        [
          "CRS-7K4M-2Q9D",
          { label: held.label, reason: "honeypot filled", text: held.reasons.honeypot },
          visitor.address,
        ],
        ["CRS-8P3R-5T6V", { label: held.label, reason: "sent too fast", text: held.reasons.tooFast }, visitor.address],
      ]);
      expect(event.inquiries[0]?.fields.map((field) => field.value)).toEqual([visitor.name, visitor.message]);
      expect(event.inquiries.map((inquiry) => inquiry.release?.url)).toEqual(links);

      // Once a day: not again the same day, nor the next while nothing new is held.
      await passAt(config, at("22:00"));
      await passAt(config, at("12:30", 1));
      expect([mail.received.length, receiver.received.length]).toEqual([1, 1]);
      // One held after the day's digest goes in the next day's, alone.
      await outbox.add(heldRecord("CRS-9W2X-4Y7Z", at("13:00", 1), "honeypot filled"));
      await passAt(config, at("20:00", 1));
      expect(receiver.received).toHaveLength(1);
      await passAt(config, at("12:05", 2));
      expect(digestsTo(receiver).map((digest) => [eventOf(digest).digest, eventOf(digest).inquiries.length])).toEqual([
        [day(), 2],
        [day(2), 1],
      ]);
      expect(eventOf(receiver.received[1] ?? { body: "{}" }).inquiries[0]?.reference).toBe("CRS-9W2X-4Y7Z");
      expect(mailParts(mail.received[1]?.source ?? "").text).not.toContain("CRS-7K4M-2Q9D");

      // The log names the digests and references, never what a sender wrote.
      expect(logs).toEqual(
        expect.arrayContaining([
          `digest ${day()} made: 2 held inquiries (CRS-7K4M-2Q9D, CRS-8P3R-5T6V)`,
          expect.stringMatching(
            new RegExp(`^digest ${day()} of 2 held inquiries (email: sent; webhook: sent|webhook: sent; email: sent)$`),
          ),
        ]),
      );
      for (const secret of Object.values(visitor)) expect(logs.join("\n")).not.toContain(secret);
    } finally {
      await mail.close();
    }
  });

  it("after a restart neither repeats a digest nor skips one, and retries a failed one like any delivery, once", async () => {
    receiver = await startWebhookReceiver();
    const config = configWith({ INQUIRY_WEBHOOK_URL: receiver.url });
    await opened(config).add(heldRecord("CRS-7K4M-2Q9D", at("03:00"), "honeypot filled"));

    // The server was stopped over the hour and starts at 20:00 UTC: the day's digest is made then, not skipped.
    receiver.answerWith(500);
    const failed = await passAt(config, at("20:00"));
    expect(failed.digests).toMatchObject({ made: { id: day() }, delivered: 0, failed: 1, pending: 1 });
    expect(digestsTo(receiver)).toHaveLength(1);
    const [open] = await opened(config).openDigests(8);
    expect(open?.deliveries).toEqual({ webhook: "failed" });
    // Due again after the first retry delay, 60 s with jitter: between 30 and 60 s after the failure.
    const dueIn = Date.parse(open?.dueAt ?? "") - Date.parse(at("20:00"));
    expect(dueIn >= 30_000 && dueIn <= 60_000).toBe(true);

    // A restart before it is due: nothing is sent, no second digest is made.
    receiver.answerWith(204);
    expect((await passAt(config, at("20:00:20"))).digests).toMatchObject({ made: null, pending: 1 });
    expect(digestsTo(receiver)).toHaveLength(1);
    // Due: the same digest again, delivered.
    expect((await passAt(config, open?.dueAt ?? "")).digests).toMatchObject({ made: null, delivered: 1, pending: 0 });
    expect(digestsTo(receiver).map((request) => request.headers["x-inquiry-digest"])).toEqual([day(), day()]);
    // And never again, whatever restarts follow.
    await passAt(config, at("23:00"));
    await passAt(config, at("12:00", 1));
    expect(digestsTo(receiver)).toHaveLength(2);
    expect(await opened(config).openDigests(8)).toEqual([]);
    expect(await opened(config).lastDigestDay()).toBe(day(1));
  });

  it("sends no digest when nothing is held, and keeps a later one for the next day", async () => {
    receiver = await startWebhookReceiver();
    const config = configWith({ INQUIRY_WEBHOOK_URL: receiver.url });
    await opened(config).add({ ...sampleRecord("CRS-1A2B-3C4D"), receivedAt: at("04:00") });
    const outcome = await passAt(config, at("12:10"));
    expect(outcome).toMatchObject({ delivered: 1, digests: { made: null, delivered: 0, pending: 0 } });
    expect(receiver.received.map((request) => request.headers["x-inquiry-event"])).toEqual(["inquiry"]);
    expect(await opened(config).lastDigestDay()).toBe(day());
    await opened(config).add(heldRecord("CRS-7K4M-2Q9D", at("14:00"), "sent too fast"));
    await passAt(config, at("23:00"));
    expect(digestsTo(receiver)).toHaveLength(0);
    await passAt(config, at("12:00", 1));
    expect(digestsTo(receiver)).toHaveLength(1);
  });

  it("makes none while the digest is off or no transport is configured, and lists every held one once it can", async () => {
    receiver = await startWebhookReceiver();
    await opened(configWith()).add(heldRecord("CRS-7K4M-2Q9D", at("03:00"), "honeypot filled"));
    // No transport: nothing to send it through, and the day is not taken.
    expect((await passAt(configWith(), at("13:00"))).digests?.made).toBeNull();
    expect(await opened(configWith()).lastDigestDay()).toBeNull();
    const off = configWith({ INQUIRY_WEBHOOK_URL: receiver.url, INQUIRY_DIGEST_HOUR: "off" });
    expect((await passAt(off, at("13:00"))).digests?.made).toBeNull();
    expect(receiver.received).toHaveLength(0);
    const on = configWith({ INQUIRY_WEBHOOK_URL: receiver.url });
    expect((await passAt(on, at("13:00"))).digests?.made?.references).toEqual(["CRS-7K4M-2Q9D"]);
  });

  it("lists no release links where the release secret is not set, and says how to release instead", async () => {
    receiver = await startWebhookReceiver();
    const mail = await startMailServer();
    try {
      const config = configWith({
        INQUIRY_WEBHOOK_URL: receiver.url,
        INQUIRY_RELEASE_SECRET: "",
        SMTP_URL: mail.url,
        SMTP_ALLOW_PLAIN: "1",
        INQUIRY_TO: "sales@cardinal.example",
        INQUIRY_FROM: "website@cardinal.example",
      });
      await opened(config).add(heldRecord("CRS-7K4M-2Q9D", at("03:00"), "honeypot filled"));
      await passAt(config, at("13:00"));
      expect(eventOf(receiver.received[0] ?? { body: "{}" }).inquiries[0]?.release).toBeNull();
      const { text, html } = mailParts(mail.received[0]?.source ?? "");
      const instead = held.digest.noReleaseLink.replace("{reference}", "CRS-7K4M-2Q9D");
      expect(text).toContain(instead);
      expect(text).not.toContain("/api/inquiry-release");
      expect(html).not.toContain("/api/inquiry-release");
    } finally {
      await mail.close();
    }
  });
});

describe.each(stores)("a held inquiry on the %s store, whatever is configured", (kind, storeEnv) => {
  onStore(kind);
  const configWith = (env: NodeJS.ProcessEnv = {}): InquiryConfig =>
    readInquiryConfig(delivery, { ...storeEnv(), INQUIRY_DIGEST_HOUR: "off", ...env });

  /** Held as the handler stores it while no transport is configured: no transports, judged automated. */
  const heldWhileNoTransport = (reference: string, reason: string) =>
    opened(configWith()).add({ ...heldRecord(reference, at("10:00"), reason), transports: [] });

  it("is held and counted as held when no transport was configured, never delivered when one is, and expires with the quarantine", async () => {
    receiver = await startWebhookReceiver();
    const none = configWith();
    await heldWhileNoTransport("CRS-7K4M-2Q9D", "honeypot filled");
    const entry = await opened(none).entry("CRS-7K4M-2Q9D", 8);
    expect(entry?.state).toBe("quarantined");
    expect(await opened(none).heldSummary()).toEqual({ count: 1, oldestReceivedAt: at("10:00") });
    expect((await passAt(none, at("10:01"))).quarantined).toBe(1);

    // The moment a transport is first configured: the held one stays held, and nothing is delivered.
    const configured = configWith({ INQUIRY_WEBHOOK_URL: receiver.url });
    const first = await passAt(configured, at("10:02"));
    expect(first).toMatchObject({ due: 0, delivered: 0, quarantined: 1 });
    expect(receiver.received).toEqual([]);
    expect((await opened(configured).entry("CRS-7K4M-2Q9D", 8))?.state).toBe("quarantined");
    const listed = await opened(configured).page({ after: null, limit: 10, maxAttempts: 8, state: "quarantined" });
    expect(listed.entries.map((found) => found.record.reference)).toEqual(["CRS-7K4M-2Q9D"]);

    // Suspected spam's 30 days, not the 24 months of a real lead.
    const removed = await removeExpired(opened(configured), new Date(at("10:00", 31)), configured.retention);
    expect(removed).toMatchObject({ inquiries: 0, quarantined: 1 });
    expect(await opened(configured).entry("CRS-7K4M-2Q9D", 8)).toBeNull();
    expect(await opened(configured).heldSummary()).toEqual({ count: 0, oldestReceivedAt: null });
  });

  it("is delivered once after a release, through the transport configured since", async () => {
    receiver = await startWebhookReceiver();
    const none = configWith();
    await heldWhileNoTransport("CRS-8P3R-5T6V", "sent too fast");
    expect(await opened(none).release("CRS-8P3R-5T6V")).toBe(true);
    // Released twice: the second changes nothing.
    expect(await opened(none).release("CRS-8P3R-5T6V")).toBe(false);
    expect((await opened(none).entry("CRS-8P3R-5T6V", 8))?.state).toBe("stored");
    const configured = configWith({ INQUIRY_WEBHOOK_URL: receiver.url });
    expect(await passAt(configured, at("10:05"))).toMatchObject({ due: 1, delivered: 1 });
    await passAt(configured, at("11:05"));
    expect(receiver.received.map((request) => request.headers["x-inquiry-reference"])).toEqual(["CRS-8P3R-5T6V"]);
    expect(await opened(configured).heldSummary()).toEqual({ count: 0, oldestReceivedAt: null });
  });
});

describe("the release links' origin", () => {
  it("is INQUIRY_RELEASE_ORIGIN's, whatever an editor makes content/company.json's siteUrl", async () => {
    receiver = await startWebhookReceiver();
    const hook = receiver;
    const editedDir = editedContentCopy([
      { file: "company.json", path: ["siteUrl"], value: "https://editor-chosen.example" },
    ]);
    try {
      const edited = readInquiryContent(editedDir);
      // The same held inquiry in a store of its own for each content, so each makes the day's digest.
      for (const [index, digestContent] of [content, edited].entries()) {
        const config = readInquiryConfig(delivery, {
          INQUIRY_DATA_DIR: path.join(dir, String(index)),
          INQUIRY_WEBHOOK_URL: hook.url,
          INQUIRY_DIGEST_HOUR: "7",
          ...RELEASE_LINKS_ENV,
        });
        await opened(config).add(heldRecord("CRS-7K4M-2Q9D", at("03:00"), "honeypot filled"));
        await passAt(config, at("12:00"), digestContent);
      }
      const links = digestsTo(hook).map((request) => eventOf(request).inquiries[0]?.release?.url);
      expect(links).toHaveLength(2);
      expect(links[0]?.startsWith(`${RELEASE_ORIGIN}/api/inquiry-release?`)).toBe(true);
      expect(links[1]).toBe(links[0]);
      expect(hook.received.map((request) => request.body).join("\n")).not.toContain("editor-chosen.example");
    } finally {
      rmSync(editedDir, { recursive: true, force: true });
    }
  });
});

describe("the digest on each deploy", () => {
  const webhookEnv = (url: string): NodeJS.ProcessEnv => ({
    INQUIRY_WEBHOOK_URL: url,
    ...RELEASE_LINKS_ENV,
    INQUIRY_DIGEST_HOUR: "7",
  });

  it("is made by the single server's worker as it starts, and not again by the next start the same day", async () => {
    receiver = await startWebhookReceiver();
    const hook = receiver;
    const config = readInquiryConfig(delivery, { INQUIRY_DATA_DIR: dir, ...webhookEnv(hook.url) });
    await opened(config).add(heldRecord("CRS-7K4M-2Q9D", at("03:00"), "honeypot filled"));
    const start = async (when: string) => {
      forgetProcessState();
      const worker = new DeliveryWorker({
        outbox: openOutbox(config),
        config: () => config,
        log: lineLog((line) => logs.push(line)),
        now: () => new Date(when),
        content,
      });
      worker.start();
      await worker.idle();
      const status = worker.status();
      await worker.stop();
      return status;
    };
    expect((await start(at("12:30"))).digests).toEqual({ pending: 0, dead: 0 });
    expect(digestsTo(hook)).toHaveLength(1);
    await start(at("16:00"));
    expect(digestsTo(hook)).toHaveLength(1);
  });

  describe("on Netlify, whose store is Postgres", () => {
    sqlStores.databasePerTest(SQL_POSTGRES);

    it("is made by the scheduled function, once", async () => {
      receiver = await startWebhookReceiver();
      const hook = receiver;
      const config = readInquiryConfig(delivery, {
        INQUIRY_DATABASE_URL: sqlStores.postgresUrl,
        ...webhookEnv(hook.url),
      });
      try {
        await openOutbox(config).add(heldRecord("CRS-7K4M-2Q9D", at("03:00"), "honeypot filled"));
        const run = (when: string) =>
          runScheduledDelivery({
            config: () => config,
            content,
            log: lineLog((line) => logs.push(line)),
            now: () => new Date(when),
          });
        expect(await run(at("12:03"))).toMatchObject({
          ran: true,
          digests: { made: { id: day() }, delivered: 1 },
        });
        expect(await run(at("12:08"))).toMatchObject({ ran: true, digests: { made: null } });
        expect(digestsTo(hook)).toHaveLength(1);
      } finally {
        await openOutbox(config).close();
      }
    });
  });
});

describe("/healthz", () => {
  it.each(configuredStores)(
    "says how many inquiries are held on the %s store and how long the oldest has waited",
    async (_kind, storeEnv) => {
      const config = readInquiryConfig(delivery, { ...storeEnv(), INQUIRY_DIGEST_HOUR: "off" });
      const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString();
      const outbox = opened(config);
      await outbox.add(heldRecord("CRS-7K4M-2Q9D", twoDaysAgo, "honeypot filled"));
      await outbox.add(heldRecord("CRS-8P3R-5T6V", new Date().toISOString(), "sent too fast"));
      const app = await startInquiryApp({ content, config: () => config, log: () => undefined, listen: false });
      try {
        const answer = (await (await app.fetch(`${app.origin}/healthz`, { headers: healthDetailsHeaders })).json()) as {
          held: { count: number; oldestReceivedAt: string; oldestAgeSeconds: number };
        };
        expect(answer.held).toMatchObject({ count: 2, oldestReceivedAt: twoDaysAgo });
        expect(Math.abs(answer.held.oldestAgeSeconds - 2 * 86_400)).toBeLessThan(60);
      } finally {
        await app.close();
      }
    },
  );
});
