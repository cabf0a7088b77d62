import { css } from "@emotion/react";
import { colors, space } from "../../styles/theme";
import { markerStyles } from "./field-styles";
import { FieldMessages } from "./FieldMessages";

interface ChoiceGroupProps {
  /** The control name every checkbox posts under, once per ticked value. */
  name: string;
  label: string;
  requiredMarker?: string | null;
  required: boolean;
  hint?: string | null;
  error?: string;
  options: readonly { readonly value: string; readonly label: string }[];
  values: readonly string[];
  onChange: (name: string, values: readonly string[]) => void;
}

const fieldsetStyles = css`
  margin: 0;
  padding: 0;
  border: 0;
  min-width: 0;
  display: grid;
  gap: ${space.xs};
  legend {
    padding: 0;
    margin-bottom: ${space.xs};
    font-weight: 700;
    color: ${colors.navy};
  }
`;

const listStyles = css`
  display: grid;
  gap: 0 ${space.lg};
  grid-template-columns: repeat(auto-fill, minmax(12rem, 1fr));
`;

// The row, not only the box, is the click target, and it is at least 44px tall.
const optionStyles = css`
  display: flex;
  align-items: center;
  gap: 0.75rem;
  min-height: 2.75rem;
  input {
    flex: none;
    width: 1.5rem;
    height: 1.5rem;
    margin: 0;
    accent-color: ${colors.blue};
    cursor: pointer;
  }
  label {
    flex: 1;
    padding: 0.5rem 0;
    cursor: pointer;
  }
`;

/** A group of checkboxes under one question, its hint and error tied to the group for screen readers. */
export const ChoiceGroup = ({
  name,
  label,
  requiredMarker,
  required,
  hint,
  error,
  options,
  values,
  onChange,
}: ChoiceGroupProps) => {
  const id = `inquiry-${name}`;
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
  const toggle = (value: string, checked: boolean) => {
    const next = checked ? [...values, value] : values.filter((item) => item !== value);
    // Keep the order of the options, whatever order they were ticked in.
    onChange(
      name,
      options.map((option) => option.value).filter((item) => next.includes(item)),
    );
  };

  return (
    <fieldset id={id} css={fieldsetStyles} aria-describedby={describedBy}>
      <legend>
        {label}
        {required && requiredMarker ? <span css={markerStyles}>{requiredMarker}</span> : null}
      </legend>
      <FieldMessages hint={hint} hintId={hintId} error={error} errorId={errorId} />
      <div css={listStyles}>
        {options.map((option) => {
          const optionId = `${id}-${option.value}`;
          return (
            <div key={option.value} css={optionStyles}>
              <input
                type="checkbox"
                id={optionId}
                name={name}
                value={option.value}
                checked={values.includes(option.value)}
                aria-invalid={error ? true : undefined}
                onChange={(event) => toggle(option.value, event.target.checked)}
              />
              <label htmlFor={optionId}>{option.label}</label>
            </div>
          );
        })}
      </div>
    </fieldset>
  );
};
