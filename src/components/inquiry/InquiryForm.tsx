import { useEffect, useRef, useState, type FormEvent } from "react";
import { css } from "@emotion/react";
import { colors, fontSizes, mq, radii, space } from "../../styles/theme";
import { buttonStyles } from "../ui/button-styles";
import { FormField } from "./FormField";
import {
  inquiryFieldNames,
  validateInquiry,
  type InquiryErrors,
  type InquiryFieldName,
  type InquiryRules,
  type InquiryValues,
} from "../../inquiry/validation";

interface FieldContent {
  readonly label: string;
  readonly hint?: string | null;
  readonly placeholder?: string | null;
  readonly autocomplete?: string | null;
}

export interface InquiryFormContent extends InquiryRules {
  readonly heading: string;
  readonly requiredNote: string;
  readonly requiredMarker: string;
  readonly formFields: Readonly<Record<InquiryFieldName, InquiryRules["formFields"][InquiryFieldName] & FieldContent>>;
  readonly inquiryTypes: readonly { readonly value: string; readonly label: string }[];
  readonly defaultType: string;
  readonly quoteType: string;
  readonly submitLabel: string;
  readonly errorSummary: string;
  readonly notSent: {
    readonly title: string;
    readonly text: string;
    readonly emailActionLabel: string;
    readonly emailSubject: string;
  };
}

export interface CategoryOption {
  readonly value: string;
  readonly label: string;
}

interface InquiryFormProps {
  content: InquiryFormContent;
  /** The product categories a quote can be for. */
  categories: readonly CategoryOption[];
  /** Where the visitor's email app should address the inquiry. */
  email: string;
  /** What the link that brought the visitor here asked for (?type=quote&category=tactical). */
  requested?: { readonly type?: string | null; readonly category?: string | null };
  headingLevel: 2 | 3;
}

const controlKinds: Record<InquiryFieldName, "text" | "email" | "tel" | "select" | "textarea"> = {
  fullName: "text",
  organization: "text",
  email: "email",
  phone: "tel",
  inquiryType: "select",
  productCategory: "select",
  message: "textarea",
};

const formStyles = css`
  display: grid;
  gap: ${space.lg};
  ${mq.md} {
    grid-template-columns: repeat(2, minmax(0, 1fr));
  }
`;

const wide = css`
  ${mq.md} {
    grid-column: 1 / -1;
  }
`;

const noteStyles = css`
  margin: 0;
  color: ${colors.muted};
  font-size: ${fontSizes.sm};
`;

const alertStyles = (tone: "error" | "info") => css`
  padding: ${space.md} ${space.lg};
  border-left: 6px solid ${tone === "error" ? colors.error : colors.info};
  background: ${tone === "error" ? colors.errorSurface : colors.infoSurface};
  border-radius: ${radii.sm};
  h3 {
    margin-bottom: ${space.sm};
  }
  p {
    margin-bottom: ${space.md};
  }
  p:last-child {
    margin-bottom: 0;
  }
`;

const emptyValues = (inquiryType: string, productCategory: string): InquiryValues => ({
  fullName: "",
  organization: "",
  email: "",
  phone: "",
  inquiryType,
  productCategory,
  message: "",
});

const labelOf = (options: readonly CategoryOption[], value: string) =>
  options.find((option) => option.value === value)?.label ?? value;

const mailtoHref = (
  email: string,
  subject: string,
  content: InquiryFormContent,
  categories: readonly CategoryOption[],
  values: InquiryValues,
) => {
  const typeLabel = labelOf(content.inquiryTypes, values.inquiryType);
  const shown = (name: InquiryFieldName) => {
    if (name === "inquiryType") return typeLabel;
    if (name === "productCategory") return labelOf(categories, values.productCategory);
    return values[name].trim();
  };
  const lines = inquiryFieldNames
    .filter((name) => name !== "message" && values[name].trim() !== "")
    .filter((name) => name !== "productCategory" || values.inquiryType === content.quoteType)
    .map((name) => `${content.formFields[name].label}: ${shown(name)}`);
  const body = `${lines.join("\n")}\n\n${values.message.trim()}`;
  return `mailto:${email}?subject=${encodeURIComponent(`${subject}: ${typeLabel}`)}&body=${encodeURIComponent(body)}`;
};

const known = (options: readonly { readonly value: string }[], value: string | null | undefined): string | null =>
  options.find((option) => option.value === value)?.value ?? null;

export const InquiryForm = ({ content, categories, email, requested, headingLevel }: InquiryFormProps) => {
  const Heading = `h${headingLevel}` as const;
  const requestedType = known(content.inquiryTypes, requested?.type);
  const requestedCategory = known(categories, requested?.category);
  // The server renders the form without a query string; what the address asks for is applied after
  // hydration so the first client render matches the server's HTML.
  const [values, setValues] = useState<InquiryValues>(() => emptyValues(content.defaultType, ""));
  const [errors, setErrors] = useState<InquiryErrors>({});
  const [attempted, setAttempted] = useState(false);
  const [ready, setReady] = useState(false);
  const controls = useRef<
    Partial<Record<InquiryFieldName, HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement | null>>
  >({});
  const statusRef = useRef<HTMLDivElement>(null);
  const focusTarget = useRef<InquiryFieldName | "status" | null>(null);

  // A visitor can start typing before the page's script has taken over the form; keep what they typed.
  useEffect(() => {
    const typed = inquiryFieldNames.flatMap((name) => {
      const value = controls.current[name]?.value;
      return value ? [[name, value] as const] : [];
    });
    if (typed.length > 0) setValues((current) => ({ ...current, ...Object.fromEntries(typed) }));
  }, []);

  useEffect(() => {
    if (requestedType) setValues((current) => ({ ...current, inquiryType: requestedType }));
  }, [requestedType]);
  useEffect(() => {
    if (requestedCategory) setValues((current) => ({ ...current, productCategory: requestedCategory }));
  }, [requestedCategory]);

  const choices = { productCategories: categories };
  const isQuote = values.inquiryType === content.quoteType;

  useEffect(() => {
    const target = focusTarget.current;
    focusTarget.current = null;
    if (target === "status") statusRef.current?.focus();
    else if (target) controls.current[target]?.focus();
  });

  const onChange = (name: string, value: string) => {
    const next = { ...values, [name]: value } as InquiryValues;
    setValues(next);
    setReady(false);
    // Once the visitor has tried to submit, messages follow their corrections as they type.
    if (attempted) setErrors(validateInquiry(content, choices, next));
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const found = validateInquiry(content, choices, values);
    setErrors(found);
    setAttempted(true);
    const firstInvalid = inquiryFieldNames.find((name) => found[name]);
    if (firstInvalid) {
      setReady(false);
      focusTarget.current = firstInvalid;
      return;
    }
    setReady(true);
    focusTarget.current = "status";
  };

  const errorCount = Object.keys(errors).length;

  const field = (name: InquiryFieldName, layout?: typeof wide) => {
    const rules = content.formFields[name];
    return (
      <div css={layout}>
        <FormField
          name={name}
          kind={controlKinds[name]}
          label={rules.label}
          hint={rules.hint}
          placeholder={rules.placeholder}
          autoComplete={rules.autocomplete}
          required={rules.required}
          requiredMarker={content.requiredMarker}
          error={errors[name]}
          value={values[name]}
          onChange={onChange}
          controlRef={(element) => {
            controls.current[name] = element;
          }}
          options={
            name === "inquiryType"
              ? content.inquiryTypes
              : name === "productCategory"
                ? [{ value: "", label: rules.placeholder ?? "" }, ...categories]
                : undefined
          }
        />
      </div>
    );
  };

  return (
    <form noValidate onSubmit={onSubmit} aria-labelledby="inquiry-heading">
      <Heading
        id="inquiry-heading"
        css={css`
          font-size: 1.25rem;
        `}
      >
        {content.heading}
      </Heading>
      <div css={formStyles}>
        <p css={[noteStyles, wide]}>{content.requiredNote}</p>
        {attempted && errorCount > 0 ? (
          <p css={[alertStyles("error"), wide]} role="alert">
            {content.errorSummary}
          </p>
        ) : null}
        {field("fullName")}
        {field("organization")}
        {field("email")}
        {field("phone")}
        {field("inquiryType", isQuote ? undefined : wide)}
        {isQuote ? field("productCategory") : null}
        {field("message", wide)}
        <div css={wide}>
          <button type="submit" css={buttonStyles("secondary")}>
            {content.submitLabel}
          </button>
        </div>
        {ready ? (
          <div css={[alertStyles("info"), wide]} role="status" tabIndex={-1} ref={statusRef}>
            <Heading
              css={css`
                font-size: 1.125rem;
              `}
            >
              {content.notSent.title}
            </Heading>
            <p>{content.notSent.text}</p>
            <p>
              <a
                href={mailtoHref(email, content.notSent.emailSubject, content, categories, values)}
                css={buttonStyles("secondary")}
              >
                {content.notSent.emailActionLabel}
              </a>
            </p>
          </div>
        ) : null}
      </div>
    </form>
  );
};
