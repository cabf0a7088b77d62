import { createHmac } from "node:crypto";
import type { InquiryConfig, TransportName } from "./config";
import { emailBody, webhookPayload } from "./message";
import type { Outbox, OutboxRecord } from "./outbox";

const TIMEOUT_MS = 10_000;

export interface DeliveryResult {
  readonly transport: TransportName;
  readonly ok: boolean;
  readonly detail?: string;
}

/** A failure described in words of our own, so its message is safe to log. */
class DeliveryError extends Error {}

/** A reason fit for a log: an error code or status, never text that could carry the visitor's answers. */
const failureDetail = (error: unknown): string => {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException & { responseCode?: number }).code;
    const responseCode = (error as { responseCode?: number }).responseCode;
    return [error.name, code, responseCode].filter(Boolean).join(" ");
  }
  return "unknown error";
};

const sendEmail = async (record: OutboxRecord, settings: NonNullable<InquiryConfig["email"]>): Promise<void> => {
  // Loaded on first use: the function module is loaded for every request, most of which send no email here.
  const { createTransport } = await import("nodemailer");
  const transport = createTransport({
    url: settings.smtpUrl,
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
  });
  try {
    const body = emailBody(record);
    await transport.sendMail({
      from: settings.from,
      to: settings.to,
      // An address object, not a string: nodemailer encodes the name, so no answer can add a header.
      replyTo: { name: record.replyTo.name, address: record.replyTo.address },
      subject: record.subject,
      text: body.text,
      html: body.html,
      headers: { "X-Inquiry-Reference": record.reference },
    });
  } finally {
    transport.close();
  }
};

const callWebhook = async (record: OutboxRecord, settings: NonNullable<InquiryConfig["webhook"]>): Promise<void> => {
  const body = JSON.stringify(webhookPayload(record));
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "X-Inquiry-Reference": record.reference,
  };
  if (settings.secret) {
    headers["X-Inquiry-Signature"] = `sha256=${createHmac("sha256", settings.secret).update(body).digest("hex")}`;
  }
  const response = await fetch(settings.url, {
    method: "POST",
    headers,
    body,
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  if (!response.ok) throw new DeliveryError(`HTTP ${response.status}`);
};

const deliverOne = async (record: OutboxRecord, transport: TransportName, config: InquiryConfig): Promise<void> => {
  if (config.problems.length > 0) throw new DeliveryError(`settings: ${config.problems.join("; ")}`);
  if (transport === "email") {
    if (!config.email) throw new DeliveryError("SMTP_URL is not set");
    return sendEmail(record, config.email);
  }
  if (!config.webhook) throw new DeliveryError("INQUIRY_WEBHOOK_URL is not set");
  return callWebhook(record, config.webhook);
};

/**
 * Tries each of the given transports once and appends the outcome of each to the outbox.
 * A failure is recorded, not thrown: the inquiry stays pending for `npm run inquiries -- --retry`.
 */
export const deliver = async (
  record: OutboxRecord,
  transports: readonly TransportName[],
  config: InquiryConfig,
  outbox: Outbox,
  now: () => Date = () => new Date(),
): Promise<DeliveryResult[]> =>
  Promise.all(
    transports.map(async (transport): Promise<DeliveryResult> => {
      let result: DeliveryResult;
      try {
        await deliverOne(record, transport, config);
        result = { transport, ok: true };
      } catch (error) {
        result = {
          transport,
          ok: false,
          detail: error instanceof DeliveryError ? error.message : failureDetail(error),
        };
      }
      await outbox.recordAttempt({ reference: record.reference, at: now().toISOString(), ...result });
      return result;
    }),
  );
