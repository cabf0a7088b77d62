import { fillTimeField, honeypotField, idempotencyKeyField, inquiryEndpoint } from "./protocol";
import {
  inquiryFieldNames,
  isQuoteField,
  type InquiryErrors,
  type InquiryFieldName,
  type InquiryValues,
} from "./values";

/** What the form posts as JSON: the inquiry's values (quote fields only for a quote), the two spam signals and its key. */
export type InquiryRequestBody = Partial<InquiryValues> & {
  readonly [honeypotField]: string;
  readonly [fillTimeField]: number;
  readonly [idempotencyKeyField]: string;
};

/**
 * The body of one attempt to send: the answers (the quote fields only with a quote request), what
 * software may have put in the honeypot, the milliseconds since the inquiry was begun, and its key.
 */
export const requestBody = (
  values: InquiryValues,
  {
    quote,
    honeypot,
    fillMs,
    idempotencyKey,
  }: { quote: boolean; honeypot: string; fillMs: number; idempotencyKey: string },
): InquiryRequestBody => {
  const answers = Object.fromEntries(
    Object.entries(values).filter(([name]) => quote || !isQuoteField(name as InquiryFieldName)),
  ) as Partial<InquiryValues>;
  return {
    ...answers,
    [honeypotField]: honeypot,
    [fillTimeField]: Math.max(0, fillMs),
    [idempotencyKeyField]: idempotencyKey,
  };
};

/** What became of one attempt to send, in the terms the form shows to the visitor. */
export type SendOutcome =
  | { readonly kind: "sent"; readonly reference: string }
  | { readonly kind: "invalid"; readonly errors: InquiryErrors }
  | { readonly kind: "tooMany"; readonly minutes: number }
  | { readonly kind: "failed" };

/** A request that has not been answered by then has failed as far as the visitor is concerned. */
const TIMEOUT_MS = 30_000;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const readJson = async (response: Response): Promise<Record<string, unknown> | null> => {
  try {
    const body: unknown = await response.json();
    return isRecord(body) ? body : null;
  } catch {
    return null;
  }
};

/** The server's messages for the fields the form has; anything else in the answer is ignored. */
const fieldErrors = (raw: unknown): InquiryErrors => {
  const errors: InquiryErrors = {};
  if (!isRecord(raw)) return errors;
  for (const name of inquiryFieldNames) {
    const message = raw[name];
    if (typeof message === "string" && message.trim() !== "") errors[name] = message;
  }
  return errors;
};

/** Seconds from a Retry-After header: either a number of seconds or an HTTP date. */
const retryAfterHeaderSeconds = (value: string | null, now: number): number | null => {
  if (value === null || value.trim() === "") return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : (date - now) / 1000;
};

/** Whole minutes to wait, at least one: from the body, else the Retry-After header, else one. */
export const waitMinutes = (bodySeconds: unknown, header: string | null, now: number = Date.now()): number => {
  const fromBody = typeof bodySeconds === "number" && Number.isFinite(bodySeconds) ? bodySeconds : null;
  const seconds = fromBody ?? retryAfterHeaderSeconds(header, now) ?? 60;
  return Math.max(1, Math.ceil(seconds / 60));
};

/** Reads an answer of /api/inquiry (see protocol.ts) as an outcome. */
export const outcomeOf = async (response: Response): Promise<SendOutcome> => {
  const body = await readJson(response);
  switch (response.status) {
    case 201: {
      const reference = body?.reference;
      return typeof reference === "string" && reference.trim() !== ""
        ? { kind: "sent", reference: reference.trim() }
        : { kind: "failed" };
    }
    case 422: {
      const errors = fieldErrors(body?.errors);
      // Without a message the visitor could act on, the inquiry simply was not sent.
      return Object.keys(errors).length > 0 ? { kind: "invalid", errors } : { kind: "failed" };
    }
    case 429:
      return { kind: "tooMany", minutes: waitMinutes(body?.retryAfterSeconds, response.headers.get("Retry-After")) };
    default:
      return { kind: "failed" };
  }
};

/**
 * Posts the inquiry as JSON to /api/inquiry. Never throws: a network failure, a timeout or an
 * answer the form cannot read are all "failed", which tells the visitor nothing was sent.
 */
export const sendInquiry = async (body: InquiryRequestBody): Promise<SendOutcome> => {
  const controller = typeof AbortController === "undefined" ? null : new AbortController();
  const timer = controller ? setTimeout(() => controller.abort(), TIMEOUT_MS) : null;
  try {
    const response = await fetch(inquiryEndpoint, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
      credentials: "same-origin",
      signal: controller?.signal,
    });
    return await outcomeOf(response);
  } catch {
    return { kind: "failed" };
  } finally {
    if (timer !== null) clearTimeout(timer);
  }
};
