import { idempotencyKeyPattern } from "./protocol";
import { normalizeInquiry, type InquiryValues } from "./values";

/**
 * The inquiry a visitor is writing, kept in sessionStorage so a reload, a look at another page or a
 * failed send in this tab does not lose it. It lives as long as the tab and is removed once the
 * inquiry has been sent. Storage that is disabled, full or forbidden is ignored: the form works
 * without it.
 */
export const draftKey = "inquiry-draft";

const storage = (): Storage | null => {
  try {
    return typeof window === "undefined" ? null : window.sessionStorage;
  } catch {
    // Reading sessionStorage itself throws when the browser forbids site storage.
    return null;
  }
};

/**
 * What belongs to one inquiry besides its answers: when the visitor started it (so a draft brought
 * back after a reload is not taken for a form filled in too fast) and the idempotency key every
 * attempt to send it carries (so a repeat is answered with the first attempt's reference).
 */
export interface DraftSession {
  readonly startedAt: number;
  readonly idempotencyKey: string;
}

export interface InquiryDraft {
  readonly values: InquiryValues;
  readonly session: DraftSession | null;
}

export const saveDraft = (values: InquiryValues, session?: DraftSession): void => {
  try {
    storage()?.setItem(draftKey, JSON.stringify({ ...values, ...session }));
  } catch {
    // Quota exceeded or storage disabled: the draft is a convenience, not a requirement.
  }
};

const sessionOf = (saved: Record<string, unknown>): DraftSession | null => {
  const { startedAt, idempotencyKey } = saved;
  return typeof startedAt === "number" &&
    Number.isFinite(startedAt) &&
    typeof idempotencyKey === "string" &&
    idempotencyKeyPattern.test(idempotencyKey)
    ? { startedAt, idempotencyKey }
    : null;
};

/** The saved draft, normalized so that whatever is stored cannot break the form; null when there is none. */
export const loadDraft = (rules: { readonly quoteType: string }): InquiryDraft | null => {
  try {
    const saved = storage()?.getItem(draftKey);
    if (!saved) return null;
    const parsed: unknown = JSON.parse(saved);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
    return { values: normalizeInquiry(rules, parsed), session: sessionOf(parsed as Record<string, unknown>) };
  } catch {
    return null;
  }
};

/** A fresh idempotency key: a random UUID where the browser makes one, 128 random bits in hex otherwise. */
const newIdempotencyKey = (): string => {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, "0")).join("");
};

/** A new inquiry's session: begun at `startedAt` (milliseconds since the epoch), under a key of its own. */
export const newDraftSession = (startedAt: number): DraftSession => ({
  startedAt,
  idempotencyKey: newIdempotencyKey(),
});

export const clearDraft = (): void => {
  try {
    storage()?.removeItem(draftKey);
  } catch {
    // Nothing to do: without storage there is no draft either.
  }
};
