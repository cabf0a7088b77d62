import { css } from "@emotion/react";
import { colors, radii, shadows, space } from "../../styles/theme";
import { IconBadge } from "../ui/IconBadge";
import { cardGrid } from "../ui/card-grid";
import { SmartLink } from "../ui/SmartLink";

export interface CategoryCardContent {
  readonly slug: string;
  readonly title: string;
  readonly summary: string;
  readonly icon: string;
}

const cardStyles = css`
  position: relative;
  height: 100%;
  display: flex;
  flex-direction: column;
  gap: ${space.sm};
  padding: ${space.lg};
  border: 1px solid ${colors.border};
  border-top: 4px solid ${colors.blue};
  border-radius: ${radii.md};
  box-shadow: ${shadows.card};
  background: ${colors.white};
  p {
    color: ${colors.muted};
    flex: 1;
  }
  a {
    font-weight: 700;
  }
  /* The whole card is the link's target area; the link text stays the accessible name. */
  a::after {
    content: "";
    position: absolute;
    inset: 0;
  }
  &:hover {
    border-color: ${colors.blue};
  }
`;

/** The product categories as cards, each leading to its page. */
export const CategoryCards = ({
  categories,
  actionLabel,
}: {
  categories: readonly CategoryCardContent[];
  /** "View {title}" — the category's title replaces {title}. */
  actionLabel: string;
}) => (
  <ul css={cardGrid({ md: 2 })}>
    {categories.map((category) => (
      <li key={category.slug}>
        {/* Named by its heading, as every card that is an article is. */}
        <article css={cardStyles} aria-labelledby={`category-${category.slug}`}>
          <IconBadge name={category.icon} />
          <h2
            id={`category-${category.slug}`}
            css={css`
              font-size: 1.375rem;
              margin: 0;
            `}
          >
            {category.title}
          </h2>
          <p>{category.summary}</p>
          <SmartLink to={`/products/${category.slug}/`}>{actionLabel.replace("{title}", category.title)}</SmartLink>
        </article>
      </li>
    ))}
  </ul>
);
