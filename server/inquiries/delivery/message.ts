import escapeHtml from "escape-html";
import type { InquiryContent } from "../content";
import type { TransportName } from "../config";
import type { OutboxRecord } from "../store/outbox";
import { displayedFields, labelOf } from "../../../src/inquiry/displayed-fields";
import type { InquiryValues } from "../../../src/inquiry/values";

const MULTILINE = new Set(["quantities", "message"]);

/** The record the outbox stores and every transport sends, built once when the inquiry is accepted. */
export const outboxRecord = (
  content: InquiryContent,
  values: InquiryValues,
  reference: string,
  receivedAt: Date,
  transports: readonly TransportName[],
): OutboxRecord => ({
  reference,
  receivedAt: receivedAt.toISOString(),
  transports,
  subject: content.form.delivery.emailSubject
    .replace("{reference}", reference)
    .replace("{type}", labelOf(content.form.inquiryTypes, values.inquiryType)),
  replyTo: { address: values.email },
  fields: displayedFields(content.form, content.choices, values),
  values,
});

export interface EmailBody {
  readonly text: string;
  readonly html: string;
}

/** The answers as lines of plain text, a long answer on lines of its own. */
export const fieldsText = (fields: OutboxRecord["fields"]): string[] =>
  fields.map((field) =>
    MULTILINE.has(field.name) ? `${field.label}:\n${field.value}\n` : `${field.label}: ${field.value}`,
  );

/** The answers as an HTML table, every label and answer escaped. */
export const fieldsHtml = (fields: OutboxRecord["fields"]): string =>
  `<table style="border-collapse:collapse">${fields
    .map(
      (field) =>
        `<tr><th align="left" valign="top" style="padding:6px 12px 6px 0;white-space:nowrap">${escapeHtml(field.label)}</th>` +
        `<td style="padding:6px 0;${MULTILINE.has(field.name) ? "white-space:pre-wrap" : ""}">${escapeHtml(field.value)}</td></tr>`,
    )
    .join("")}</table>`;

/** Plain text for every mail client and HTML in which every answer is escaped. */
export const emailBody = (record: OutboxRecord): EmailBody => {
  const text = [record.subject, `Received ${record.receivedAt}`, "", ...fieldsText(record.fields)].join("\n");
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(record.subject)}</title></head>` +
    `<body style="font-family:Arial,Helvetica,sans-serif;color:#1b2430;line-height:1.5">` +
    `<h1 style="font-size:18px">${escapeHtml(record.subject)}</h1>` +
    `<p>Received ${escapeHtml(record.receivedAt)}</p>` +
    `${fieldsHtml(record.fields)}</body></html>`;
  return { text, html };
};

/** What the webhook receives: the same record, as JSON. */
export const webhookPayload = (record: OutboxRecord) => ({
  reference: record.reference,
  receivedAt: record.receivedAt,
  subject: record.subject,
  fields: record.fields,
  values: record.values,
});
