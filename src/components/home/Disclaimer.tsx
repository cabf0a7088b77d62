import { css } from "@emotion/react";
import { colors, fontSizes, space } from "../../styles/theme";

const disclaimerStyles = css`
  margin: ${space.lg} 0 0;
  color: ${colors.muted};
  font-size: ${fontSizes.sm};
  text-align: center;
`;

export const Disclaimer = ({ text }: { text: string }) => <p css={disclaimerStyles}>{text}</p>;
