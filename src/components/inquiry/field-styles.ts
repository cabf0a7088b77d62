import { css } from "@emotion/react";
import { colors, fontSizes, space } from "../../styles/theme";

/** What every field of the form shares around its control: the required marker, the hint and the error. */

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
