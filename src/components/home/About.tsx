import { css } from "@emotion/react";
import { fontSizes, space } from "../../styles/theme";
import { Section } from "../ui/Section";
import { ButtonLink } from "../ui/ButtonLink";

export interface AboutContent {
  readonly heading: string;
  readonly mission: string;
  readonly action: { readonly label: string; readonly to: string };
}

const missionStyles = css`
  max-width: 48rem;
  font-size: ${fontSizes.lg};
  margin-bottom: ${space.xl};
`;

export const About = ({ content }: { content: AboutContent }) => (
  <Section id="about" heading={content.heading} renderedNearViewport>
    <p css={missionStyles}>{content.mission}</p>
    <ButtonLink to={content.action.to} variant="secondary">
      {content.action.label}
    </ButtonLink>
  </Section>
);
