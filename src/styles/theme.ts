import { css } from "@emotion/react";
import { colors } from "./colors";

export { colors };

export const breakpoints = { md: 768, lg: 1024 } as const;

export const mq = {
  md: `@media (min-width: ${breakpoints.md}px)`,
  lg: `@media (min-width: ${breakpoints.lg}px)`,
  belowMd: `@media (max-width: ${breakpoints.md - 0.02}px)`,
} as const;

export const space = {
  xs: "0.25rem",
  sm: "0.5rem",
  md: "1rem",
  lg: "1.5rem",
  xl: "2rem",
  xxl: "3rem",
  xxxl: "4.5rem",
} as const;

export const fonts = {
  body: `system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif`,
  heading: `"Georgia", "Cambria", "Times New Roman", serif`,
} as const;

export const fontSizes = {
  sm: "0.875rem",
  base: "1rem",
  lg: "1.125rem",
  xl: "1.25rem",
  h3: "1.25rem",
  h2: "clamp(1.625rem, 1.2rem + 1.6vw, 2.25rem)",
  h1: "clamp(2rem, 1.3rem + 3vw, 3.25rem)",
} as const;

export const radii = { sm: "4px", md: "8px", round: "999px" } as const;

export const layout = { maxWidth: "75rem", gutter: space.md, gutterMd: space.xl, headerHeight: "4.5rem" } as const;

export const shadows = {
  card: "0 1px 2px rgba(11, 31, 58, 0.08), 0 4px 12px rgba(11, 31, 58, 0.06)",
} as const;

/**
 * Two-tone focus ring: the dark inner ring shows on light backgrounds and the
 * gold outer ring on dark ones, so one rule serves every surface.
 */
export const focusRing = css`
  outline: 3px solid ${colors.focus};
  outline-offset: 2px;
  box-shadow: 0 0 0 2px ${colors.navy};
`;

export const visuallyHidden = css`
  position: absolute !important;
  width: 1px !important;
  height: 1px !important;
  padding: 0 !important;
  margin: -1px !important;
  overflow: hidden !important;
  clip: rect(0, 0, 0, 0) !important;
  white-space: nowrap !important;
  border: 0 !important;
`;

export const reducedMotion = "@media (prefers-reduced-motion: reduce)";

/** For site chrome (navigation, footer, skip link) that has no place on paper. */
export const printHidden = css`
  @media print {
    display: none !important;
  }
`;
