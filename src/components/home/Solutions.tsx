import { css } from "@emotion/react";
import { colors, mq, radii, shadows, space } from "../../styles/theme";
import { Section } from "../ui/Section";
import { Icon } from "../ui/Icon";

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

const gridStyles = css`
  list-style: none;
  margin: 0;
  padding: 0;
  display: grid;
  gap: ${space.lg};
  ${mq.md} {
    grid-template-columns: repeat(2, minmax(0, 1fr));
  }
  ${mq.lg} {
    grid-template-columns: repeat(4, minmax(0, 1fr));
  }
`;

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

const iconStyles = css`
  display: inline-grid;
  place-items: center;
  width: 3.5rem;
  height: 3.5rem;
  border-radius: ${radii.round};
  background: ${colors.infoSurface};
  color: ${colors.blue};
`;

export const Solutions = ({ content }: { content: SolutionsContent }) => (
  <Section id="solutions" heading={content.heading} intro={content.intro} tone="tinted">
    <ul css={gridStyles}>
      {content.cards.map((card) => (
        <li key={card.title}>
          <article css={cardStyles}>
            <span css={iconStyles}>
              <Icon name={card.icon} size={28} />
            </span>
            <h3>{card.title}</h3>
            <p>{card.description}</p>
          </article>
        </li>
      ))}
    </ul>
  </Section>
);
