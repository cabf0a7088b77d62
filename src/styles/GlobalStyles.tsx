import { Global, css } from "@emotion/react";
import { colors, focusRing, fonts, fontSizes, reducedMotion } from "./theme";

const globalStyles = css`
  *,
  *::before,
  *::after {
    box-sizing: border-box;
  }
  html {
    -webkit-text-size-adjust: 100%;
    scroll-behavior: smooth;
    scroll-padding-top: 1rem;
  }
  ${reducedMotion} {
    html {
      scroll-behavior: auto;
    }
    *,
    *::before,
    *::after {
      animation-duration: 0.01ms !important;
      transition-duration: 0.01ms !important;
    }
  }
  body {
    margin: 0;
    font-family: ${fonts.body};
    font-size: ${fontSizes.base};
    line-height: 1.6;
    color: ${colors.text};
    background: ${colors.white};
    overflow-wrap: break-word;
  }
  /* Every control takes the page's font from here: one that sets no font of its own would take the
     browser's 13.33px Arial, a font nothing else uses, and each extra font costs a lookup while the page is
     laid out. e2e/pages.test.ts checks every page. */
  button,
  input,
  select,
  textarea {
    font: inherit;
  }
  h1,
  h2,
  h3 {
    font-family: ${fonts.heading};
    line-height: 1.2;
    color: ${colors.navy};
    margin: 0 0 0.75rem;
  }
  h1 {
    font-size: ${fontSizes.h1};
  }
  h2 {
    font-size: ${fontSizes.h2};
  }
  h3 {
    font-size: ${fontSizes.h3};
  }
  p {
    margin: 0 0 1rem;
  }
  a {
    color: ${colors.blue};
    text-underline-offset: 0.15em;
  }
  a:hover {
    color: ${colors.blueDark};
  }
  img,
  svg {
    max-width: 100%;
  }
  :focus-visible {
    ${focusRing};
  }
  [tabindex="-1"]:focus:not(:focus-visible) {
    outline: none;
  }
  @page {
    size: letter;
    margin: 0.5in;
  }
  @media print {
    body {
      color: #000;
    }
    a {
      color: inherit;
      text-decoration: none;
    }
  }
`;

export const GlobalStyles = () => <Global styles={globalStyles} />;
