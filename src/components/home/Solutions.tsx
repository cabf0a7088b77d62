import { useId } from "react";
import { css } from "@emotion/react";
import { colors, radii, shadows, space } from "../../styles/theme";
import { Section } from "../ui/Section";
import { IconBadge } from "../ui/IconBadge";
import { cardGrid } from "../ui/card-grid";

interface SolutionCardContent {
  readonly title: string;
  readonly description: string;
  readonly icon: string;
}

export interface SolutionsContent {
  readonly heading: string;
  readonly intro: string;
  readonly cards: readonly SolutionCardContent[];
}

const cardStyles = css`
  height: 100%;
  padding: ${space.lg};
  background: ${colors.white};
  border: 1px solid ${colors.border};
  border-top: 4px solid ${colors.blue};
  border-radius: ${radii.md};
  box-shadow: ${shadows.card};
  h3 {
    margin: ${space.md} 0 ${space.sm};
  }
  p {
    margin: 0;
    color: ${colors.muted};
  }
`;

/** Each card is an article named by its heading, so that a screen reader's list of articles tells them apart. */
export const Solutions = ({ content }: { content: SolutionsContent }) => {
  const headingIds = useId();
  return (
    <Section id="solutions" heading={content.heading} intro={content.intro} tone="tinted">
      <ul css={cardGrid({ md: 2, lg: 4 })}>
        {content.cards.map((card, index) => (
          <li key={card.title}>
            <article css={cardStyles} aria-labelledby={`${headingIds}-${index}`}>
              <IconBadge name={card.icon} />
              <h3 id={`${headingIds}-${index}`}>{card.title}</h3>
              <p>{card.description}</p>
            </article>
          </li>
        ))}
      </ul>
    </Section>
  );
};
