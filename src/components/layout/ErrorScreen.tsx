import { css } from "@emotion/react";
import { colors, fonts, space } from "../../styles/theme";
import { GlobalStyles } from "../../styles/GlobalStyles";
import { buttonStyles } from "../ui/button-styles";

interface ErrorScreenProps {
  title: string;
  intro: string;
  homeLabel: string;
  message: string;
}

const screenStyles = css`
  max-width: 42rem;
  margin: 0 auto;
  padding: ${space.xxl} ${space.md};
  pre {
    white-space: pre-wrap;
    font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
    background: ${colors.errorSurface};
    color: ${colors.error};
    border-left: 4px solid ${colors.error};
    padding: ${space.md};
    margin: 0 0 ${space.lg};
  }
  h1 {
    font-family: ${fonts.heading};
  }
`;

/**
 * Shown instead of a page that failed to render. It uses a plain anchor, not
 * Gatsby's Link, so that leaving it reloads the app from a clean state.
 */
export const ErrorScreen = ({ title, intro, homeLabel, message }: ErrorScreenProps) => (
  <main css={screenStyles}>
    <GlobalStyles />
    <h1>{title}</h1>
    <p>{intro}</p>
    <pre>{message}</pre>
    <a href="/" css={buttonStyles("secondary")}>
      {homeLabel}
    </a>
  </main>
);
