import { css } from "@emotion/react";
import type { IGatsbyImageData } from "gatsby-plugin-image";
import { PriorityImage } from "../ui/PriorityImage";
import { colors, fontSizes, mq, space } from "../../styles/theme";
import { Container } from "../ui/Container";
import { ButtonLink } from "../ui/ButtonLink";

interface HeroAction {
  readonly label: string;
  readonly to: string;
}

interface HeroContent {
  readonly headline: string;
  readonly text: string;
  readonly imageAlt: string;
  readonly primaryAction: HeroAction;
  readonly secondaryAction: HeroAction;
}

interface HeroProps {
  content: HeroContent;
  image: IGatsbyImageData | undefined;
}

/**
 * The hero's height comes from its content and padding, not from a min-height that centres the content:
 * on a slow connection a browser paints the page while its HTML is still arriving, and centred content
 * moved up as its last lines arrived (CLS 0.011 to 0.024 at 375, 800 and 1280 px with the HTML sent in
 * two parts). With the content at a fixed distance from the top, what arrives later only adds below it.
 */
const heroStyles = css`
  position: relative;
  isolation: isolate;
  background: ${colors.navy};
  color: ${colors.white};
  overflow: hidden;
`;

const imageStyles = css`
  position: absolute;
  inset: 0;
  z-index: -2;
  width: 100%;
  height: 100%;
  object-fit: cover;
`;

/**
 * The overlay is dark enough that white text stays above 4.5:1 on the
 * lightest part of any photo an editor might choose, not just this one.
 */
const overlayStyles = css`
  position: absolute;
  inset: 0;
  z-index: -1;
  background: linear-gradient(
    100deg,
    rgba(11, 31, 58, 0.92) 0%,
    rgba(11, 31, 58, 0.82) 55%,
    rgba(11, 31, 58, 0.7) 100%
  );
`;

const contentStyles = css`
  padding: ${space.xxl} 0;
  max-width: 44rem;
  ${mq.md} {
    padding: 7.5rem 0;
  }
  h1 {
    color: ${colors.white};
    margin-bottom: ${space.md};
  }
  p {
    font-size: ${fontSizes.lg};
    color: #eef2f7;
    margin-bottom: ${space.xl};
    ${mq.md} {
      font-size: ${fontSizes.xl};
    }
  }
`;

const actionsStyles = css`
  display: flex;
  flex-wrap: wrap;
  gap: ${space.md};
`;

export const Hero = ({ content, image }: HeroProps) => (
  <section css={heroStyles} aria-labelledby="hero-heading">
    {image ? <PriorityImage image={image} alt={content.imageAlt} css={imageStyles} /> : null}
    <div css={overlayStyles} aria-hidden="true" />
    <Container>
      <div css={contentStyles}>
        <h1 id="hero-heading">{content.headline}</h1>
        <p>{content.text}</p>
        <div css={actionsStyles}>
          <ButtonLink to={content.primaryAction.to} variant="primary">
            {content.primaryAction.label}
          </ButtonLink>
          <ButtonLink to={content.secondaryAction.to} variant="onDark">
            {content.secondaryAction.label}
          </ButtonLink>
        </div>
      </div>
    </Container>
  </section>
);
