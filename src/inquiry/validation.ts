// zod/mini: the same library as the content contract, at a fraction of the
// bytes, since this module ships to every visitor with the form.
import * as z from "zod/mini";

/**
 * One definition of what makes an inquiry acceptable, built from the form's
 * content (labels, limits and messages live in content/inquiry.json), so the
 * browser and any server that receives the form apply the same rules.
 */

export const inquiryFieldNames = [
  "fullName",
  "organization",
  "email",
  "phone",
  "inquiryType",
  "productCategory",
  "message",
] as const;
export type InquiryFieldName = (typeof inquiryFieldNames)[number];
export type InquiryValues = Record<InquiryFieldName, string>;
export type InquiryErrors = Partial<Record<InquiryFieldName, string>>;

export interface InquiryFieldRules {
  readonly required: boolean;
  readonly minLength?: number | null;
  readonly maxLength: number;
  readonly errors: {
    readonly required?: string | null;
    readonly invalid?: string | null;
    readonly tooShort?: string | null;
    readonly tooLong: string;
  };
}

export interface InquiryRules {
  readonly formFields: Readonly<Record<InquiryFieldName, InquiryFieldRules>>;
  readonly inquiryTypes: readonly { readonly value: string }[];
}

/** The choices that come from other content (product categories), not from the form's own file. */
export interface InquiryChoices {
  readonly productCategories: readonly { readonly value: string }[];
}

const PHONE_CHARACTERS = /^[+()\d\s.-]+$/;
const MIN_PHONE_DIGITS = 7;

const fieldSchema = (rules: InquiryFieldRules, extra?: (value: string) => boolean) => {
  const { errors } = rules;
  return z.string().check(
    z.trim(),
    z.superRefine((value: string, ctx) => {
      const fail = (message: string | null | undefined) =>
        ctx.addIssue({ code: "custom", message: message ?? errors.tooLong });
      if (value === "") {
        if (rules.required) fail(errors.required);
        return;
      }
      if (value.length > rules.maxLength) return fail(errors.tooLong);
      if (rules.minLength && value.length < rules.minLength) return fail(errors.tooShort);
      if (extra && !extra(value)) return fail(errors.invalid);
    }),
  );
};

const emailSchema = z.email();
const isEmail = (value: string) => emailSchema.safeParse(value).success;
const isPhone = (value: string) => PHONE_CHARACTERS.test(value) && value.replace(/\D/g, "").length >= MIN_PHONE_DIGITS;

export const buildInquirySchema = (rules: InquiryRules, choices: InquiryChoices) => {
  const types = rules.inquiryTypes.map((option) => option.value);
  const categories = choices.productCategories.map((option) => option.value);
  const { formFields: fields } = rules;
  return z.object({
    fullName: fieldSchema(fields.fullName),
    organization: fieldSchema(fields.organization),
    email: fieldSchema(fields.email, isEmail),
    phone: fieldSchema(fields.phone, isPhone),
    inquiryType: fieldSchema(fields.inquiryType, (value) => types.includes(value)),
    productCategory: fieldSchema(fields.productCategory, (value) => categories.includes(value)),
    message: fieldSchema(fields.message),
  });
};

/** Checks every field and returns one message per field at fault; empty when the inquiry is acceptable. */
export const validateInquiry = (rules: InquiryRules, choices: InquiryChoices, values: InquiryValues): InquiryErrors => {
  const result = buildInquirySchema(rules, choices).safeParse(values);
  if (result.success) return {};
  const errors: InquiryErrors = {};
  for (const issue of result.error.issues) {
    const field = issue.path[0] as InquiryFieldName;
    errors[field] ??= issue.message;
  }
  return errors;
};
