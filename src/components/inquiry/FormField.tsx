import type { ChangeEvent, ReactNode, Ref } from "react";
import { css } from "@emotion/react";
import { colors, radii, space } from "../../styles/theme";
import type { ControlKind } from "../../inquiry/form-controls";
import { markerStyles } from "./field-styles";
import { FieldMessages } from "./FieldMessages";

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

interface FormFieldProps {
  name: string;
  label: string;
  requiredMarker?: string | null;
  hint?: string | null;
  error?: string;
  value: string;
  onChange: (name: string, value: string) => void;
  onBlur?: (name: string) => void;
  controlRef?: Ref<Control>;
  /** input type, or "select" / "textarea" for those controls. */
  kind: ControlKind;
  required: boolean;
  autoComplete?: string | null;
  placeholder?: string | null;
  options?: readonly { readonly value: string; readonly label: string }[];
  /** Visible lines of a textarea. */
  rows?: number;
  /** The earliest value of a date input. */
  min?: string;
}

const fieldStyles = css`
  display: grid;
  gap: ${space.xs};
  label {
    font-weight: 700;
    color: ${colors.navy};
  }
`;

const controlStyles = (invalid: boolean) => css`
  width: 100%;
  min-height: 2.75rem;
  padding: 0.5rem 0.75rem;
  color: ${colors.text};
  background: ${colors.white};
  border: 2px solid ${invalid ? colors.error : "#6b7685"};
  border-radius: ${radii.sm};
  &::placeholder {
    color: #5f6b7a;
  }
`;

// The message keeps its original height; shorter textareas (quantities) ask for fewer rows.
const textareaStyles = (rows: number) => css`
  min-height: ${rows >= 6 ? "9rem" : "5.5rem"};
  resize: vertical;
`;

/** A labelled control with its hint and error tied to it for screen readers. */
export const FormField = ({
  name,
  label,
  requiredMarker,
  hint,
  error,
  value,
  onChange,
  onBlur,
  controlRef,
  kind,
  required,
  autoComplete,
  placeholder,
  options,
  rows = 6,
  min,
}: FormFieldProps) => {
  const id = `inquiry-${name}`;
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
  const common = {
    id,
    name,
    value,
    required,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": describedBy,
    onChange: (event: ChangeEvent<Control>) => onChange(name, event.target.value),
    onBlur: onBlur ? () => onBlur(name) : undefined,
    autoComplete: autoComplete ?? undefined,
    css: controlStyles(Boolean(error)),
  };

  let control: ReactNode;
  if (kind === "select") {
    control = (
      <select {...common} ref={controlRef as Ref<HTMLSelectElement>}>
        {options?.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    );
  } else if (kind === "textarea") {
    control = (
      <textarea
        {...common}
        css={[common.css, textareaStyles(rows)]}
        ref={controlRef as Ref<HTMLTextAreaElement>}
        rows={rows}
        placeholder={placeholder ?? undefined}
      />
    );
  } else {
    control = (
      <input
        {...common}
        ref={controlRef as Ref<HTMLInputElement>}
        type={kind}
        min={min}
        placeholder={placeholder ?? undefined}
      />
    );
  }

  return (
    <div css={fieldStyles}>
      <label htmlFor={id}>
        {label}
        {required && requiredMarker ? <span css={markerStyles}>{requiredMarker}</span> : null}
      </label>
      <FieldMessages hint={hint} hintId={hintId} error={error} errorId={errorId} />
      {control}
    </div>
  );
};
