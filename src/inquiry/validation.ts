// zod/mini: the same library as the content contract, at a fraction of the
// bytes, since this module ships to every visitor with the form.
import * as z from "zod/mini";

/**
 * One definition of what makes an inquiry acceptable, built from the form's
 * content (labels, limits and messages live in content/inquiry.json). The
 * browser form and the /api/inquiry function both call `checkInquiry`, so a
 * rule changed in content changes on both sides at once.
 */

export const inquiryFieldNames = [
  "fullName",
  "organization",
  "email",
  "phone",
  "inquiryType",
  "productCategory",
  "quantities",
  "needBy",
  "shipToState",
  "buyingMethod",
  "compliance",
  "message",
] as const;
export type InquiryFieldName = (typeof inquiryFieldNames)[number];

/** Fields that only a quote request asks for; any other inquiry type sends them empty. */
export const quoteFieldNames = [
  "productCategory",
  "quantities",
  "needBy",
  "shipToState",
  "buyingMethod",
  "compliance",
] as const satisfies readonly InquiryFieldName[];

/** Fields whose text keeps its line breaks. */
const multilineFields: readonly InquiryFieldName[] = ["quantities", "message"];

export type TextFieldName = Exclude<InquiryFieldName, "compliance">;
export type InquiryValues = Record<TextFieldName, string> & { readonly compliance: readonly string[] };
export type InquiryErrors = Partial<Record<InquiryFieldName, string>>;

export interface ChoiceOption {
  readonly value: string;
}

export interface InquiryFieldRules {
  readonly required: boolean;
  readonly minLength?: number | null;
  /** Characters for a text field; compliance, a set of checkboxes, has none. */
  readonly maxLength?: number | null;
  /** The allowed answers of a select whose choices live in the form's own content. */
  readonly options?: readonly ChoiceOption[] | null;
  readonly errors: {
    readonly required?: string | null;
    readonly invalid?: string | null;
    readonly tooShort?: string | null;
    readonly tooLong?: string | null;
  };
}

export interface InquiryRules {
  readonly formFields: Readonly<Record<InquiryFieldName, InquiryFieldRules>>;
  readonly inquiryTypes: readonly ChoiceOption[];
  readonly quoteType: string;
}

/** The choices that come from other content (product categories, compliance marks), not the form's own file. */
export interface InquiryChoices {
  readonly productCategories: readonly ChoiceOption[];
  readonly complianceOptions: readonly ChoiceOption[];
}

const PHONE_CHARACTERS = /^[+()\d\s.-]+$/;
const MIN_PHONE_DIGITS = 7;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;
// C0/C1 controls and the bidirectional overrides that can disguise text in an email client.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const CONTROL_EXCEPT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
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

export const emptyInquiry = (inquiryType: string): InquiryValues => ({
  fullName: "",
  organization: "",
  email: "",
  phone: "",
  inquiryType,
  productCategory: "",
  quantities: "",
  needBy: "",
  shipToState: "",
  buyingMethod: "",
  compliance: [],
  message: "",
});

/**
 * Turns whatever arrived (a JSON body, a posted form, the form's own state) into inquiry values:
 * unknown keys dropped, non-text turned into empty text, control characters stripped, and the quote
 * fields emptied unless the inquiry is a quote request.
 */
export const normalizeInquiry = (rules: Pick<InquiryRules, "quoteType">, raw: unknown): InquiryValues => {
  const source = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
  const values = emptyInquiry("");
  const text = values as Record<TextFieldName, string>;
  for (const name of inquiryFieldNames) {
    if (name === "compliance") continue;
    text[name] = stripControlCharacters(asText(source[name]), multilineFields.includes(name));
  }
  const compliance = asList(source.compliance).map((item) => stripControlCharacters(item, false));
  const normalized: InquiryValues = { ...values, compliance: [...new Set(compliance)] };
  if (normalized.inquiryType.trim() === rules.quoteType) return normalized;
  return { ...normalized, ...Object.fromEntries(quoteFieldNames.map((name) => [name, ""])), compliance: [] };
};

const fieldSchema = (rules: InquiryFieldRules, extra?: (value: string) => boolean) => {
  const { errors } = rules;
  const maxLength = rules.maxLength ?? 0;
  return z.string().check(
    z.trim(),
    z.superRefine((value: string, ctx) => {
      const fail = (message: string | null | undefined) =>
        ctx.addIssue({ code: "custom", message: message ?? errors.invalid ?? errors.tooLong ?? "" });
      if (value === "") {
        if (rules.required) fail(errors.required);
        return;
      }
      if (value.length > maxLength) return fail(errors.tooLong);
      if (rules.minLength && value.length < rules.minLength) return fail(errors.tooShort);
      if (extra && !extra(value)) return fail(errors.invalid);
    }),
  );
};

const emailSchema = z.email();
const isEmail = (value: string) => emailSchema.safeParse(value).success;
const isPhone = (value: string) => PHONE_CHARACTERS.test(value) && value.replace(/\D/g, "").length >= MIN_PHONE_DIGITS;
const oneOf = (options: readonly ChoiceOption[] | null | undefined) => (value: string) =>
  (options ?? []).some((option) => option.value === value);

/** A real calendar date, no earlier than yesterday in UTC (so a visitor west of UTC may still pick their today). */
const isFutureDate = (now: Date) => (value: string) => {
  const match = ISO_DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return false;
  const yesterday = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - DAY_MS;
  return date.getTime() >= yesterday;
};

const buildInquirySchema = (rules: InquiryRules, choices: InquiryChoices, now: Date = new Date()) => {
  const { formFields: fields } = rules;
  const compliance = fields.compliance;
  return z.object({
    fullName: fieldSchema(fields.fullName),
    organization: fieldSchema(fields.organization),
    email: fieldSchema(fields.email, isEmail),
    phone: fieldSchema(fields.phone, isPhone),
    inquiryType: fieldSchema(fields.inquiryType, oneOf(rules.inquiryTypes)),
    productCategory: fieldSchema(fields.productCategory, oneOf(choices.productCategories)),
    quantities: fieldSchema(fields.quantities),
    needBy: fieldSchema(fields.needBy, isFutureDate(now)),
    shipToState: fieldSchema(fields.shipToState, oneOf(fields.shipToState.options)),
    buyingMethod: fieldSchema(fields.buyingMethod, oneOf(fields.buyingMethod.options)),
    compliance: z.array(z.string()).check(
      z.superRefine((values: string[], ctx) => {
        const known = oneOf(choices.complianceOptions);
        if (compliance.required && values.length === 0)
          ctx.addIssue({ code: "custom", message: compliance.errors.required ?? "" });
        else if (!values.every(known)) ctx.addIssue({ code: "custom", message: compliance.errors.invalid ?? "" });
      }),
    ),
    message: fieldSchema(fields.message),
  });
};

export type InquiryCheck =
  { readonly ok: true; readonly values: InquiryValues } | { readonly ok: false; readonly errors: InquiryErrors };

/**
 * Normalizes what arrived and checks every field: either the trimmed values, ready to store and
 * send, or one message per field at fault.
 */
export const checkInquiry = (
  rules: InquiryRules,
  choices: InquiryChoices,
  raw: unknown,
  now: Date = new Date(),
): InquiryCheck => {
  const result = buildInquirySchema(rules, choices, now).safeParse(normalizeInquiry(rules, raw));
  if (result.success) return { ok: true, values: result.data };
  const errors: InquiryErrors = {};
  for (const issue of result.error.issues) {
    const field = issue.path[0] as InquiryFieldName;
    errors[field] ??= issue.message;
  }
  return { ok: false, errors };
};

/** One message per field at fault; empty when the inquiry is acceptable. */
export const validateInquiry = (
  rules: InquiryRules,
  choices: InquiryChoices,
  values: InquiryValues,
  now?: Date,
): InquiryErrors => {
  const result = checkInquiry(rules, choices, values, now);
  return result.ok ? {} : result.errors;
};
