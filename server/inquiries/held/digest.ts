import type { OperationalLog } from "../operational-log";
import escapeHtml from "escape-html";
import { configuredTransports, type InquiryConfig } from "../config";
import type { InquiryContent } from "../content";
import { logResults, sendThrough, type AttemptOutcome, type OutgoingMessage } from "../delivery/deliver";
import { fieldsHtml, fieldsText } from "../delivery/message";
import type { DigestEntry, HeldDigest, OutboxRecord, QueueCounts } from "../store/outbox";
import type { InquiryOutbox } from "../store/sql-outbox";
import { quarantineEndsAt, releaseUrl } from "./release-link";

/**
 * The daily digest of inquiries held as suspected spam, for the sales desk: once a day, from the hour
 * INQUIRY_DIGEST_HOUR in the company's time zone, every inquiry held since the last digest, in full, each
 * marked as held with the reason, and with a link that releases it (release-link.ts). It goes through the
 * transports configured, an email to INQUIRY_TO and a webhook event of its own type, and is made, delivered,
 * retried and recorded in the outbox as an inquiry is, by the same pass (the server's worker, the scheduled
 * function on Netlify): a restart neither repeats it nor skips it. No held inquiry, no digest.
 */

/** What the digest needs of content: its copy, and the company's name, address and time zone. */
export type DigestContent = Pick<InquiryContent, "form" | "company">;

/** The webhook event's type, in `X-Inquiry-Event` and the body's `event`; an inquiry's is `inquiry`. */
const DIGEST_EVENT = "held-digest";

/** The day (YYYY-MM-DD) and the hour (0 to 23) that `at` is in `timeZone`. */
export const localDayAndHour = (at: Date, timeZone: string): { day: string; hour: number } => {
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    hourCycle: "h23",
  }).formatToParts(at);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((found) => found.type === type)?.value ?? "";
  return { day: `${part("year")}-${part("month")}-${part("day")}`, hour: Number(part("hour")) };
};

/**
 * The day whose digest is due at `now`, or null: one a day, from `hour` on. A day passed by while nothing
 * ran (the server stopped over the hour) is made up at the next pass, as that day's, never twice.
 */
export const digestDayDue = (now: Date, hour: number, timeZone: string, lastDay: string | null): string | null => {
  const local = localDayAndHour(now, timeZone);
  if (local.hour < hour) return null;
  return lastDay !== null && lastDay >= local.day ? null : local.day;
};

/** The reason an inquiry was held, in the sales desk's words (intake/handler.ts gives the codes). */
export const heldReasonText = (content: DigestContent, reason: string | undefined): string => {
  const { reasons } = content.form.held;
  if (reason === "honeypot filled") return reasons.honeypot;
  if (reason === "sent too fast") return reasons.tooFast;
  return reason ?? reasons.honeypot;
};

const formatDate = (at: Date, timeZone: string, withTime: boolean) =>
  new Intl.DateTimeFormat("en-US", { dateStyle: "long", ...(withTime ? { timeStyle: "short" } : {}), timeZone }).format(
    at,
  );

/** When an inquiry arrived, as the desk reads it: in the company's time zone. */
export const receivedText = (record: Pick<OutboxRecord, "receivedAt">, content: DigestContent): string =>
  formatDate(new Date(record.receivedAt), content.company.hours.timeZone, true);

/** Plain text: the values, and the company's email, phone and hours, in place of their {placeholders}. */
const filled = (text: string, content: DigestContent, values: Record<string, string>) => {
  const { contact, hours } = content.company;
  const all: Record<string, string> = {
    email: contact.email,
    phone: contact.phone.display,
    hours: hours.display,
    ...values,
  };
  return text.replace(/\{(\w+)\}/g, (whole, token: string) => all[token] ?? whole);
};

interface Listed {
  readonly record: OutboxRecord;
  readonly reason: string;
  /** The release page's address and when it stops working; null where release links are not set up. */
  readonly release: { readonly url: string; readonly expiresAt: Date } | null;
}

const listedOf = (record: OutboxRecord, content: DigestContent, config: InquiryConfig): Listed => {
  const links = config.digest.releaseLinks;
  const expiresAt = quarantineEndsAt(record, config.retention);
  return {
    record,
    reason: heldReasonText(content, record.quarantine?.reason),
    release:
      links === null ? null : { url: releaseUrl(links.origin, links.secret, record.reference, expiresAt), expiresAt },
  };
};

/**
 * The digest as its transports send it. Every answer a visitor typed is escaped in the HTML; the subject
 * and headers carry only the copy, the count, the day and the digest's name.
 */
const digestMessage = (
  digest: HeldDigest,
  records: readonly OutboxRecord[],
  content: DigestContent,
  config: InquiryConfig,
): OutgoingMessage => {
  const copy = content.form.held;
  const { timeZone } = content.company.hours;
  const listed = records.map((record) => listedOf(record, content, config));
  const subject = filled(copy.digest.emailSubject, content, { count: String(listed.length), date: digest.id });
  const intro = filled(copy.digest.intro, content, { days: String(config.retention.quarantinedDays) });
  const mark = (item: Listed) => `${copy.label}: ${item.reason}`;
  const releaseNote = (item: Listed) =>
    item.release === null
      ? filled(copy.digest.noReleaseLink, content, { reference: item.record.reference })
      : filled(copy.digest.releaseNote, content, { date: formatDate(item.release.expiresAt, timeZone, false) });
  const mailto = (record: OutboxRecord) =>
    `mailto:${encodeURIComponent(record.replyTo.address).replace(/%40/g, "@")}?subject=${encodeURIComponent(`Re: ${record.subject}`)}`;

  const text = [
    subject,
    "",
    intro,
    ...listed.flatMap((item, index) => [
      "",
      `--- ${index + 1} of ${listed.length} ---`,
      `${item.record.reference}: ${mark(item)}`,
      `Received ${receivedText(item.record, content)}`,
      `${copy.digest.replyLabel}: ${item.record.replyTo.address}`,
      item.record.subject,
      "",
      ...fieldsText(item.record.fields),
      "",
      ...(item.release ? [`${copy.digest.releaseLabel}: ${item.release.url}`] : []),
      releaseNote(item),
    ]),
  ].join("\n");

  const sections = listed.map(
    (item) =>
      `<section style="border-top:2px solid #b3261e;margin-top:24px;padding-top:12px">` +
      `<h2 style="font-size:16px;margin:0">${escapeHtml(item.record.reference)}: ${escapeHtml(item.record.subject)}</h2>` +
      `<p style="margin:4px 0;color:#b3261e;font-weight:700">${escapeHtml(mark(item))}</p>` +
      `<p style="margin:4px 0">Received ${escapeHtml(receivedText(item.record, content))}</p>` +
      `<p style="margin:4px 0"><a href="${escapeHtml(mailto(item.record))}">${escapeHtml(copy.digest.replyLabel)}</a>: ${escapeHtml(item.record.replyTo.address)}</p>` +
      fieldsHtml(item.record.fields) +
      (item.release
        ? `<p><a href="${escapeHtml(item.release.url)}" style="font-weight:700">${escapeHtml(copy.digest.releaseLabel)}</a></p>`
        : "") +
      `<p style="font-size:13px;color:#555">${escapeHtml(releaseNote(item))}</p></section>`,
  );
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>` +
    `<body style="font-family:Arial,Helvetica,sans-serif;color:#1b2430;line-height:1.5">` +
    `<h1 style="font-size:18px">${escapeHtml(subject)}</h1><p>${escapeHtml(intro)}</p>${sections.join("")}</body></html>`;

  const webhookBody = JSON.stringify({
    event: DIGEST_EVENT,
    digest: digest.id,
    createdAt: digest.createdAt,
    inquiries: listed.map((item) => ({
      reference: item.record.reference,
      receivedAt: item.record.receivedAt,
      subject: item.record.subject,
      replyTo: item.record.replyTo.address,
      held: { label: copy.label, reason: item.record.quarantine?.reason ?? null, text: item.reason },
      fields: item.record.fields,
      values: item.record.values,
      release: item.release ? { url: item.release.url, expiresAt: item.release.expiresAt.toISOString() } : null,
    })),
  });
  return {
    headers: { "X-Inquiry-Event": DIGEST_EVENT, "X-Inquiry-Digest": digest.id },
    email: { subject, text, html },
    webhookBody,
  };
};

/** What a pass did with the digests, and what it left. */
export interface DigestOutcome extends QueueCounts {
  /** The digest this pass made (the day's), or null. */
  readonly made: HeldDigest | null;
  /** Digests every transport now has. */
  readonly delivered: number;
  readonly failed: number;
}

/** Delivers one digest through each transport it still needs, and records each outcome: whether every one has it. */
export const deliverDigest = async (
  entry: DigestEntry,
  outbox: InquiryOutbox,
  config: InquiryConfig,
  content: DigestContent,
  log: OperationalLog,
  now: () => Date,
  retryDead: boolean,
): Promise<boolean> => {
  const { digest } = entry;
  const transports = digest.transports.filter(
    (transport) => entry.deliveries[transport] !== "delivered" && (retryDead || entry.deliveries[transport] !== "dead"),
  );
  if (transports.length === 0) return true;
  // Read when sent, not kept in the digest: an inquiry erased meanwhile is in no copy of it.
  const found = await Promise.all(
    digest.references.map((reference) => outbox.entry(reference, config.delivery.maxAttempts)),
  );
  const records = found.flatMap((item) => (item ? [item.record] : []));
  const record = (outcome: AttemptOutcome) => outbox.recordDigestAttempt({ digest: digest.id, ...outcome });
  if (records.length === 0) {
    const at = now().toISOString();
    await Promise.all(transports.map((transport) => record({ transport, ok: true, at })));
    log.info({ digest: digest.id }, `digest ${digest.id}: every inquiry it listed is gone; nothing sent`);
    return true;
  }
  const message = digestMessage(digest, records, content, config);
  const results = await sendThrough(message, transports, config, record, entry.attemptsByTransport, now);
  return logResults(log, { digest: digest.id }, `digest ${digest.id} of ${records.length} held inquiries`, results);
};

/**
 * Makes the day's digest when it is due: every inquiry held since the last one, for the transports configured now.
 * The store takes each day once, so of two runs at once one makes it. Null when none is made.
 */
export const makeDueDigest = async (
  outbox: InquiryOutbox,
  config: InquiryConfig,
  content: DigestContent,
  log: OperationalLog,
  now: () => Date,
): Promise<HeldDigest | null> => {
  const transports = configuredTransports(config);
  if (config.digest.hour === null || transports.length === 0) return null;
  const day = digestDayDue(now(), config.digest.hour, content.company.hours.timeZone, await outbox.lastDigestDay());
  if (day === null) return null;
  const made = await outbox.takeDigest(day, now(), transports);
  // References only: they name an inquiry, never what its sender wrote.
  if (made)
    log.info(
      { digest: made.id, references: made.references },
      `digest ${made.id} made: ${made.references.length} held inquiries (${made.references.join(", ")})`,
    );
  return made;
};
