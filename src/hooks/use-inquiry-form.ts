import { useEffect, useMemo, useReducer, useRef, type FormEvent } from "react";
import { clearDraft, loadDraft, newDraftSession, saveDraft } from "../inquiry/draft";
import type { LabelledChoices, LabelledOption } from "../inquiry/displayed-fields";
import { localIsoDate, typedBeforeHydration } from "../inquiry/form-controls";
import {
  initialFormState,
  inquiryFormReducer,
  inquiryStart,
  known,
  requestedAnswers,
  restoredValues,
  sendTried,
  shownErrors,
  usableDraft,
  type InquiryFormContent,
} from "../inquiry/form-state";
import { emptyInquiry, inquiryFieldNames, isQuote, type InquiryValues } from "../inquiry/values";
import { lazyCode, useWhenNear } from "./use-when-near";

/**
 * The code the form needs only once it is used: the checks (zod/mini and the rules) and the sending.
 * Most visitors of the home page never reach the form, so this is a chunk of its own
 * (inquiry-submission), fetched when the form comes within a screen of the viewport or is first touched.
 */
const loadSubmission = async () => {
  const [validation, sending] = await Promise.all([
    import(/* webpackChunkName: "inquiry-submission" */ "../inquiry/validation"),
    import(/* webpackChunkName: "inquiry-submission" */ "../inquiry/send-inquiry"),
  ]);
  return {
    checkInquiry: validation.checkInquiry,
    validateInquiry: validation.validateInquiry,
    requestBody: sending.requestBody,
    sendInquiry: sending.sendInquiry,
  };
};
const submissionCode = lazyCode(loadSubmission);

export interface InquiryFormOptions {
  content: InquiryFormContent;
  categories: readonly LabelledOption[];
  complianceOptions: readonly LabelledOption[];
  /** What the link that brought the visitor asked for (?type=quote&category=tactical), applied once the page runs. */
  requested?: { readonly type?: string | null; readonly category?: string | null };
  /** The type the form starts with, in the server's HTML too; a draft cannot change it. */
  initialType?: string;
}

/**
 * The inquiry form's state and behaviour: a reducer over its answers, messages and sending phases
 * (src/inquiry/form-state.ts), plus what is not plain data: the draft in sessionStorage, the
 * inquiry's start time and idempotency key, the network, and where focus goes.
 */
export const useInquiryForm = ({
  content,
  categories,
  complianceOptions,
  requested,
  initialType,
}: InquiryFormOptions) => {
  const startType = known(content.inquiryTypes, initialType) ?? content.defaultType;
  const choices: LabelledChoices = useMemo(
    () => ({ productCategories: categories, complianceOptions }),
    [categories, complianceOptions],
  );
  // The server renders the form without a query string, a draft or a clock: the first client render
  // must match its HTML, so all three arrive with "restored" once the page runs.
  const [state, dispatch] = useReducer(inquiryFormReducer, startType, initialFormState);
  const formRef = useRef<HTMLFormElement>(null);
  const panelRef = useRef<HTMLDivElement>(null);
  const honeypotRef = useRef<HTMLInputElement>(null);
  const submitting = useRef(false);

  const restored = state.session !== null;
  useEffect(() => {
    if (restored) return;
    const rendered = emptyInquiry(startType);
    const draft = loadDraft(content);
    // Read from the DOM, which holds what the visitor typed before the script took over.
    const typed = formRef.current ? typedBeforeHydration(formRef.current, rendered) : {};
    const now = Date.now();
    dispatch({
      type: "restored",
      values: restoredValues(
        rendered,
        draft ? usableDraft(content, choices, draft.values) : null,
        typed,
        requestedAnswers(content, choices, requested, initialType),
      ),
      // A restored draft keeps the time its inquiry was begun, and its key: it is the same inquiry.
      session:
        draft?.session ?? newDraftSession(inquiryStart(now, Object.keys(typed).length > 0, performance.timeOrigin)),
      today: localIsoDate(new Date()),
    });
  }, [restored, startType, content, choices, requested, initialType]);

  useWhenNear(formRef, submissionCode.prepare, submissionCode.loaded() !== undefined);

  useEffect(() => {
    const target = state.focus?.target;
    if (!target) return;
    if (target === "panel") panelRef.current?.focus();
    else formRef.current?.querySelector<HTMLElement>(`[name="${target}"]`)?.focus();
  }, [state.focus]);

  const onChange = (name: string, value: string | readonly string[]) => {
    const field = inquiryFieldNames.find((candidate) => candidate === name);
    if (!field) return;
    const values = { ...state.values, [field]: value } as InquiryValues;
    saveDraft(values, state.session ?? undefined);
    // Once the visitor has tried to send, messages follow their corrections as they type.
    const code = submissionCode.loaded();
    const errors = sendTried(state) && code ? code.validateInquiry(content, choices, values) : null;
    dispatch({ type: "changed", name: field, values, errors });
  };

  const submit = async () => {
    if (submitting.current) return;
    submitting.current = true;
    try {
      const code = submissionCode.loaded() ?? (await submissionCode.load().catch(() => null));
      // Without its code (the connection dropped) the form cannot send: it says so and keeps every answer.
      if (!code) {
        dispatch({ type: "answered", outcome: { kind: "failed" }, quote: false });
        return;
      }
      const check = code.checkInquiry(content, choices, state.values);
      if (!check.ok) {
        dispatch({ type: "refused", errors: check.errors });
        return;
      }
      dispatch({ type: "sending" });
      const session = state.session ?? newDraftSession(Date.now());
      const quote = isQuote(content, check.values);
      const outcome = await code.sendInquiry(
        code.requestBody(check.values, {
          quote,
          honeypot: honeypotRef.current?.value ?? "",
          fillMs: Date.now() - session.startedAt,
          idempotencyKey: session.idempotencyKey,
        }),
      );
      // Even if the visitor has left the form meanwhile, a received inquiry must not come back as a draft.
      if (outcome.kind === "sent") clearDraft();
      dispatch({ type: "answered", outcome, quote });
    } finally {
      submitting.current = false;
    }
  };

  return {
    values: state.values,
    phase: state.phase,
    today: state.today,
    errors: shownErrors(state),
    sendTried: sendTried(state),
    choices,
    formRef,
    panelRef,
    honeypotRef,
    onChange,
    onSubmit: (event: FormEvent<HTMLFormElement>) => {
      event.preventDefault();
      void submit();
    },
    onRetry: () => void submit(),
    /** "Send another inquiry": an empty form and a new inquiry, with a start time and key of its own. */
    onAgain: () => dispatch({ type: "again", values: emptyInquiry(startType), session: newDraftSession(Date.now()) }),
  };
};
