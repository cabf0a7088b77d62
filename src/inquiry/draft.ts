import { normalizeInquiry, type InquiryRules, type InquiryValues } from "./validation";

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

export const saveDraft = (values: InquiryValues): void => {
  try {
    storage()?.setItem(draftKey, JSON.stringify(values));
  } catch {
    // Quota exceeded or storage disabled: the draft is a convenience, not a requirement.
  }
};

/** The saved draft, normalized so that whatever is stored cannot break the form; null when there is none. */
export const loadDraft = (rules: Pick<InquiryRules, "quoteType">): InquiryValues | null => {
  try {
    const saved = storage()?.getItem(draftKey);
    if (!saved) return null;
    const parsed: unknown = JSON.parse(saved);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
    return normalizeInquiry(rules, parsed);
  } catch {
    return null;
  }
};

export const clearDraft = (): void => {
  try {
    storage()?.removeItem(draftKey);
  } catch {
    // Nothing to do: without storage there is no draft either.
  }
};
