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
 * shown, at this estimate. Most of its lazy images wait as well: under Lighthouse's emulated phone the home
 * page's agency logos, 2,244 px down at 412 px, were requested with its first paint, and the requests
 * lengthened the tasks around it (total blocking time in budgets.json's notes); one of them (dod.png) still
 * is, for a reason not found.
 *
 * Only for dark text on white with white after it: until the band is rendered nothing in it can be
 * hit-tested, and axe (Lighthouse's accessibility audit, and the scanners buyers run for Section 508) judged
 * text lying past this estimate against the content after the band. Given to the home page's contact
 * section (1,668 px tall at 412 px), its contact details were judged against the footer's navy; given to the
 * footer as well, the footer's white text against white and light grey (Lighthouse accessibility 100 -> 93
 * at 412 px). With an estimate of 120rem, taller than the contact section at every width measured, it stayed
 * 100 (2026-11-24).
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
