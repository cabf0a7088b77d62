import type { ChangeEvent, ReactNode, Ref } from "react";
import { css } from "@emotion/react";
import { colors, fontSizes, radii, space } from "../../styles/theme";

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
  controlRef: Ref<Control>;
  /** input type, or "select" / "textarea" for those controls. */
  kind: "text" | "email" | "tel" | "select" | "textarea";
  required: boolean;
  autoComplete?: string | null;
  placeholder?: string | null;
  options?: readonly { readonly value: string; readonly label: string }[];
}

const fieldStyles = css`
  display: grid;
  gap: ${space.xs};
  label {
    font-weight: 700;
    color: ${colors.navy};
  }
`;

const markerStyles = css`
  font-weight: 400;
  color: ${colors.muted};
  font-size: ${fontSizes.sm};
  margin-left: ${space.xs};
`;

const hintStyles = css`
  margin: 0;
  color: ${colors.muted};
  font-size: ${fontSizes.sm};
`;

const errorStyles = css`
  margin: 0;
  color: ${colors.error};
  font-weight: 700;
  font-size: ${fontSizes.sm};
`;

const controlStyles = (invalid: boolean) => css`
  width: 100%;
  min-height: 2.75rem;
  padding: 0.5rem 0.75rem;
  font: inherit;
  color: ${colors.text};
  background: ${colors.white};
  border: 2px solid ${invalid ? colors.error : "#6b7685"};
  border-radius: ${radii.sm};
  &::placeholder {
    color: #5f6b7a;
  }
`;

const textareaStyles = css`
  min-height: 9rem;
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
        css={[common.css, textareaStyles]}
        ref={controlRef as Ref<HTMLTextAreaElement>}
        rows={6}
        placeholder={placeholder ?? undefined}
      />
    );
  } else {
    control = (
      <input {...common} ref={controlRef as Ref<HTMLInputElement>} type={kind} placeholder={placeholder ?? undefined} />
    );
  }

  return (
    <div css={fieldStyles}>
      <label htmlFor={id}>
        {label}
        {required && requiredMarker ? <span css={markerStyles}>{requiredMarker}</span> : null}
      </label>
      {hint ? (
        <p id={hintId} css={hintStyles}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={errorId} css={errorStyles}>
          {error}
        </p>
      ) : null}
      {control}
    </div>
  );
};
