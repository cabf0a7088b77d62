import { css } from "@emotion/react";
import { colors, radii, shadows, space } from "../../styles/theme";
import { Section } from "../ui/Section";
import { IconBadge } from "../ui/IconBadge";
import { cardGrid } from "../ui/card-grid";

export interface SolutionCardContent {
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

export const Solutions = ({ content }: { content: SolutionsContent }) => (
  <Section id="solutions" heading={content.heading} intro={content.intro} tone="tinted">
    <ul css={cardGrid({ md: 2, lg: 4 })}>
      {content.cards.map((card) => (
        <li key={card.title}>
          <article css={cardStyles}>
            <IconBadge name={card.icon} />
            <h3>{card.title}</h3>
            <p>{card.description}</p>
          </article>
        </li>
      ))}
    </ul>
  </Section>
);
