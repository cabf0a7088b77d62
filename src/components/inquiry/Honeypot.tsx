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

interface HoneypotProps {
  label: string;
  inputRef: Ref<HTMLInputElement>;
}

/**
 * A field no person sees, reaches with the keyboard or hears from a screen reader. Software that fills
 * in every field fills in this one too, and the server then drops the inquiry. The input is left
 * uncontrolled so the form reads what is really in it when sending.
 */
export const Honeypot = ({ label, inputRef }: HoneypotProps) => (
  <div css={offScreen} aria-hidden="true">
    <label htmlFor="inquiry-honeypot">{label}</label>
    <input
      ref={inputRef}
      id="inquiry-honeypot"
      type="text"
      name={honeypotField}
      defaultValue=""
      tabIndex={-1}
      autoComplete="off"
    />
  </div>
);
