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
 * nears the viewport, holding its place meanwhile at the height it last had or, before it has ever been
 * shown, at this estimate. Its lazy images wait as well: under Lighthouse's emulated phone the home
 * page's agency logos, 2,244 px down at 412 px, were requested with its first paint, and the requests
 * lengthened the tasks around it (total blocking time in budgets.json's notes).
 *
 * Only for content on the page's white: until it is rendered nothing in it can be hit-tested, so axe
 * (Lighthouse's accessibility audit, and the scanners buyers run for Section 508) takes the page's
 * background for its background. Given to every band of the home page and the footer, the navy contact
 * panel and footer failed colour contrast that way (Lighthouse accessibility 100 -> 93).
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
