import { createHmac } from "node:crypto";
import type { DeliveryPolicy, InquiryConfig, TransportName } from "../config";
import { emailBody, webhookPayload } from "./message";
import type { OperationalLog } from "../operational-log";
import type { OutboxRecord } from "../store/outbox";
import type { InquiryOutbox } from "../store/sql-outbox";

export interface DeliveryResult {
  readonly transport: TransportName;
  readonly ok: boolean;
  readonly detail?: string;
}

/** Each transport's outcome as a log line names it: `email: sent; webhook: failed (HTTP 500)`. */
const resultsText = (results: readonly DeliveryResult[]): string =>
  results
    .map((result) => `${result.transport}: ${result.ok ? "sent" : `failed (${result.detail ?? "unknown"})`}`)
    .join("; ");

/**
 * Logs one message's attempts, `subject` first: at info when every transport took it, else at warn (a
 * transport that failed is tried again after its backoff, or after its last attempt left as a dead letter,
 * which the pass counts and /healthz reports). Whether every transport took it.
 */
export const logResults = (
  log: OperationalLog,
  fields: Readonly<Record<string, unknown>>,
  subject: string,
  results: readonly DeliveryResult[],
): boolean => {
  const sent = results.every((result) => result.ok);
  const line = `${subject} ${resultsText(results)}`;
  if (sent) log.info(fields, line);
  else log.warn(fields, line);
  return sent;
};

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

/** Settles with `work`, or fails once `ms` have passed; `onTimeout` ends whatever `work` still holds open. */
const withDeadline = async <T>(work: Promise<T>, ms: number, onTimeout: () => void): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new DeliveryError(`no answer within ${Math.round(ms / 1000)} s`));
    }, ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
};

let emailTransport: Promise<typeof import("nodemailer")> | null = null;

/** nodemailer, loaded on first use (most processes that load this module never send an email), once. */
const loadEmailTransport = () =>
  (emailTransport ??= import("nodemailer").catch((error: unknown) => {
    emailTransport = null;
    throw error;
  }));

/**
 * Loads the email transport before the first delivery needs it, for a process that will deliver: the
 * server loads it as it starts instead of in the middle of the first inquiries it receives, where a
 * profile of a burst of 200 showed module loading on the event loop. A load that fails is tried again,
 * and reported, by the first delivery.
 */
export const preloadEmailTransport = (): void => {
  loadEmailTransport().catch(() => undefined);
};

/**
 * What the transports send, made once and the same on every attempt: an email and a webhook body, and the
 * headers that name it (an inquiry's reference, a digest's day) and say what it is, in both.
 */
export interface OutgoingMessage {
  readonly headers: Readonly<Record<string, string>>;
  readonly email: { readonly subject: string; readonly text: string; readonly html: string; readonly replyTo?: string };
  readonly webhookBody: string;
}

/** An inquiry as its transports send it: `X-Inquiry-Event: inquiry`, its reference, the visitor's address to reply to. */
const inquiryMessage = (record: OutboxRecord): OutgoingMessage => ({
  // The same on every attempt, so a receiver can tell a delivery it already has (a retry, or a run that
  // stalled between sending and recording) from a new inquiry.
  headers: { "X-Inquiry-Event": "inquiry", "X-Inquiry-Reference": record.reference },
  // The address alone: a display name would be text the visitor chose, in a header.
  email: { subject: record.subject, ...emailBody(record), replyTo: record.replyTo.address },
  webhookBody: JSON.stringify(webhookPayload(record)),
});

const sendEmail = async (
  message: OutgoingMessage,
  settings: NonNullable<InquiryConfig["email"]>,
  timeoutMs: number,
): Promise<void> => {
  const { createTransport } = await loadEmailTransport();
  const transport = createTransport({
    url: settings.smtpUrl,
    // smtps:// is TLS from the start; smtp:// must upgrade with STARTTLS unless plain SMTP is allowed.
    requireTLS: !settings.allowPlain,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  try {
    const { subject, text, html, replyTo } = message.email;
    const sending = transport.sendMail({
      from: settings.from,
      to: settings.to,
      ...(replyTo === undefined ? {} : { replyTo }),
      subject,
      text,
      html,
      headers: { ...message.headers },
    });
    await withDeadline(sending, timeoutMs, () => transport.close());
  } finally {
    transport.close();
  }
};

/**
 * The webhook's signature, Stripe's scheme (its `v1` signature): an HMAC-SHA256, in hex, with the secret
 * as key, of the Unix time of the delivery in seconds, a dot, and the body as sent. The time goes in
 * `X-Inquiry-Timestamp`, as Slack sends its own, so a receiver can refuse a delivery older than a few
 * minutes: a captured delivery then cannot be replayed later, and the time cannot be changed without
 * breaking the signature. Each attempt is signed at its own time.
 */
export const webhookSignature = (secret: string, timestamp: number, body: string): string =>
  `v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;

const callWebhook = async (
  message: OutgoingMessage,
  settings: NonNullable<InquiryConfig["webhook"]>,
  timeoutMs: number,
  now: () => Date,
): Promise<void> => {
  const body = message.webhookBody;
  const headers: Record<string, string> = { "Content-Type": "application/json", ...message.headers };
  if (settings.secret) {
    const timestamp = Math.floor(now().getTime() / 1000);
    headers["X-Inquiry-Timestamp"] = String(timestamp);
    headers["X-Inquiry-Signature"] = webhookSignature(settings.secret, timestamp, body);
  }
  const response = await fetch(settings.url, {
    method: "POST",
    headers,
    body,
    signal: AbortSignal.timeout(timeoutMs),
  });
  // The answer's body is not needed; reading it frees the connection.
  await response.arrayBuffer().catch(() => undefined);
  if (!response.ok) throw new DeliveryError(`HTTP ${response.status}`);
};

type Sender = (message: OutgoingMessage, config: InquiryConfig, timeoutMs: number, now: () => Date) => Promise<void>;

/** How each transport sends: a record, so that a new transport cannot be added without its sender. */
const SENDERS: Readonly<Record<TransportName, Sender>> = {
  email: (message, config, timeoutMs) => {
    if (!config.email) throw new DeliveryError("SMTP_URL is not set");
    return sendEmail(message, config.email, timeoutMs);
  },
  webhook: (message, config, timeoutMs, now) => {
    if (!config.webhook) throw new DeliveryError("INQUIRY_WEBHOOK_URL is not set");
    return callWebhook(message, config.webhook, timeoutMs, now);
  },
};

const deliverOne = async (
  message: OutgoingMessage,
  transport: TransportName,
  config: InquiryConfig,
  now: () => Date,
): Promise<void> => {
  // A transport's wrong setting fails its own deliveries only, which stay pending until it is mended.
  const problems = config.problems[transport];
  if (problems.length > 0) throw new DeliveryError(`settings: ${problems.join("; ")}`);
  return SENDERS[transport](message, config, config.delivery.attemptTimeoutMs, now);
};

/**
 * How long to wait after the given number of failed attempts: doubling from the first delay up to the
 * longest, then a random part of it ("full jitter" above half), so that inquiries that failed together
 * do not all come back at the same moment.
 */
export const backoffMs = (failedAttempts: number, policy: DeliveryPolicy, random: () => number = Math.random) => {
  const ceiling = Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** Math.max(0, failedAttempts - 1));
  return Math.round(ceiling * (0.5 + random() / 2));
};

/** One attempt's outcome as it is recorded: when, and after a failure, when the next attempt is due. */
export type AttemptOutcome = DeliveryResult & { readonly at: string; readonly retryAt?: string };

/**
 * Tries each of the given transports once with `message`, and has `record` write the outcome of each, with
 * the time of the next attempt after a failure. A failure is recorded, not thrown. `attemptsSoFar` says how
 * often each transport was tried before, which the backoff grows with.
 */
export const sendThrough = async (
  message: OutgoingMessage,
  transports: readonly TransportName[],
  config: InquiryConfig,
  record: (outcome: AttemptOutcome) => Promise<void>,
  attemptsSoFar: Readonly<Partial<Record<TransportName, number>>> = {},
  now: () => Date = () => new Date(),
): Promise<DeliveryResult[]> =>
  Promise.all(
    transports.map(async (transport): Promise<DeliveryResult> => {
      let result: DeliveryResult;
      try {
        await deliverOne(message, transport, config, now);
        result = { transport, ok: true };
      } catch (error) {
        result = {
          transport,
          ok: false,
          detail: error instanceof DeliveryError ? error.message : failureDetail(error),
        };
      }
      const at = now();
      const failed = (attemptsSoFar[transport] ?? 0) + 1;
      await record({
        at: at.toISOString(),
        ...result,
        ...(result.ok ? {} : { retryAt: new Date(at.getTime() + backoffMs(failed, config.delivery)).toISOString() }),
      });
      return result;
    }),
  );

/** Tries each of the given transports once with the inquiry, and appends the outcome of each to the outbox. */
export const deliver = async (
  record: OutboxRecord,
  transports: readonly TransportName[],
  config: InquiryConfig,
  outbox: Pick<InquiryOutbox, "recordAttempt">,
  attemptsSoFar: Readonly<Partial<Record<TransportName, number>>> = {},
  now: () => Date = () => new Date(),
): Promise<DeliveryResult[]> =>
  sendThrough(
    inquiryMessage(record),
    transports,
    config,
    (outcome) => outbox.recordAttempt({ reference: record.reference, ...outcome }),
    attemptsSoFar,
    now,
  );
