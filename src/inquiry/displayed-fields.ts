import { inquiryFieldNames, normalizeInquiry, type InquiryFieldName, type InquiryValues } from "./values";

export interface LabelledOption {
  readonly value: string;
  readonly label: string;
}

/** What it takes to show an inquiry's answers as the visitor saw them: field labels and option labels. */
export interface InquiryLabels {
  readonly formFields: Readonly<
    Record<InquiryFieldName, { readonly label: string; readonly options?: readonly LabelledOption[] | null }>
  >;
  readonly inquiryTypes: readonly LabelledOption[];
}

/** The form's choices that come from other content, for the page (from GraphQL) and the server (from the JSON files) alike. */
export interface LabelledChoices {
  readonly productCategories: readonly LabelledOption[];
  readonly complianceOptions: readonly LabelledOption[];
}

/** The product categories (content/products/) as options of the category select. */
export const categoryOptions = (
  nodes: readonly { readonly slug: string; readonly shortTitle: string }[],
): LabelledOption[] => nodes.map((node) => ({ value: node.slug, label: node.shortTitle }));

/** The compliance marks (content/certifications.json) as the compliance checkboxes. */
export const complianceOptions = (items: readonly { readonly id: string; readonly name: string }[]): LabelledOption[] =>
  items.map((item) => ({ value: item.id, label: item.name }));

export interface DisplayedField {
  readonly name: InquiryFieldName;
  readonly label: string;
  readonly value: string;
}

export const labelOf = (options: readonly LabelledOption[] | null | undefined, value: string) =>
  options?.find((option) => option.value === value)?.label ?? value;

const displayedValue = (
  labels: InquiryLabels,
  choices: LabelledChoices,
  values: InquiryValues,
  name: InquiryFieldName,
) => {
  switch (name) {
    case "inquiryType":
      return labelOf(labels.inquiryTypes, values.inquiryType);
    case "productCategory":
      return labelOf(choices.productCategories, values.productCategory);
    case "shipToState":
    case "buyingMethod":
      return labelOf(labels.formFields[name].options, values[name]);
    case "compliance":
      return values.compliance.map((value) => labelOf(choices.complianceOptions, value)).join(", ");
    default:
      return values[name].trim();
  }
};

/**
 * The answers with the labels the visitor saw, in form order, empty ones left out: for the sales desk's
 * email and webhook, and for the email the visitor can send themselves when the site could not.
 */
export const displayedFields = (
  labels: InquiryLabels,
  choices: LabelledChoices,
  values: InquiryValues,
): DisplayedField[] =>
  inquiryFieldNames
    .filter((name) => name === "compliance" || values[name].trim() !== "")
    .map((name) => ({
      name,
      label: labels.formFields[name].label,
      value: displayedValue(labels, choices, values, name),
    }))
    .filter((field) => field.value !== "");

/** What the email a visitor can send themselves takes from the form's content besides the labels. */
export interface MailDraftContent extends InquiryLabels {
  readonly quoteType: string;
  readonly failed: { readonly emailSubject: string };
}

/**
 * The visitor's inquiry as a message for their own email app, for when the website could not send it:
 * a subject naming the inquiry type, one line per answer, then the message.
 */
export const mailtoHref = (
  email: string,
  content: MailDraftContent,
  choices: LabelledChoices,
  values: InquiryValues,
): string => {
  // Normalized as the server would, so a quote field left over from switching type is not included.
  const shown = normalizeInquiry(content, values);
  const lines = displayedFields(content, choices, shown)
    .filter((field) => field.name !== "message")
    .map((field) => `${field.label}: ${field.value}`);
  const body = `${lines.join("\n")}\n\n${shown.message.trim()}`;
  const subject = `${content.failed.emailSubject}: ${labelOf(content.inquiryTypes, shown.inquiryType)}`;
  return `mailto:${email}?subject=${encodeURIComponent(subject)}&body=${encodeURIComponent(body)}`;
};
