import { useEffect, useRef, useState, type FormEvent } from "react";
import { css } from "@emotion/react";
import { colors, fontSizes, mq, radii, space } from "../../styles/theme";
import { buttonStyles } from "../ui/button-styles";
import type { CompanyDetailsForText } from "../ui/RichText";
import { ChoiceGroup } from "./ChoiceGroup";
import { FormField, type FieldKind } from "./FormField";
import { Honeypot } from "./Honeypot";
import { panelHeadingStyles } from "./field-styles";
import { SendStatus, type SendResult, type SendStatusContent } from "./SendStatus";
import { clearDraft, loadDraft, newIdempotencyKey, saveDraft, type DraftSession } from "../../inquiry/draft";
import { fillTimeField, honeypotField, idempotencyKeyField, inquiryEndpoint } from "../../inquiry/protocol";
import { sendInquiry, type InquiryRequestBody } from "../../inquiry/send-inquiry";
import { displayedFields, labelOf, type LabelledChoices, type LabelledOption } from "../../inquiry/displayed-fields";
import {
  checkInquiry,
  emptyInquiry,
  inquiryFieldNames,
  normalizeInquiry,
  quoteFieldNames,
  validateInquiry,
  type InquiryErrors,
  type InquiryFieldName,
  type InquiryFieldRules,
  type InquiryRules,
  type InquiryValues,
  type TextFieldName,
} from "../../inquiry/validation";

interface FieldContent {
  readonly label: string;
  readonly hint?: string | null;
  readonly placeholder?: string | null;
  readonly autocomplete?: string | null;
  /** The answers of a select whose choices live in the form's own content (ship-to state, buying method). */
  readonly options?: readonly LabelledOption[] | null;
}

export interface InquiryFormContent extends InquiryRules, SendStatusContent {
  readonly heading: string;
  readonly requiredNote: string;
  readonly requiredMarker: string;
  readonly formFields: Readonly<Record<InquiryFieldName, InquiryFieldRules & FieldContent>>;
  readonly inquiryTypes: readonly LabelledOption[];
  readonly defaultType: string;
  readonly quoteType: string;
  readonly submitLabel: string;
  readonly errorSummary: string;
  readonly honeypotLabel: string;
  readonly sendingLabel: string;
}

export type CategoryOption = LabelledOption;

interface InquiryFormProps {
  content: InquiryFormContent;
  /** The product categories a quote can be for. */
  categories: readonly CategoryOption[];
  /** The compliance requirements a quote can ask for (content/certifications.json). */
  complianceOptions: readonly CategoryOption[];
  /** Where the visitor can call or write instead, named in the texts as {phone}, {email} and {hours}. */
  company: CompanyDetailsForText;
  /** What the link that brought the visitor here asked for (?type=quote&category=tactical). */
  requested?: { readonly type?: string | null; readonly category?: string | null };
  /** The type the form starts with, in the server's HTML too (the quote page's); a draft cannot change it. */
  initialType?: string;
  headingLevel: 2 | 3;
}

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

type Phase = { readonly kind: "editing" } | { readonly kind: "sending" } | SendResult;

const controlKinds: Record<TextFieldName, FieldKind> = {
  fullName: "text",
  organization: "text",
  email: "email",
  phone: "tel",
  inquiryType: "select",
  productCategory: "select",
  quantities: "textarea",
  needBy: "date",
  shipToState: "select",
  buyingMethod: "select",
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

const summaryStyles = css`
  padding: ${space.md} ${space.lg};
  border-left: 6px solid ${colors.error};
  background: ${colors.errorSurface};
  border-radius: ${radii.sm};
`;

const editing: Phase = { kind: "editing" };

const isQuoteField = (name: InquiryFieldName) => (quoteFieldNames as readonly InquiryFieldName[]).includes(name);

const known = (options: readonly { readonly value: string }[] | null | undefined, value: string | null | undefined) =>
  options?.find((option) => option.value === value)?.value ?? null;

/** The visitor's inquiry as a message for their own email app, for when the website cannot send it. */
const mailtoHref = (email: string, content: InquiryFormContent, choices: LabelledChoices, values: InquiryValues) => {
  // Normalized as the server would, so a quote field left over from switching type is not included.
  const shown = normalizeInquiry(content, values);
  const lines = displayedFields(content, choices, shown)
    .filter((field) => field.name !== "message")
    .map((field) => `${field.label}: ${field.value}`);
  const body = `${lines.join("\n")}\n\n${shown.message.trim()}`;
  const subject = `${content.failed.emailSubject}: ${labelOf(content.inquiryTypes, shown.inquiryType)}`;
  return `mailto:${email}?subject=${encodeURIComponent(subject)}&body=${encodeURIComponent(body)}`;
};

/** Today in the visitor's time zone as YYYY-MM-DD, the earliest need-by date the date picker offers. */
const localIsoDate = (date: Date) =>
  [date.getFullYear(), date.getMonth() + 1, date.getDate()].map((part) => String(part).padStart(2, "0")).join("-");

/**
 * What the visitor changed in the server-rendered form before the page's script took it over: React
 * leaves those values in the DOM while hydrating. Anything still as first rendered is left out, so it
 * cannot override a restored draft.
 */
const typedBeforeHydration = (form: HTMLFormElement, rendered: InquiryValues): Partial<InquiryValues> => {
  const typed: Partial<Record<TextFieldName, string>> & { compliance?: readonly string[] } = {};
  for (const name of inquiryFieldNames) {
    const controls = Array.from(form.querySelectorAll<Control>(`[name="${name}"]`));
    if (name === "compliance") {
      const ticked = controls
        .filter((control) => control instanceof HTMLInputElement && control.checked)
        .map((control) => control.value);
      if (ticked.join("\n") !== rendered.compliance.join("\n")) typed.compliance = ticked;
    } else if (controls[0] && controls[0].value !== rendered[name]) {
      typed[name] = controls[0].value;
    }
  }
  return typed;
};

/** The quote fields are left out of what is sent unless the inquiry is a quote request. */
const requestBody = (
  values: InquiryValues,
  isQuote: boolean,
  honeypot: string,
  fillMs: number,
  idempotencyKey: string,
): InquiryRequestBody => {
  const fields: Partial<Record<InquiryFieldName, string | readonly string[]>> = { ...values };
  if (!isQuote) for (const name of quoteFieldNames) delete fields[name];
  return {
    ...(fields as Partial<InquiryValues>),
    [honeypotField]: honeypot,
    [fillTimeField]: fillMs,
    [idempotencyKeyField]: idempotencyKey,
  };
};

/** A new inquiry: its clock starts now (or when the page began to load, if the visitor typed before that). */
const newSession = (startedAt: number = Date.now()): DraftSession => ({
  startedAt,
  idempotencyKey: newIdempotencyKey(),
});

/**
 * The inquiry form. Without JavaScript it posts to /api/inquiry like any HTML form; with it, it checks
 * the answers in the browser, sends them as JSON, and shows what became of them without leaving the
 * page. What the visitor types is kept in sessionStorage until the inquiry has been sent.
 */
export const InquiryForm = ({
  content,
  categories,
  complianceOptions,
  company,
  requested,
  initialType,
  headingLevel,
}: InquiryFormProps) => {
  const Heading = `h${headingLevel}` as const;
  const startType = known(content.inquiryTypes, initialType) ?? content.defaultType;
  const requestedType = known(content.inquiryTypes, requested?.type) ?? known(content.inquiryTypes, initialType);
  const requestedCategory = known(categories, requested?.category);
  // The server renders the form without a query string, a draft or a clock; all three are applied after
  // hydration so the first client render matches the server's HTML.
  const [values, setValues] = useState<InquiryValues>(() => emptyInquiry(startType));
  const [errors, setErrors] = useState<InquiryErrors>({});
  const [serverErrors, setServerErrors] = useState<InquiryErrors>({});
  const [attempted, setAttempted] = useState(false);
  const [phase, setPhase] = useState<Phase>(editing);
  const [today, setToday] = useState<string>();
  const formRef = useRef<HTMLFormElement>(null);
  const panelRef = useRef<HTMLDivElement>(null);
  const honeypotRef = useRef<HTMLInputElement>(null);
  const focusTarget = useRef<InquiryFieldName | "panel" | null>(null);
  const session = useRef<DraftSession>({ startedAt: 0, idempotencyKey: "" });
  const sending = useRef(false);
  const mounted = useRef(false);

  const choices = { productCategories: categories, complianceOptions };
  const isQuote = values.inquiryType === content.quoteType;

  /** A saved draft with every choice it names still on offer; anything else falls back to empty. */
  const usableDraft = (draft: InquiryValues): InquiryValues => ({
    ...draft,
    inquiryType: known(content.inquiryTypes, draft.inquiryType) ?? content.defaultType,
    productCategory: known(categories, draft.productCategory) ?? "",
    shipToState: known(content.formFields.shipToState.options, draft.shipToState) ?? "",
    buyingMethod: known(content.formFields.buyingMethod.options, draft.buyingMethod) ?? "",
    compliance: draft.compliance.filter((value) => known(complianceOptions, value) !== null),
  });

  // Once the page is running: start the fill-time clock, then restore the draft and keep whatever the
  // visitor typed before the script took over (that is newer than the draft).
  useEffect(() => {
    mounted.current = true;
    setToday(localIsoDate(new Date()));
    const draft = loadDraft(content);
    const typed = formRef.current ? typedBeforeHydration(formRef.current, values) : {};
    const typedEarly = Object.keys(typed).length > 0;
    // A restored draft keeps the time its inquiry was begun, and its key: it is the same inquiry.
    session.current =
      draft?.session ?? newSession(typedEarly ? Math.min(Date.now(), Math.round(performance.timeOrigin)) : Date.now());
    if (draft || typedEarly)
      setValues((current) => ({ ...current, ...(draft ? usableDraft(draft.values) : {}), ...typed }));
    return () => {
      mounted.current = false;
    };
    // Once, on mount: later renders must not restore the draft over what the visitor is doing.
  }, []);

  // What the page address asks for wins over the draft for the type and the category.
  useEffect(() => {
    if (requestedType) setValues((current) => ({ ...current, inquiryType: requestedType }));
  }, [requestedType]);
  useEffect(() => {
    if (requestedCategory) setValues((current) => ({ ...current, productCategory: requestedCategory }));
  }, [requestedCategory]);

  useEffect(() => {
    const target = focusTarget.current;
    if (!target) return;
    focusTarget.current = null;
    if (target === "panel") panelRef.current?.focus();
    else formRef.current?.querySelector<HTMLElement>(`[name="${target}"]`)?.focus();
  });

  const update = (name: InquiryFieldName, value: string | readonly string[]) => {
    const next = { ...values, [name]: value } as InquiryValues;
    setValues(next);
    saveDraft(next, session.current);
    // The server's message on a field stands until the visitor changes that field.
    if (serverErrors[name])
      setServerErrors((current) => {
        const others = { ...current };
        delete others[name];
        return others;
      });
    // Once the visitor has tried to submit, messages follow their corrections as they type.
    if (attempted) setErrors(validateInquiry(content, choices, next));
  };

  const onFieldChange = (name: string, value: string | readonly string[]) => {
    const field = inquiryFieldNames.find((candidate) => candidate === name);
    if (field) update(field, value);
  };

  const send = async (checked: InquiryValues) => {
    sending.current = true;
    setPhase({ kind: "sending" });
    const quote = checked.inquiryType === content.quoteType;
    const fillMs = Math.max(0, Date.now() - session.current.startedAt);
    const outcome = await sendInquiry(
      requestBody(checked, quote, honeypotRef.current?.value ?? "", fillMs, session.current.idempotencyKey),
    );
    sending.current = false;
    // Even if the visitor has left the form meanwhile, a received inquiry must not come back as a draft.
    if (outcome.kind === "sent") clearDraft();
    if (!mounted.current) return;
    switch (outcome.kind) {
      case "sent":
        setPhase(outcome);
        focusTarget.current = "panel";
        return;
      case "invalid": {
        // Only messages for fields the visitor can see; the rest of the answer is ignored.
        const shown = Object.fromEntries(
          inquiryFieldNames.flatMap((name) =>
            outcome.errors[name] && (quote || !isQuoteField(name)) ? [[name, outcome.errors[name]]] : [],
          ),
        ) as InquiryErrors;
        const first = inquiryFieldNames.find((name) => shown[name]);
        if (!first) {
          setPhase({ kind: "failed" });
          focusTarget.current = "panel";
          return;
        }
        setServerErrors(shown);
        setAttempted(true);
        setPhase(editing);
        focusTarget.current = first;
        return;
      }
      default:
        setPhase(outcome);
        focusTarget.current = "panel";
    }
  };

  const submit = () => {
    if (sending.current) return;
    const check = checkInquiry(content, choices, values);
    setAttempted(true);
    setServerErrors({});
    if (!check.ok) {
      setErrors(check.errors);
      setPhase(editing);
      focusTarget.current = inquiryFieldNames.find((name) => check.errors[name]) ?? null;
      return;
    }
    setErrors({});
    void send(check.values);
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    submit();
  };

  const sendAnother = () => {
    setValues(emptyInquiry(startType));
    setErrors({});
    setServerErrors({});
    setAttempted(false);
    setPhase(editing);
    session.current = newSession();
    focusTarget.current = inquiryFieldNames[0];
  };

  const shownErrors: InquiryErrors = { ...serverErrors, ...errors };
  const errorCount = Object.keys(shownErrors).length;
  const pending = phase.kind === "sending";

  const field = (name: TextFieldName, layout?: typeof wide) => {
    const rules = content.formFields[name];
    const options =
      name === "inquiryType"
        ? content.inquiryTypes
        : name === "productCategory"
          ? [{ value: "", label: rules.placeholder ?? "" }, ...categories]
          : controlKinds[name] === "select"
            ? [{ value: "", label: rules.placeholder ?? "" }, ...(rules.options ?? [])]
            : undefined;
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
          error={shownErrors[name]}
          value={values[name]}
          onChange={onFieldChange}
          options={options}
          rows={name === "quantities" ? 3 : undefined}
          min={name === "needBy" ? today : undefined}
        />
      </div>
    );
  };

  const compliance = content.formFields.compliance;
  const status =
    phase.kind === "sent" || phase.kind === "failed" || phase.kind === "tooMany" ? (
      <SendStatus
        result={phase}
        content={content}
        company={company}
        headingLevel={headingLevel === 2 ? 3 : 4}
        panelRef={panelRef}
        mailto={phase.kind === "failed" ? mailtoHref(company.contact.email, content, choices, values) : undefined}
        onAgain={sendAnother}
        onRetry={submit}
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
          {attempted && errorCount > 0 ? (
            <p css={[summaryStyles, wide]} role="alert">
              {content.errorSummary}
            </p>
          ) : null}
          {field("fullName")}
          {field("organization")}
          {field("email")}
          {field("phone")}
          {field("inquiryType", isQuote ? undefined : wide)}
          {isQuote ? (
            <>
              {field("productCategory")}
              {field("quantities", wide)}
              {field("needBy")}
              {field("shipToState")}
              {field("buyingMethod")}
              <div>
                <ChoiceGroup
                  name="compliance"
                  label={compliance.label}
                  hint={compliance.hint}
                  required={compliance.required}
                  requiredMarker={content.requiredMarker}
                  error={shownErrors.compliance}
                  options={complianceOptions}
                  values={values.compliance}
                  onChange={onFieldChange}
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
