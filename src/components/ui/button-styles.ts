import { css } from "@emotion/react";
import { colors, radii } from "../../styles/theme";

export type ButtonVariant = "primary" | "secondary" | "onDark";

const base = css`
  display: inline-flex;
  align-items: center;
  justify-content: center;
  gap: 0.5rem;
  min-height: 2.75rem;
  padding: 0.625rem 1.25rem;
  border: 2px solid transparent;
  border-radius: ${radii.sm};
  font-weight: 700;
  line-height: 1.2;
  text-align: center;
  text-decoration: none;
  cursor: pointer;
  transition:
    background-color 0.15s ease,
    color 0.15s ease,
    border-color 0.15s ease;
  &:disabled,
  &[aria-disabled="true"] {
    cursor: not-allowed;
    opacity: 0.6;
  }
`;

const variants: Record<ButtonVariant, ReturnType<typeof css>> = {
  primary: css`
    background: ${colors.gold};
    color: ${colors.navy};
    &:hover {
      background: ${colors.goldLight};
      color: ${colors.navy};
    }
  `,
  secondary: css`
    background: ${colors.blue};
    color: ${colors.white};
    &:hover {
      background: ${colors.blueDark};
      color: ${colors.white};
    }
  `,
  onDark: css`
    background: transparent;
    color: ${colors.white};
    border-color: ${colors.white};
    &:hover {
      background: ${colors.white};
      color: ${colors.navy};
    }
  `,
};

export const buttonStyles = (variant: ButtonVariant) => [base, variants[variant]];
