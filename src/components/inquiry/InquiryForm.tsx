import { css } from "@emotion/react";
import { colors, fontSizes, mq, radii, space } from "../../styles/theme";
import { buttonStyles } from "../ui/button-styles";
import type { CompanyDetailsForText } from "../ui/RichText";
import { ChoiceGroup } from "./ChoiceGroup";
import { FormField } from "./FormField";
import { Honeypot } from "./Honeypot";
import { panelHeadingStyles } from "./field-styles";
import { SendStatus } from "./SendStatus";
import { useNeedsBrowser } from "../browser/needs-browser";
import { useInquiryForm, type InquiryFormOptions } from "../../hooks/use-inquiry-form";
import { mailtoHref } from "../../inquiry/displayed-fields";
import { controlFor } from "../../inquiry/form-controls";
import { inquiryEndpoint } from "../../inquiry/protocol";
import { isQuote, type TextFieldName } from "../../inquiry/values";

interface InquiryFormProps extends InquiryFormOptions {
  /** Where the visitor can call or write instead, named in the texts as {phone}, {email} and {hours}. */
  company: CompanyDetailsForText;
  headingLevel: 2 | 3;
}

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

const summaryStyles = css`
  padding: ${space.md} ${space.lg};
  border-left: 6px solid ${colors.error};
  background: ${colors.errorSurface};
  border-radius: ${radii.sm};
`;

/**
 * The inquiry form. Without JavaScript it posts to /api/inquiry like any HTML form; with it, it checks
 * the answers in the browser, sends them as JSON, and shows what became of them without leaving the
 * page. Its state and behaviour are useInquiryForm's; this is the markup, the same on the server and
 * in the browser, so nothing moves when the page starts.
 */
export const InquiryForm = ({ company, headingLevel, ...options }: InquiryFormProps) => {
  // Checked, sent and answered in place by script (without it the browser posts it, and the server answers).
  useNeedsBrowser("inquiry form");
  const { content, categories, complianceOptions } = options;
  const { values, phase, errors, today, sendTried, choices, formRef, panelRef, honeypotRef, ...handlers } =
    useInquiryForm(options);
  const { onChange, onSubmit, onRetry, onAgain } = handlers;
  const Heading = `h${headingLevel}` as const;
  const quote = isQuote(content, values);
  const pending = phase.kind === "sending";

  const field = (name: TextFieldName, layout?: typeof wide) => {
    const rules = content.formFields[name];
    const control = controlFor(name, rules, content.inquiryTypes, categories);
    return (
      <div css={layout}>
        <FormField
          name={name}
          kind={control.kind}
          label={rules.label}
          hint={rules.hint}
          placeholder={rules.placeholder}
          autoComplete={rules.autocomplete}
          required={rules.required && !control.alwaysAnswered}
          requiredMarker={content.requiredMarker}
          error={errors[name]}
          value={values[name]}
          onChange={onChange}
          options={control.options}
          rows={control.rows}
          min={name === "needBy" ? (today ?? undefined) : undefined}
        />
      </div>
    );
  };

  const status =
    phase.kind === "sent" || phase.kind === "failed" || phase.kind === "tooMany" ? (
      <SendStatus
        result={phase}
        content={content}
        company={company}
        headingLevel={headingLevel === 2 ? 3 : 4}
        panelRef={panelRef}
        mailto={phase.kind === "failed" ? mailtoHref(company.contact.email, content, choices, values) : undefined}
        onAgain={onAgain}
        onRetry={onRetry}
      />
    ) : null;

  return (
    <form
      ref={formRef}
      action={inquiryEndpoint}
      method="post"
      noValidate
      onSubmit={onSubmit}
      aria-labelledby="inquiry-heading"
      aria-busy={pending ? true : undefined}
    >
      <Heading id="inquiry-heading" css={panelHeadingStyles}>
        {content.heading}
      </Heading>
      {phase.kind === "sent" ? (
        status
      ) : (
        <div css={formStyles}>
          <p css={[noteStyles, wide]}>{content.requiredNote}</p>
          {sendTried && Object.keys(errors).length > 0 ? (
            <p css={[summaryStyles, wide]} role="alert">
              {content.errorSummary}
            </p>
          ) : null}
          {field("fullName")}
          {field("organization")}
          {field("email")}
          {field("phone")}
          {field("inquiryType", quote ? undefined : wide)}
          {quote ? (
            <>
              {field("productCategory")}
              {field("quantities", wide)}
              {field("needBy")}
              {field("shipToState")}
              {field("buyingMethod")}
              <div>
                <ChoiceGroup
                  name="compliance"
                  label={content.formFields.compliance.label}
                  hint={content.formFields.compliance.hint}
                  required={content.formFields.compliance.required}
                  requiredMarker={content.requiredMarker}
                  error={errors.compliance}
                  options={complianceOptions}
                  values={values.compliance}
                  onChange={onChange}
                />
              </div>
            </>
          ) : null}
          {field("message", wide)}
          <Honeypot label={content.honeypotLabel} inputRef={honeypotRef} />
          <div css={wide}>
            <button type="submit" css={buttonStyles("secondary")} disabled={pending}>
              {pending ? content.sendingLabel : content.submitLabel}
            </button>
          </div>
          {status ? <div css={wide}>{status}</div> : null}
        </div>
      )}
    </form>
  );
};
