import type { ReactNode } from "react";
import { css } from "@emotion/react";
import { colors, fontSizes, mq, space } from "../../styles/theme";
import { Container } from "./Container";

interface SectionProps {
  /** Used for the section's anchor and to name it by its heading. */
  id: string;
  heading: string;
  intro?: string | null;
  tone?: "light" | "tinted";
  /** Rendered only as it nears the viewport (see renderedNearViewportStyles). */
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

/**
 * For a light band usually below the first screen: the browser styles, lays out and paints it only as it
 * nears the viewport, holding its place at the height it last had or at this estimate, so that its lazy
 * images are not requested with the first paint.
 *
 * Only for dark text on white with white after it: until the band is rendered nothing in it can be
 * hit-tested, and axe judges text lying past the estimate against the content after the band, which would
 * fail a band followed by a dark one (the footer) on contrast.
 */
const renderedNearViewportStyles = css`
  content-visibility: auto;
  contain-intrinsic-size: auto 40rem;
`;

/** A titled band of a page; the heading names the region for screen readers. */
export const Section = ({ id, heading, intro, tone = "light", renderedNearViewport, children }: SectionProps) => (
  <section
    id={id}
    aria-labelledby={`${id}-heading`}
    css={[sectionStyles(tone), renderedNearViewport && renderedNearViewportStyles]}
  >
    <Container>
      <header css={headerStyles}>
        <h2 id={`${id}-heading`}>{heading}</h2>
        {intro ? <p>{intro}</p> : null}
      </header>
      {children}
    </Container>
  </section>
);
