import { failureName, functionLog, type OperationalLog } from "../operational-log";
import { hostOf, requestHost } from "./request-host";
import { configuredTransports, type InquiryConfig } from "../config";
import type { InquiryContent } from "../content";
import { outboxRecord } from "../delivery/message";
import { openOutbox } from "../store/open-outbox";
import { DuplicateReferenceError, type OutboxRecord } from "../store/outbox";
import type { InquiryOutbox } from "../store/sql-outbox";
import { takeRateLimit } from "./rate-limit";
import { newReference } from "./reference";
import { bodyKind } from "./request-body";
import { renderResultPage, resultPagePolicy, type ResultPage } from "./result-page";
import {
  fillTimeField,
  honeypotField,
  idempotencyKeyField,
  idempotencyKeyPattern,
  retiredHoneypotFields,
  type InquiryFailure,
  type InquiryResponseBody,
} from "../../../src/inquiry/protocol";
import { checkInquiry } from "../../../src/inquiry/validation";

/** What the handler needs to know of a request, whichever server or platform received it. */
export interface InquiryRequest {
  readonly method: string;
  readonly contentType: string | undefined;
  /** The visitor's address as the adapter established it (trusted proxies already accounted for). */
  readonly clientAddress: string;
  /** The host the request was addressed to, as the visitor's browser saw it. */
  readonly host: string | undefined;
  readonly origin: string | undefined;
  readonly secFetchSite: string | undefined;
}

/** An answer for the adapter to send as it is. */
export interface InquiryReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** What became of an inquiry that was stored: the adapter starts its delivery. */
interface StoredInquiry {
  readonly reference: string;
  /** False for a repeat of an inquiry stored before (same idempotency key). */
  readonly created: boolean;
  readonly quarantined: boolean;
}

export interface InquiryHandlerOptions {
  readonly content: InquiryContent;
  /** The inquiry settings, asked for every request: the entry point's, read once as it started (tests vary them). */
  readonly config: () => InquiryConfig;
  readonly now?: () => Date;
  /** Where operational lines go; they carry references and outcomes, never what a visitor wrote. */
  readonly log?: OperationalLog;
}

export interface InquiryHandler {
  /**
   * Everything that can be decided before the body is read: the method, the content type, where the
   * post comes from, and the rate limit, which counts every POST. Null: read the body, then `accept`.
   */
  screen(request: InquiryRequest): Promise<InquiryReply | null>;
  /**
   * Checks the parsed body, stores the inquiry durably, and answers. `outbox` is the configured one
   * unless the adapter opens it itself (a function with store credentials of its own invocation).
   */
  accept(
    request: InquiryRequest,
    body: unknown,
    outbox?: (config: InquiryConfig) => InquiryOutbox,
  ): Promise<{ reply: InquiryReply; stored: StoredInquiry | null }>;
  /** The answer for a body over the size limit (the adapter stops reading it). */
  tooLarge(request: InquiryRequest): InquiryReply;
  /** The answer for a body that is not the JSON or form encoding it claims to be. */
  malformed(request: InquiryRequest): InquiryReply;
  /** The answer for a body of a type other than JSON or a urlencoded form. */
  unsupported(request: InquiryRequest): InquiryReply;
  /** The answer where an inquiry that no transport took would be lost (an outbox that does not last). */
  undelivered(request: InquiryRequest): InquiryReply;
  /** The answer when something unexpected failed: nothing was stored. */
  failed(request: InquiryRequest): InquiryReply;
  readonly maxBodyBytes: number;
}

const isFilled = (value: unknown) =>
  typeof value === "string" ? value.trim() !== "" : value !== undefined && value !== null;

/** Software fills in the field nobody sees (under its name or an earlier one), or sends faster than a person can type. */
const looksAutomated = (body: Record<string, unknown>, minFillSeconds: number): string | null => {
  if ([honeypotField, ...retiredHoneypotFields].some((name) => isFilled(body[name]))) return "honeypot filled";
  const fill = body[fillTimeField];
  // A post without JavaScript has no fill time to report; the honeypot is its only check.
  if (fill === undefined || fill === null || fill === "") return null;
  const milliseconds = Number(fill);
  if (!Number.isFinite(milliseconds) || milliseconds < minFillSeconds * 1000) return "sent too fast";
  return null;
};

const idempotencyKeyOf = (body: Record<string, unknown>): string | undefined => {
  const key = body[idempotencyKeyField];
  return typeof key === "string" && idempotencyKeyPattern.test(key) ? key : undefined;
};

/**
 * Whether a browser sent this post from another site: Fetch Metadata where the browser sends it,
 * the Origin header otherwise. A request with neither (a script, a server, an old browser) is not a
 * cross-site form post and goes on to the other checks.
 */
const isCrossSite = (request: InquiryRequest, allowedOrigins: readonly string[]): boolean => {
  const origin = request.origin?.trim();
  if (origin && allowedOrigins.includes(origin.replace(/\/+$/, ""))) return false;
  const site = request.secFetchSite?.trim().toLowerCase();
  if (site) return site !== "same-origin" && site !== "none";
  if (!origin) return false;
  const host = requestHost(request.host);
  return !host || hostOf(origin) !== host;
};

const MAX_REFERENCE_TRIES = 3;
const UNAVAILABLE = "Inquiries cannot be accepted right now.";

/** What the handler's parts work with: its options, defaults filled in. */
interface HandlerContext {
  readonly content: InquiryContent;
  readonly readConfig: () => InquiryConfig;
  readonly now: () => Date;
  readonly log: OperationalLog;
}

interface Accepted {
  readonly reply: InquiryReply;
  readonly stored: StoredInquiry | null;
}

/** An answer in the request's own terms: a result page for a plain form post, JSON otherwise. */
const answer = (
  content: InquiryContent,
  request: InquiryRequest,
  status: number,
  json: InquiryResponseBody,
  page: ResultPage,
  headers: Record<string, string> = {},
): InquiryReply =>
  bodyKind(request.contentType) === "form"
    ? {
        status,
        headers: {
          ...headers,
          "Cache-Control": "no-store",
          "Content-Type": "text/html; charset=utf-8",
          "Content-Security-Policy": resultPagePolicy,
        },
        body: renderResultPage(page, content),
      }
    : {
        status,
        headers: { ...headers, "Cache-Control": "no-store", "Content-Type": "application/json; charset=utf-8" },
        body: JSON.stringify(json),
      };

const failure = (
  content: InquiryContent,
  request: InquiryRequest,
  status: number,
  error: string,
  headers: Record<string, string> = {},
) => answer(content, request, status, { error } satisfies InquiryFailure, { kind: "failed" }, headers);

// Always JSON: a body of an unknown type, or a method no form sends, gets no page of its own.
const asJson = (request: InquiryRequest): InquiryRequest => ({ ...request, contentType: "application/json" });

const unsupported = (content: InquiryContent, request: InquiryRequest) =>
  failure(content, asJson(request), 415, "Send inquiries as application/json or application/x-www-form-urlencoded.");

const readConfigOrLog = ({ readConfig, log }: HandlerContext): InquiryConfig | null => {
  try {
    return readConfig();
  } catch (error) {
    // The settings are the operator's to mend: every inquiry is refused until they are.
    log.error({ err: error }, `not accepted: ${(error as Error).message}`);
    return null;
  }
};

/** InquiryHandler.screen: the method, the settings, the rate limit, the content type, where the post comes from. */
const screen = async (context: HandlerContext, request: InquiryRequest): Promise<InquiryReply | null> => {
  const { content, log } = context;
  if (request.method !== "POST") {
    return failure(content, asJson(request), 405, "Send inquiries with POST.", { Allow: "POST" });
  }
  const config = readConfigOrLog(context);
  if (!config) return failure(content, request, 503, UNAVAILABLE);
  const limit = await takeRateLimit(config.rateLimit, request.clientAddress);
  if (!limit.allowed) {
    log.warn(`refused: rate limit (${config.rateLimit.requests} per ${config.rateLimit.windowSeconds} s)`);
    const retryAfter = { "Retry-After": String(limit.retryAfterSeconds) };
    return answer(
      content,
      request,
      429,
      { retryAfterSeconds: limit.retryAfterSeconds },
      { kind: "tooMany", ...limit },
      retryAfter,
    );
  }
  if (!bodyKind(request.contentType)) return unsupported(content, request);
  if (isCrossSite(request, config.allowedOrigins)) {
    log.warn("refused: posted from another site");
    const error = "Inquiries are accepted only from this website's own pages.";
    return answer(content, request, 403, { error }, { kind: "crossSite" });
  }
  return null;
};

/**
 * Stores the record, under a new reference if its first was already taken, and answers 201; 503 when the
 * outbox cannot be opened or cannot take it. The log line says which reference was stored and why it is
 * held, never what it says.
 */
const store = async (
  { content, log }: HandlerContext,
  request: InquiryRequest,
  openStore: () => InquiryOutbox,
  first: OutboxRecord,
): Promise<Accepted> => {
  const automated = first.quarantine?.reason;
  let record = first;
  for (let attempt = 1; ; attempt += 1) {
    try {
      const { reference, created } = await openStore().add(record);
      log.info(
        { reference, inquiryType: record.values.inquiryType, created, quarantined: automated ?? null },
        created
          ? `${reference} stored (${record.values.inquiryType})${automated ? `; quarantined: ${automated}` : ""}`
          : `${reference} sent again with the same idempotency key; not stored twice`,
      );
      const stored = { reference, created, quarantined: created && automated !== undefined };
      return { reply: answer(content, request, 201, { reference }, { kind: "received", reference }), stored };
    } catch (error) {
      if (error instanceof DuplicateReferenceError && attempt < MAX_REFERENCE_TRIES) {
        record = { ...record, reference: newReference(content.form.delivery.referencePrefix) };
        continue;
      }
      log.error({ err: error }, `not stored: ${failureName(error)}`);
      return { reply: failure(content, request, 503, "The inquiry could not be stored."), stored: null };
    }
  }
};

/** InquiryHandler.accept: the parsed body checked, made a record and stored. */
const accept = async (
  context: HandlerContext,
  request: InquiryRequest,
  raw: unknown,
  openConfiguredOutbox: (config: InquiryConfig) => InquiryOutbox = openOutbox,
): Promise<Accepted> => {
  const { content, now } = context;
  const config = readConfigOrLog(context);
  if (!config) return { reply: failure(content, request, 503, UNAVAILABLE), stored: null };
  const body = (typeof raw === "object" && raw !== null && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>;
  const checked = checkInquiry(content.form, content.choices, body, now());
  if (!checked.ok) {
    const { errors } = checked;
    return { reply: answer(content, request, 422, { errors }, { kind: "rejected", errors }), stored: null };
  }
  // Kept, never dropped: an inquiry that looks automated waits in quarantine for a person to judge it,
  // and its sender gets the same answer as anyone else, so it learns nothing to work around.
  const automated = looksAutomated(body, config.minFillSeconds);
  const idempotencyKey = idempotencyKeyOf(body);
  const reference = newReference(content.form.delivery.referencePrefix);
  const record: OutboxRecord = {
    ...outboxRecord(content, checked.values, reference, now(), configuredTransports(config)),
    ...(idempotencyKey ? { idempotencyKey } : {}),
    ...(automated ? { quarantine: { reason: automated } } : {}),
  };
  return store(context, request, () => openConfiguredOutbox(config), record);
};

/** The /api/inquiry logic: checks, stores durably, answers in JSON or, for a plain form post, a page. */
export const createInquiryHandler = (options: InquiryHandlerOptions): InquiryHandler => {
  const { content } = options;
  const context: HandlerContext = {
    content,
    readConfig: options.config,
    now: options.now ?? (() => new Date()),
    log: options.log ?? functionLog("inquiry"),
  };
  const failing = (status: number, error: string) => (request: InquiryRequest) =>
    failure(content, request, status, error);
  return {
    screen: (request) => screen(context, request),
    accept: (request, body, outbox) => accept(context, request, body, outbox),
    tooLarge: failing(413, "The inquiry is larger than this form can send."),
    malformed: failing(400, "The inquiry could not be read."),
    unsupported: (request) => unsupported(content, request),
    undelivered: failing(503, "The inquiry could not be delivered."),
    failed: failing(500, "Something went wrong; the inquiry was not stored."),
    maxBodyBytes: content.form.delivery.maxBodyKilobytes * 1024,
  };
};
