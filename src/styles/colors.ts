/**
 * Design tokens: colours. Every colour pair used for text is at least 4.5:1; the muted grey and
 * the link blue were chosen for that on white and on the light surface. Kept apart from the rest
 * of the theme, which needs emotion, so the inquiry function styles its pages without bundling React.
 */
export const colors = {
  navy: "#0b1f3a",
  navyMid: "#14305a",
  blue: "#1a4480",
  blueDark: "#162e51",
  gold: "#f2c14e",
  goldLight: "#ffd979",
  text: "#1b1b1b",
  muted: "#46515f",
  surface: "#f3f5f8",
  border: "#c9d1dc",
  white: "#ffffff",
  error: "#b3261e",
  errorSurface: "#fdf1f0",
  info: "#0d4f8b",
  infoSurface: "#eef5fb",
  focus: "#ffbf47",
} as const;
