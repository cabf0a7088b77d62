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
  type InquiryFormState,
} from "../src/inquiry/form-state";
import { emptyInquiry } from "../src/inquiry/values";
import { categories, complianceOptions, inquiryContent } from "./fixtures/content";

const choices = { productCategories: categories, complianceOptions };
const session = { startedAt: 1_000, idempotencyKey: "0f8e1c9a-4b2d-4e6f-8a1b-2c3d4e5f6a7b" };
const editing = (changes: Partial<InquiryFormState> = {}): InquiryFormState => ({
  ...initialFormState("general"),
  session,
  today: "2027-01-05",
  ...changes,
});

describe("the inquiry form's reducer", () => {
  it("starts as the server renders it: empty, editing, no session, no date, nothing to focus", () => {
    expect(initialFormState("quote")).toEqual({
      values: emptyInquiry("quote"),
      errors: {},
      serverErrors: {},
      phase: { kind: "editing" },
      session: null,
      today: null,
      focus: null,
    });
  });

  it("takes what arrives once the page runs: answers, session and today's date", () => {
    const values = { ...emptyInquiry("general"), fullName: "Pat" };
    const state = inquiryFormReducer(initialFormState("general"), {
      type: "restored",
      values,
      session,
      today: "2027-01-05",
    });
    expect(state).toEqual({ ...initialFormState("general"), values, session, today: "2027-01-05" });
  });

  it("retires the server's message on the changed field only, and keeps its own until it checks again", () => {
    const before = editing({
      phase: { kind: "invalid" },
      errors: { message: "Own message." },
      serverErrors: { email: "Server email.", phone: "Server phone." },
    });
    const values = { ...before.values, email: "pat@example.gov" };
    const unchecked = inquiryFormReducer(before, { type: "changed", name: "email", values, errors: null });
    expect(unchecked.values).toBe(values);
    expect(unchecked.serverErrors).toEqual({ phone: "Server phone." });
    expect(unchecked.errors).toEqual({ message: "Own message." });
    const checked = inquiryFormReducer(before, { type: "changed", name: "email", values, errors: {} });
    expect(checked.errors).toEqual({});
  });

  it("marks answers refused by its own check and asks for focus on the first field at fault", () => {
    const state = inquiryFormReducer(editing({ serverErrors: { email: "Server." } }), {
      type: "refused",
      errors: { message: "Too short.", fullName: "Enter your name." },
    });
    expect(state.phase).toEqual({ kind: "invalid" });
    expect(state.serverErrors).toEqual({});
    expect(state.errors).toEqual({ message: "Too short.", fullName: "Enter your name." });
    expect(state.focus).toEqual({ target: "fullName" });
    expect(sendTried(state)).toBe(true);
  });

  it("clears every message while sending", () => {
    const state = inquiryFormReducer(editing({ errors: { email: "x" }, serverErrors: { phone: "y" } }), {
      type: "sending",
    });
    expect(state).toMatchObject({ phase: { kind: "sending" }, errors: {}, serverErrors: {} });
  });

  it.each([[{ kind: "sent", reference: "CRS-1" }], [{ kind: "failed" }], [{ kind: "tooMany", minutes: 3 }]] as const)(
    "shows the outcome %o in the panel and focuses it",
    (outcome) => {
      const state = inquiryFormReducer(editing({ phase: { kind: "sending" } }), {
        type: "answered",
        outcome,
        quote: false,
      });
      expect(state.phase).toEqual(outcome);
      expect(state.focus).toEqual({ target: "panel" });
    },
  );

  it("puts the server's messages on the fields the visitor sees, and focuses the first", () => {
    const outcome = {
      kind: "invalid",
      errors: { productCategory: "Unknown category.", message: "Say more." },
    } as const;
    const general = inquiryFormReducer(editing(), { type: "answered", outcome, quote: false });
    expect(general.serverErrors).toEqual({ message: "Say more." });
    expect(general.phase).toEqual({ kind: "invalid" });
    expect(general.focus).toEqual({ target: "message" });
    const quote = inquiryFormReducer(editing(), { type: "answered", outcome, quote: true });
    expect(quote.serverErrors).toEqual(outcome.errors);
    expect(quote.focus).toEqual({ target: "productCategory" });
  });

  it("takes a refusal with no message on a field it shows for a failure", () => {
    const outcome = { kind: "invalid", errors: { compliance: "Unknown mark." } } as const;
    const state = inquiryFormReducer(editing(), { type: "answered", outcome, quote: false });
    expect(state.phase).toEqual({ kind: "failed" });
    expect(state.serverErrors).toEqual({});
    expect(state.focus).toEqual({ target: "panel" });
  });

  it("starts another inquiry empty, with its own session, on the first field, keeping today's date", () => {
    const next = { startedAt: 9_000, idempotencyKey: "7b6a5f4e-3d2c-4b1a-8f6e-4d2b9a1c8e0f" };
    const sent = editing({
      values: { ...emptyInquiry("quote"), fullName: "Pat" },
      phase: { kind: "sent", reference: "CRS-1" },
      errors: { email: "x" },
    });
    const state = inquiryFormReducer(sent, { type: "again", values: emptyInquiry("general"), session: next });
    expect(state).toEqual({
      ...initialFormState("general"),
      session: next,
      today: "2027-01-05",
      focus: { target: "fullName" },
    });
    expect(sendTried(state)).toBe(false);
  });

  it("asks for focus with a new object each time, so the same field is focused again", () => {
    const refused = { type: "refused", errors: { fullName: "Enter your name." } } as const;
    const once = inquiryFormReducer(editing(), refused);
    const twice = inquiryFormReducer(once, refused);
    expect(twice.focus).toEqual(once.focus);
    expect(twice.focus).not.toBe(once.focus);
  });

  it("shows its own message on a field over the server's", () => {
    expect(
      shownErrors(editing({ errors: { email: "Own." }, serverErrors: { email: "Server.", phone: "Server." } })),
    ).toEqual({
      email: "Own.",
      phone: "Server.",
    });
  });
});

describe("what the form starts from once the page runs", () => {
  it("knows an option only if it is on offer", () => {
    expect(known(categories, "tactical")).toBe("tactical");
    expect(known(categories, "jetpacks")).toBeNull();
    expect(known(categories, null)).toBeNull();
    expect(known(null, "tactical")).toBeNull();
  });

  it("takes the type and category a link asks for if they are on offer, else the page's own type", () => {
    expect(requestedAnswers(inquiryContent, choices, { type: "quote", category: "tactical" }, undefined)).toEqual({
      inquiryType: "quote",
      productCategory: "tactical",
    });
    expect(requestedAnswers(inquiryContent, choices, { type: "rocket", category: "jetpacks" }, "quote")).toEqual({
      inquiryType: "quote",
    });
    expect(requestedAnswers(inquiryContent, choices, undefined, undefined)).toEqual({});
  });

  it("keeps of a draft only the choices still on offer", () => {
    const draft = {
      ...emptyInquiry("rocket"),
      fullName: "Pat",
      productCategory: "jetpacks",
      shipToState: "VA",
      buyingMethod: "barter",
      compliance: ["usa", "made-on-mars"],
    };
    expect(usableDraft(inquiryContent, choices, draft)).toEqual({
      ...draft,
      inquiryType: "general",
      productCategory: "",
      shipToState: "VA",
      buyingMethod: "",
      compliance: ["usa"],
    });
  });

  it("lays the draft over the rendered answers, early typing over the draft, the address over everything", () => {
    const rendered = emptyInquiry("general");
    const draft = { ...rendered, fullName: "Draft name", message: "Draft message", inquiryType: "quote" };
    expect(
      restoredValues(rendered, draft, { message: "Typed early" }, { inquiryType: "general", productCategory: "x" }),
    ).toEqual({
      ...rendered,
      fullName: "Draft name",
      message: "Typed early",
      inquiryType: "general",
      productCategory: "x",
    });
    expect(restoredValues(rendered, null, {}, {})).toEqual(rendered);
  });

  it("dates a new inquiry now, or from the page's start when the visitor typed before the script ran", () => {
    expect(inquiryStart(50_000, false, 20_000.4)).toBe(50_000);
    expect(inquiryStart(50_000, true, 20_000.4)).toBe(20_000);
    // A clock that disagrees with the page's start never dates the inquiry in the future.
    expect(inquiryStart(50_000, true, 90_000)).toBe(50_000);
  });
});
