// zod/mini: the same library as the content contract, at a fraction of the
// bytes. The browser loads this module only once the visitor is about to use
// the form (src/hooks/use-inquiry-form.ts), not with the page.
import * as z from "zod/mini";
import { normalizeInquiry, type InquiryErrors, type InquiryFieldName, type InquiryValues } from "./values";

/**
 * One definition of what makes an inquiry acceptable, built from the form's
 * content (labels, limits and messages live in content/inquiry.json). The
 * browser form and the /api/inquiry function both call `checkInquiry`, so a
 * rule changed in content changes on both sides at once.
 */

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
      if (value.length > maxLength) fail(errors.tooLong);
      else if (rules.minLength && value.length < rules.minLength) fail(errors.tooShort);
      else if (extra && !extra(value)) fail(errors.invalid);
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

const buildInquirySchema = (rules: InquiryRules, choices: InquiryChoices, now: Date) => {
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

type InquirySchema = ReturnType<typeof buildInquirySchema>;

let lastBuilt: { rules: InquiryRules; choices: InquiryChoices; day: number; schema: InquirySchema } | null = null;

/**
 * The schema for these rules on the UTC day of `now`, the only part of `now` it depends on. Building
 * one costs more than checking an inquiry with it, and the rules and choices are the same objects for
 * every inquiry a server or a form checks, so the last one built serves until they or the day change.
 */
const inquirySchema = (rules: InquiryRules, choices: InquiryChoices, now: Date): InquirySchema => {
  const day = Math.floor(now.getTime() / DAY_MS);
  if (lastBuilt?.rules !== rules || lastBuilt.choices !== choices || lastBuilt.day !== day)
    lastBuilt = { rules, choices, day, schema: buildInquirySchema(rules, choices, now) };
  return lastBuilt.schema;
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
  const result = inquirySchema(rules, choices, now).safeParse(normalizeInquiry(rules, raw));
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
