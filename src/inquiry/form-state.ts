import type { DraftSession } from "./draft";
import type { LabelledChoices, LabelledOption } from "./displayed-fields";
import type { SendOutcome } from "./send-inquiry";
import type { InquiryFieldRules, InquiryRules } from "./validation";
import {
  emptyInquiry,
  inquiryFieldNames,
  isQuoteField,
  type InquiryErrors,
  type InquiryFieldName,
  type InquiryValues,
} from "./values";

/**
 * The inquiry form's state and how it changes, as a reducer: plain data in, plain data out, so every
 * transition is tested without rendering. The hook (src/hooks/use-inquiry-form.ts) does what is not
 * plain data: storage, the network, the clock, focus.
 */

interface FieldContent {
  readonly label: string;
  readonly hint?: string | null;
  readonly placeholder?: string | null;
  readonly autocomplete?: string | null;
  /** The answers of a select whose choices live in the form's own content (ship-to state, buying method). */
  readonly options?: readonly LabelledOption[] | null;
}

/** The texts of content/inquiry.json that tell the visitor what became of their inquiry. */
export interface SendStatusContent {
  readonly sent: { readonly title: string; readonly text: string; readonly againLabel: string };
  readonly failed: {
    readonly title: string;
    readonly text: string;
    readonly retryLabel: string;
    readonly emailActionLabel: string;
    readonly emailSubject: string;
  };
  readonly tooMany: { readonly title: string; readonly text: string };
}

/** Everything the form shows and checks, from content/inquiry.json. */
export interface InquiryFormContent extends InquiryRules, SendStatusContent {
  readonly heading: string;
  readonly requiredNote: string;
  readonly requiredMarker: string;
  readonly formFields: Readonly<Record<InquiryFieldName, InquiryFieldRules & FieldContent>>;
  readonly inquiryTypes: readonly LabelledOption[];
  readonly defaultType: string;
  readonly submitLabel: string;
  readonly errorSummary: string;
  readonly honeypotLabel: string;
  readonly sendingLabel: string;
}

/** What became of a send that the visitor is shown in a panel. */
export type SendResult =
  | { readonly kind: "sent"; readonly reference: string }
  | { readonly kind: "failed" }
  | { readonly kind: "tooMany"; readonly minutes: number };

/**
 * Where the inquiry stands: being written, being sent, refused for answers to correct (by the form's own
 * check or the server's), or one of the outcomes shown in a panel.
 */
type Phase =
  { readonly kind: "editing" } | { readonly kind: "sending" } | { readonly kind: "invalid" } | SendResult;

type FocusTarget = InquiryFieldName | "panel";

export interface InquiryFormState {
  readonly values: InquiryValues;
  /** The form's own messages from its last check; once a send was tried they follow the visitor's corrections. */
  readonly errors: InquiryErrors;
  /** The server's messages, each until its field changes. */
  readonly serverErrors: InquiryErrors;
  readonly phase: Phase;
  /** When the inquiry was begun, and its idempotency key; null until the page runs. */
  readonly session: DraftSession | null;
  /** Today in the visitor's time zone (YYYY-MM-DD), the earliest need-by date; null until the page runs. */
  readonly today: string | null;
  /** Where focus goes once the next render is on screen; a new object for every request. */
  readonly focus: { readonly target: FocusTarget } | null;
}

export type InquiryFormAction =
  /** The page runs: what the server's HTML could not hold (draft, early typing, address, clock) arrives. */
  | {
      readonly type: "restored";
      readonly values: InquiryValues;
      readonly session: DraftSession;
      readonly today: string;
    }
  /** The visitor changed one answer; `errors` is the new check once a send was tried, else null. */
  | {
      readonly type: "changed";
      readonly name: InquiryFieldName;
      readonly values: InquiryValues;
      readonly errors: InquiryErrors | null;
    }
  /** The form's own check found answers to correct: nothing is sent. */
  | { readonly type: "refused"; readonly errors: InquiryErrors }
  | { readonly type: "sending" }
  /** The answer to a send; `quote` says whether the quote fields were sent (and so may carry messages). */
  | { readonly type: "answered"; readonly outcome: SendOutcome; readonly quote: boolean }
  /** "Send another inquiry": an empty form, a new session. */
  | { readonly type: "again"; readonly values: InquiryValues; readonly session: DraftSession };

/** The state the server renders, and the client's first render with it, so that hydration matches. */
export const initialFormState = (inquiryType: string): InquiryFormState => ({
  values: emptyInquiry(inquiryType),
  errors: {},
  serverErrors: {},
  phase: { kind: "editing" },
  session: null,
  today: null,
  focus: null,
});

const firstWithMessage = (errors: InquiryErrors): InquiryFieldName | undefined =>
  inquiryFieldNames.find((name) => errors[name]);

export const inquiryFormReducer = (state: InquiryFormState, action: InquiryFormAction): InquiryFormState => {
  switch (action.type) {
    case "restored":
      return { ...state, values: action.values, session: action.session, today: action.today };
    case "changed": {
      // The server's message on a field stands until the visitor changes that field.
      const serverErrors = Object.fromEntries(
        Object.entries(state.serverErrors).filter(([name]) => name !== action.name),
      ) as InquiryErrors;
      return { ...state, values: action.values, serverErrors, errors: action.errors ?? state.errors };
    }
    case "refused": {
      const first = firstWithMessage(action.errors);
      return {
        ...state,
        errors: action.errors,
        serverErrors: {},
        phase: { kind: "invalid" },
        focus: first ? { target: first } : null,
      };
    }
    case "sending":
      return { ...state, errors: {}, serverErrors: {}, phase: { kind: "sending" } };
    case "answered": {
      const { outcome } = action;
      if (outcome.kind !== "invalid") return { ...state, phase: outcome, focus: { target: "panel" } };
      // Only messages for fields the visitor can see; the rest of the answer is ignored.
      const shown = Object.fromEntries(
        inquiryFieldNames.flatMap((name) =>
          outcome.errors[name] && (action.quote || !isQuoteField(name)) ? [[name, outcome.errors[name]]] : [],
        ),
      ) as InquiryErrors;
      const first = firstWithMessage(shown);
      if (!first) return { ...state, phase: { kind: "failed" }, focus: { target: "panel" } };
      return { ...state, serverErrors: shown, phase: { kind: "invalid" }, focus: { target: first } };
    }
    case "again":
      return {
        ...initialFormState(action.values.inquiryType),
        values: action.values,
        session: action.session,
        today: state.today,
        focus: { target: inquiryFieldNames[0] },
      };
  }
};

/** Once a send has been tried, the form checks the answers again as the visitor corrects them. */
export const sendTried = (state: InquiryFormState): boolean => state.phase.kind !== "editing";

/** The messages shown on the fields: the form's own where it has one, else the server's. */
export const shownErrors = (state: InquiryFormState): InquiryErrors => ({ ...state.serverErrors, ...state.errors });

/** The option's value if it is on offer, else null. */
export const known = (
  options: readonly { readonly value: string }[] | null | undefined,
  value: string | null | undefined,
): string | null => options?.find((option) => option.value === value)?.value ?? null;

/** What a link asked for, as answers, keeping only the type and category on offer; the page's own type otherwise. */
export const requestedAnswers = (
  content: Pick<InquiryFormContent, "inquiryTypes">,
  choices: LabelledChoices,
  requested: { readonly type?: string | null; readonly category?: string | null } | undefined,
  initialType: string | undefined,
): Partial<InquiryValues> => {
  const inquiryType = known(content.inquiryTypes, requested?.type) ?? known(content.inquiryTypes, initialType);
  const productCategory = known(choices.productCategories, requested?.category);
  return { ...(inquiryType ? { inquiryType } : {}), ...(productCategory ? { productCategory } : {}) };
};

/** A saved draft with every choice it names still on offer; anything else falls back to empty. */
export const usableDraft = (
  content: Pick<InquiryFormContent, "inquiryTypes" | "defaultType" | "formFields">,
  choices: LabelledChoices,
  draft: InquiryValues,
): InquiryValues => ({
  ...draft,
  inquiryType: known(content.inquiryTypes, draft.inquiryType) ?? content.defaultType,
  productCategory: known(choices.productCategories, draft.productCategory) ?? "",
  shipToState: known(content.formFields.shipToState.options, draft.shipToState) ?? "",
  buyingMethod: known(content.formFields.buyingMethod.options, draft.buyingMethod) ?? "",
  compliance: draft.compliance.filter((value) => known(choices.complianceOptions, value) !== null),
});

/**
 * The answers once the page runs, each source over the one before: the server's, the saved draft,
 * what the visitor typed before the script took over (newer than the draft), what the address asks for.
 */
export const restoredValues = (
  rendered: InquiryValues,
  usable: InquiryValues | null,
  typed: Partial<InquiryValues>,
  requested: Partial<InquiryValues>,
): InquiryValues => ({ ...rendered, ...usable, ...typed, ...requested });

/**
 * When a new inquiry was begun: now, or when the page began to load if the visitor typed before its
 * script ran (they were filling it in before the form could note the time).
 */
export const inquiryStart = (now: number, typedEarly: boolean, pageStart: number): number =>
  typedEarly ? Math.min(now, Math.round(pageStart)) : now;
