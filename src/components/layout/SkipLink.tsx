import { css } from "@emotion/react";
import { colors, radii, printHidden } from "../../styles/theme";

const skipLinkStyles = css`
  /* Fixed, so it shows wherever the page is scrolled when it takes focus. */
  position: fixed;
  top: 0.5rem;
  left: 0.5rem;
  z-index: 100;
  padding: 0.75rem 1rem;
  background: ${colors.gold};
  color: ${colors.navy};
  font-weight: 700;
  border-radius: ${radii.sm};
  transform: translateY(-200%);
  &:focus {
    transform: none;
    color: ${colors.navy};
  }
`;

export const MAIN_CONTENT_ID = "main-content";

export const SkipLink = ({ label }: { label: string }) => (
  <a href={`#${MAIN_CONTENT_ID}`} css={[skipLinkStyles, printHidden]}>
    {label}
  </a>
);
