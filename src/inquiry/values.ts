/**
 * What an inquiry consists of: its fields, its values, and how whatever arrived becomes those values.
 * No zod here: the form needs this much as soon as the page runs (to restore a draft), while the
 * checks in validation.ts load only once the visitor uses the form.
 */

import { inquiryFieldNames, type InquiryFieldName } from "../content-contract/inquiry-fields";

export { inquiryFieldNames, type InquiryFieldName };

/** Fields that only a quote request asks for; any other inquiry type sends them empty. */
const quoteFieldNames = [
  "productCategory",
  "quantities",
  "needBy",
  "shipToState",
  "buyingMethod",
  "compliance",
] as const satisfies readonly InquiryFieldName[];

export const isQuoteField = (name: InquiryFieldName): boolean =>
  (quoteFieldNames as readonly InquiryFieldName[]).includes(name);

/** Fields whose text keeps its line breaks. */
const multilineFields: readonly InquiryFieldName[] = ["quantities", "message"];

export type TextFieldName = Exclude<InquiryFieldName, "compliance">;
export type InquiryValues = Record<TextFieldName, string> & { readonly compliance: readonly string[] };
export type InquiryErrors = Partial<Record<InquiryFieldName, string>>;

// C0/C1 controls (Unicode's Cc category) and the bidirectional overrides that can disguise text in an email client.
const CONTROL_CHARACTERS = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu;
const CONTROL_EXCEPT_NEWLINE = /(?!\n)[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu;
// Line and paragraph separators, which some mail clients and terminals break lines at.
const UNICODE_LINE_BREAKS = /[\u2028\u2029\u0085]/g;
// Characters that show nothing: zero-width spaces and joiners, word joiners, bidi marks, the BOM.
// In a name or an address they only serve to make two different values look the same.
const INVISIBLE_CHARACTERS = /[\u00ad\u061c\u180e\u200b-\u200f\u2060-\u2064\ufeff]/g;

/**
 * Removes control characters; single-line fields lose line breaks (of every kind) and invisible
 * characters too, so nothing can start a new mail header or pass for another value.
 */
const stripControlCharacters = (value: string, multiline: boolean): string =>
  multiline
    ? value.replace(/\r\n?/g, "\n").replace(UNICODE_LINE_BREAKS, "\n").replace(CONTROL_EXCEPT_NEWLINE, "")
    : value
        .replace(/[\r\n\t\u2028\u2029\u0085]+/g, " ")
        .replace(CONTROL_CHARACTERS, "")
        .replace(INVISIBLE_CHARACTERS, "");

const asText = (raw: unknown): string =>
  typeof raw === "string" ? raw : typeof raw === "number" && Number.isFinite(raw) ? String(raw) : "";

const asList = (raw: unknown): string[] => {
  const items = Array.isArray(raw) ? raw : raw === undefined || raw === null || raw === "" ? [] : [raw];
  return items.map(asText).filter((item) => item !== "");
};

/** Every field empty, from the one list of fields, but for the inquiry type the form starts with. */
export const emptyInquiry = (inquiryType: string): InquiryValues => ({
  ...(Object.fromEntries(inquiryFieldNames.map((name) => [name, ""])) as Record<TextFieldName, string>),
  inquiryType,
  compliance: [],
});

/** Whether these values ask for a quote: the quote fields count only then. */
export const isQuote = (rules: { readonly quoteType: string }, values: Pick<InquiryValues, "inquiryType">): boolean =>
  values.inquiryType.trim() === rules.quoteType;

/**
 * Turns whatever arrived (a JSON body, a posted form, the form's own state) into inquiry values:
 * unknown keys dropped, non-text turned into empty text, control characters stripped, and the quote
 * fields emptied unless the inquiry is a quote request.
 */
export const normalizeInquiry = (rules: { readonly quoteType: string }, raw: unknown): InquiryValues => {
  const source = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
  const values = emptyInquiry("");
  const text = values as Record<TextFieldName, string>;
  for (const name of inquiryFieldNames) {
    if (name === "compliance") continue;
    text[name] = stripControlCharacters(asText(source[name]), multilineFields.includes(name));
  }
  const compliance = asList(source.compliance).map((item) => stripControlCharacters(item, false));
  const normalized: InquiryValues = { ...values, compliance: [...new Set(compliance)] };
  if (isQuote(rules, normalized)) return normalized;
  return { ...normalized, ...Object.fromEntries(quoteFieldNames.map((name) => [name, ""])), compliance: [] };
};
