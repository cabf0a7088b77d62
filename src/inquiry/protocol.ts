import type { InquiryErrors } from "./values";

/**
 * What the inquiry form agrees on with the rest of the site: with the /api/inquiry function, what it
 * posts and what comes back besides the fields themselves (the path follows from the function's file,
 * src/api/inquiry.ts); with the links to it, how an address asks for a type and a category.
 */
export const inquiryEndpoint = "/api/inquiry";

/** What a link asked the inquiry form for, read from the page address (?type=quote&category=tactical). */
export const requestFromSearch = (search: string) => {
  const params = new URLSearchParams(search);
  return { type: params.get("type"), category: params.get("category") };
};

/** The quote request page, optionally with the form opened for one product category. */
export const quoteRequestPath = (category?: string): string =>
  category ? `/contact/quote/?${new URLSearchParams({ category }).toString()}` : "/contact/quote/";

/**
 * A field people never see or reach; software that fills in every field gives itself away. Its name means
 * nothing to a browser's autofill or a password manager: no word their heuristics look for (name, company,
 * organization, website, url, email, phone, address, ...), so a browser never fills it for a person.
 */
export const honeypotField = "hx_trap_q7";

/**
 * The field's earlier name, which autofill matched ("company"): no page sends it any more, so software that
 * kept the old form and fills it still gives itself away.
 */
export const retiredHoneypotFields: readonly string[] = ["company_website"];

/** How long the visitor spent on the form before sending, in milliseconds, measured by the page. */
export const fillTimeField = "fill_ms";

/**
 * A random key the page makes for each inquiry and sends with every attempt to send it: the server
 * answers a repeat with the first attempt's reference instead of storing the inquiry twice.
 */
export const idempotencyKeyField = "idempotency_key";

/** What an idempotency key may look like: the page sends a UUID; anything else is ignored. */
export const idempotencyKeyPattern = /^[A-Za-z0-9_-]{16,64}$/;

/** The JSON bodies /api/inquiry answers with, by status. */
interface InquiryAccepted {
  /** 201 */
  readonly reference: string;
}
interface InquiryRejected {
  /** 422 */
  readonly errors: InquiryErrors;
}
interface InquiryRateLimited {
  /** 429; the same figure is in the Retry-After header. */
  readonly retryAfterSeconds: number;
}
export interface InquiryFailure {
  /** 400, 403, 405, 413, 415, 500, 503 */
  readonly error: string;
}

export type InquiryResponseBody = InquiryAccepted | InquiryRejected | InquiryRateLimited | InquiryFailure;
