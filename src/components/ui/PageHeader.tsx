import type { ReactNode } from "react";
import { css } from "@emotion/react";
import { colors, fontSizes, mq, space } from "../../styles/theme";
import { Container } from "./Container";

interface PageHeaderProps {
  title: string;
  intro?: ReactNode;
  /** Small text above the title, such as the section a page belongs to. */
  eyebrow?: ReactNode;
  children?: ReactNode;
}

const headerStyles = css`
  background: ${colors.navyMid};
  color: ${colors.white};
  padding: ${space.xxl} 0;
  ${mq.md} {
    padding: ${space.xxxl} 0 ${space.xxl};
  }
  h1 {
    color: ${colors.white};
    max-width: 48rem;
  }
  p {
    max-width: 48rem;
    margin: 0;
    font-size: ${fontSizes.lg};
    color: #e6ecf3;
  }
  a {
    color: ${colors.goldLight};
  }
`;

const eyebrowStyles = css`
  margin-bottom: ${space.sm} !important;
  font-size: ${fontSizes.sm} !important;
  text-transform: uppercase;
  letter-spacing: 0.08em;
  font-weight: 700;
`;

/** The title band that opens every page but the home page, with the page's one h1. */
export const PageHeader = ({ title, intro, eyebrow, children }: PageHeaderProps) => (
  <div css={headerStyles}>
    <Container>
      {eyebrow ? <p css={eyebrowStyles}>{eyebrow}</p> : null}
      <h1>{title}</h1>
      {intro ? <p>{intro}</p> : null}
      {children}
    </Container>
  </div>
);
