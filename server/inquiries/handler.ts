import { configuredTransports, readInquiryConfig, type InquiryConfig } from "./config";
import type { InquiryContent } from "./content";
import { outboxRecord } from "./message";
import { openOutbox } from "./open-outbox";
import { DuplicateReferenceError, type InquiryOutbox } from "./outbox";
import { takeRateLimit } from "./rate-limit";
import { newReference } from "./reference";
import { renderResultPage, resultPagePolicy, type ResultPage } from "./result-page";
import {
  fillTimeField,
  honeypotField,
  idempotencyKeyField,
  idempotencyKeyPattern,
  retiredHoneypotFields,
  type InquiryFailure,
  type InquiryResponseBody,
} from "../../src/inquiry/protocol";
import { checkInquiry } from "../../src/inquiry/validation";

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
export interface StoredInquiry {
  readonly reference: string;
  /** False for a repeat of an inquiry stored before (same idempotency key). */
  readonly created: boolean;
  readonly quarantined: boolean;
}

export interface InquiryHandlerOptions {
  readonly content: InquiryContent;
  /** Read for every request, so a server picks up the environment it runs in. */
  readonly config?: () => InquiryConfig;
  readonly now?: () => Date;
  /** Where operational lines go; they carry references and outcomes, never what a visitor wrote. */
  readonly log?: (line: string) => void;
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

type BodyKind = "json" | "form";

const bodyKind = (contentType: string | undefined): BodyKind | null => {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase();
  if (type === "application/json") return "json";
  if (type === "application/x-www-form-urlencoded") return "form";
  return null;
};

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

const hostOf = (origin: string): string | null => {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return null;
  }
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
  const host = request.host?.trim().toLowerCase();
  return !host || hostOf(origin) !== host;
};

const MAX_REFERENCE_TRIES = 3;

/** The /api/inquiry logic: checks, stores durably, answers in JSON or, for a plain form post, a page. */
export const createInquiryHandler = (options: InquiryHandlerOptions): InquiryHandler => {
  const { content } = options;
  const readConfig = options.config ?? (() => readInquiryConfig(content.form.delivery));
  const now = options.now ?? (() => new Date());
  const log = options.log ?? ((line: string) => console.info(`[inquiry] ${line}`));

  const reply = (
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
  const failure = (request: InquiryRequest, status: number, error: string, headers: Record<string, string> = {}) =>
    reply(request, status, { error } satisfies InquiryFailure, { kind: "failed" }, headers);

  const readConfigOrLog = (): InquiryConfig | null => {
    try {
      return readConfig();
    } catch (error) {
      log(`not accepted: ${(error as Error).message}`);
      return null;
    }
  };

  // Always JSON: a body of an unknown type gets no page of its own.
  const unsupported = (request: InquiryRequest) =>
    failure(
      { ...request, contentType: "application/json" },
      415,
      "Send inquiries as application/json or application/x-www-form-urlencoded.",
    );

  const screen = async (request: InquiryRequest): Promise<InquiryReply | null> => {
    if (request.method !== "POST") {
      // Always JSON: no form is ever sent this way.
      return failure({ ...request, contentType: "application/json" }, 405, "Send inquiries with POST.", {
        Allow: "POST",
      });
    }
    const config = readConfigOrLog();
    if (!config) return failure(request, 503, "Inquiries cannot be accepted right now.");
    const limit = await takeRateLimit(config.rateLimit, request.clientAddress);
    if (!limit.allowed) {
      log(`refused: rate limit (${config.rateLimit.requests} per ${config.rateLimit.windowSeconds} s)`);
      return reply(
        request,
        429,
        { retryAfterSeconds: limit.retryAfterSeconds },
        { kind: "tooMany", ...limit },
        { "Retry-After": String(limit.retryAfterSeconds) },
      );
    }
    if (!bodyKind(request.contentType)) return unsupported(request);
    if (isCrossSite(request, config.allowedOrigins)) {
      log("refused: posted from another site");
      return reply(
        request,
        403,
        { error: "Inquiries are accepted only from this website's own pages." },
        { kind: "crossSite" },
      );
    }
    return null;
  };

  const accept = async (
    request: InquiryRequest,
    raw: unknown,
    openConfiguredOutbox: (config: InquiryConfig) => InquiryOutbox = openOutbox,
  ): Promise<{ reply: InquiryReply; stored: StoredInquiry | null }> => {
    const config = readConfigOrLog();
    if (!config) return { reply: failure(request, 503, "Inquiries cannot be accepted right now."), stored: null };
    const body = (typeof raw === "object" && raw !== null && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>;

    const checked = checkInquiry(content.form, content.choices, body, now());
    if (!checked.ok) {
      return {
        reply: reply(request, 422, { errors: checked.errors }, { kind: "rejected", errors: checked.errors }),
        stored: null,
      };
    }

    // Kept, never dropped: an inquiry that looks automated waits in quarantine for a person to judge it,
    // and its sender gets the same answer as anyone else, so it learns nothing to work around.
    const automated = looksAutomated(body, config.minFillSeconds);
    const idempotencyKey = idempotencyKeyOf(body);
    let record = {
      ...outboxRecord(
        content,
        checked.values,
        newReference(content.form.delivery.referencePrefix),
        now(),
        configuredTransports(config),
      ),
      ...(idempotencyKey ? { idempotencyKey } : {}),
      ...(automated ? { quarantine: { reason: automated } } : {}),
    };
    for (let attempt = 1; ; attempt += 1) {
      try {
        const { reference, created } = await openConfiguredOutbox(config).add(record);
        const stored: StoredInquiry = { reference, created, quarantined: created && Boolean(automated) };
        log(
          created
            ? `${reference} stored (${record.values.inquiryType})${automated ? `; quarantined: ${automated}` : ""}`
            : `${reference} sent again with the same idempotency key; not stored twice`,
        );
        return { reply: reply(request, 201, { reference }, { kind: "received", reference }), stored };
      } catch (error) {
        if (error instanceof DuplicateReferenceError && attempt < MAX_REFERENCE_TRIES) {
          record = { ...record, reference: newReference(content.form.delivery.referencePrefix) };
          continue;
        }
        log(`not stored: ${(error as NodeJS.ErrnoException).code ?? (error as Error).name}`);
        return { reply: failure(request, 503, "The inquiry could not be stored."), stored: null };
      }
    }
  };

  return {
    screen,
    accept,
    tooLarge: (request) => failure(request, 413, "The inquiry is larger than this form can send."),
    malformed: (request) => failure(request, 400, "The inquiry could not be read."),
    unsupported,
    undelivered: (request) => failure(request, 503, "The inquiry could not be delivered."),
    failed: (request) => failure(request, 500, "Something went wrong; the inquiry was not stored."),
    maxBodyBytes: content.form.delivery.maxBodyKilobytes * 1024,
  };
};
