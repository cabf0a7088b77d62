import { css } from "@emotion/react";
import { colors, fontSizes, space } from "../../styles/theme";

/** Styles the inquiry form's pieces share: around each control (required marker, hint, error) and the panel headings. */

export const markerStyles = css`
  font-weight: 400;
  color: ${colors.muted};
  font-size: ${fontSizes.sm};
  margin-left: ${space.xs};
`;

export const hintStyles = css`
  margin: 0;
  color: ${colors.muted};
  font-size: ${fontSizes.sm};
`;

export const errorStyles = css`
  margin: 0;
  color: ${colors.error};
  font-weight: 700;
  font-size: ${fontSizes.sm};
`;

/** The headings of the form and of the contact details beside it. */
export const panelHeadingStyles = css`
  font-size: 1.25rem;
`;
