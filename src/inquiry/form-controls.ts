import type { LabelledOption } from "./displayed-fields";
import { inquiryFieldNames, type InquiryValues, type TextFieldName } from "./values";

/** The control each answer is given: an input type, or "select" / "textarea". */
export type ControlKind = "text" | "email" | "tel" | "date" | "select" | "textarea";

const controlKinds: Readonly<Record<TextFieldName, ControlKind>> = {
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

interface ControlChoice {
  readonly kind: ControlKind;
  /** A select's options, in order. */
  readonly options?: readonly LabelledOption[];
  /** Visible lines of a textarea other than the message's. */
  readonly rows?: number;
  /**
   * A select offering only real answers, one of them always chosen: the visitor cannot leave it empty,
   * so it is neither marked nor built as `required`, which HTML allows on a select only when its first
   * option is an empty placeholder (a required select without one could never be missing its value).
   */
  readonly alwaysAnswered?: true;
}

/**
 * How a field is asked: the inquiry type offers the types and always has one (the page's, the link's or
 * the visitor's choice), so no empty choice that could only be refused is offered; the category and the
 * selects whose answers live in the form's own content start with an empty choice worded by the
 * field's placeholder; the quantities take three lines.
 */
export const controlFor = (
  name: TextFieldName,
  field: { readonly placeholder?: string | null; readonly options?: readonly LabelledOption[] | null },
  inquiryTypes: readonly LabelledOption[],
  categories: readonly LabelledOption[],
): ControlChoice => {
  const kind = controlKinds[name];
  const none = { value: "", label: field.placeholder ?? "" };
  if (name === "inquiryType") return { kind, options: inquiryTypes, alwaysAnswered: true };
  if (name === "productCategory") return { kind, options: [none, ...categories] };
  if (kind === "select") return { kind, options: [none, ...(field.options ?? [])] };
  if (name === "quantities") return { kind, rows: 3 };
  return { kind };
};

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/**
 * What the visitor changed in the server-rendered form before the page's script took it over: React
 * leaves those values in the DOM while hydrating. Anything still as first rendered is left out, so it
 * cannot override a restored draft.
 */
export const typedBeforeHydration = (form: HTMLFormElement, rendered: InquiryValues): Partial<InquiryValues> => {
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

/** The date in the visitor's time zone as YYYY-MM-DD: the earliest need-by date the date picker offers. */
export const localIsoDate = (date: Date): string =>
  [date.getFullYear(), date.getMonth() + 1, date.getDate()].map((part) => String(part).padStart(2, "0")).join("-");
