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
  readonly submitLabel: string;
  readonly errorSummary: string;
  readonly notSent: {
    readonly title: string;
    readonly text: string;
    readonly emailActionLabel: string;
    readonly emailSubject: string;
  };
}

interface InquiryFormProps {
  content: InquiryFormContent;
  /** Where the visitor's email app should address the inquiry. */
  email: string;
  /** An inquiry type asked for by the link that brought the visitor here (e.g. ?type=quote). */
  requestedType?: string | null;
}

const controlKinds: Record<InquiryFieldName, "text" | "email" | "tel" | "select" | "textarea"> = {
  fullName: "text",
  organization: "text",
  email: "email",
  phone: "tel",
  inquiryType: "select",
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

const emptyValues = (defaultType: string): InquiryValues => ({
  fullName: "",
  organization: "",
  email: "",
  phone: "",
  inquiryType: defaultType,
  message: "",
});

const mailtoHref = (email: string, subject: string, content: InquiryFormContent, values: InquiryValues) => {
  const typeLabel = content.inquiryTypes.find((option) => option.value === values.inquiryType)?.label ?? values.inquiryType;
  const lines = inquiryFieldNames
    .filter((name) => name !== "message" && values[name].trim() !== "")
    .map((name) => `${content.formFields[name].label}: ${name === "inquiryType" ? typeLabel : values[name].trim()}`);
  const body = `${lines.join("\n")}\n\n${values.message.trim()}`;
  return `mailto:${email}?subject=${encodeURIComponent(`${subject}: ${typeLabel}`)}&body=${encodeURIComponent(body)}`;
};

const knownType = (content: InquiryFormContent, type: string | null | undefined): string | null =>
  content.inquiryTypes.find((option) => option.value === type)?.value ?? null;

export const InquiryForm = ({ content, email, requestedType }: InquiryFormProps) => {
  const [values, setValues] = useState<InquiryValues>(() =>
    emptyValues(knownType(content, requestedType) ?? content.defaultType),
  );
  const [errors, setErrors] = useState<InquiryErrors>({});
  const [attempted, setAttempted] = useState(false);
  const [ready, setReady] = useState(false);
  const controls = useRef<Partial<Record<InquiryFieldName, HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement | null>>>({});
  const statusRef = useRef<HTMLDivElement>(null);
  const focusTarget = useRef<InquiryFieldName | "status" | null>(null);

  useEffect(() => {
    const type = knownType(content, requestedType);
    if (type) setValues((current) => ({ ...current, inquiryType: type }));
  }, [content, requestedType]);

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
    if (attempted) setErrors(validateInquiry(content, next));
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const found = validateInquiry(content, values);
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
          options={name === "inquiryType" ? content.inquiryTypes : undefined}
        />
      </div>
    );
  };

  return (
    <form noValidate onSubmit={onSubmit} aria-labelledby="inquiry-heading">
      <h3 id="inquiry-heading">{content.heading}</h3>
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
        {field("inquiryType", wide)}
        {field("message", wide)}
        <div css={wide}>
          <button type="submit" css={buttonStyles("secondary")}>
            {content.submitLabel}
          </button>
        </div>
        {ready ? (
          <div css={[alertStyles("info"), wide]} role="status" tabIndex={-1} ref={statusRef}>
            <h3>{content.notSent.title}</h3>
            <p>{content.notSent.text}</p>
            <p>
              <a href={mailtoHref(email, content.notSent.emailSubject, content, values)} css={buttonStyles("secondary")}>
                {content.notSent.emailActionLabel}
              </a>
            </p>
          </div>
        ) : null}
      </div>
    </form>
  );
};
