import { errorStyles, hintStyles } from "./field-styles";

interface FieldMessagesProps {
  hint?: string | null;
  hintId?: string;
  error?: string;
  errorId?: string;
}

/** A field's hint and its error, with the ids its control or group points to with aria-describedby. */
export const FieldMessages = ({ hint, hintId, error, errorId }: FieldMessagesProps) => (
  <>
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
  </>
);
