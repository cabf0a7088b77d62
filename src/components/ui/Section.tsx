import type { ReactNode } from "react";
import { css } from "@emotion/react";
import { colors, fontSizes, mq, renderedNearViewport, space } from "../../styles/theme";
import { Container } from "./Container";

interface SectionProps {
  /** Used for the section's anchor and to name it by its heading. */
  id: string;
  heading: string;
  intro?: string | null;
  tone?: "light" | "tinted";
  /** Rendered only as it nears the viewport (see renderedNearViewport): for a light band below the first screen. */
  renderedNearViewport?: boolean;
  children: ReactNode;
}

const sectionStyles = (tone: SectionProps["tone"]) => css`
  padding: ${space.xxl} 0;
  background: ${tone === "tinted" ? colors.surface : colors.white};
  ${mq.md} {
    padding: ${space.xxxl} 0;
  }
`;

const headerStyles = css`
  max-width: 48rem;
  margin-bottom: ${space.xl};
  p {
    color: ${colors.muted};
    font-size: ${fontSizes.lg};
    margin: 0;
  }
`;

/** A titled band of a page; the heading names the region for screen readers. */
export const Section = ({
  id,
  heading,
  intro,
  tone = "light",
  renderedNearViewport: deferred,
  children,
}: SectionProps) => (
  <section id={id} aria-labelledby={`${id}-heading`} css={[sectionStyles(tone), deferred && renderedNearViewport]}>
    <Container>
      <header css={headerStyles}>
        <h2 id={`${id}-heading`}>{heading}</h2>
        {intro ? <p>{intro}</p> : null}
      </header>
      {children}
    </Container>
  </section>
);
