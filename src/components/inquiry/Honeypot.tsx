import type { Ref } from "react";
import { css } from "@emotion/react";
import { honeypotField } from "../../inquiry/protocol";

// Off-screen rather than display:none or visibility:hidden, which form-filling software recognizes and skips.
const offScreen = css`
  position: absolute;
  left: -10000px;
  top: auto;
  width: 1px;
  height: 1px;
  overflow: hidden;
`;

/** The field's id, as meaningless to autofill as its name: browsers read ids and labels as well as names. */
const HONEYPOT_ID = "hx-trap-q7";

/**
 * `inert` makes the field unfocusable, which keeps browsers' autofill away from it: Chromium's passes over
 * fields that cannot take focus, and an off-screen field otherwise can. React 18 knows no `inert` property,
 * so the attribute is given as it is written in HTML.
 */
const inert = { inert: "" } as Readonly<Record<string, string>>;

/**
 * What password managers read as "not mine to fill": 1Password, LastPass, Bitwarden and Dashlane each look
 * for their own attribute.
 */
const notForPasswordManagers = {
  "data-1p-ignore": "true",
  "data-lpignore": "true",
  "data-bwignore": "true",
  "data-form-type": "other",
} as const;

interface HoneypotProps {
  label: string;
  inputRef: Ref<HTMLInputElement>;
}

/**
 * A field no person sees, reaches with the keyboard or hears from a screen reader, and no browser fills:
 * out of the tab order and the accessibility tree (inert, aria-hidden, tabindex -1), with a name, id and
 * label no autofill heuristic matches and autocomplete off. Software that fills in every field fills in this
 * one too, and the server then holds the inquiry as suspected spam. The input is left uncontrolled so the
 * form reads what is really in it when sending.
 */
export const Honeypot = ({ label, inputRef }: HoneypotProps) => (
  <div css={offScreen} aria-hidden="true" {...inert}>
    <label htmlFor={HONEYPOT_ID}>{label}</label>
    <input
      ref={inputRef}
      id={HONEYPOT_ID}
      type="text"
      name={honeypotField}
      defaultValue=""
      tabIndex={-1}
      autoComplete="off"
      {...notForPasswordManagers}
    />
  </div>
);
