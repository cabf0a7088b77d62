import { css } from "@emotion/react";
import { colors, radii, space } from "../../styles/theme";
import { ButtonLink } from "../ui/ButtonLink";

interface CallToActionProps {
  heading: string;
  text: string;
  action: { readonly label: string; readonly to: string };
}

const ctaStyles = css`
  padding: ${space.xl};
  background: ${colors.surface};
  border-left: 6px solid ${colors.gold};
  border-radius: ${radii.md};
  h2 {
    font-size: 1.5rem;
  }
  p {
    max-width: 44rem;
  }
`;

/** The closing prompt of a page: what to do next, and the link that does it. */
export const CallToAction = ({ heading, text, action }: CallToActionProps) => (
  <aside css={ctaStyles} aria-labelledby="cta-heading">
    <h2 id="cta-heading">{heading}</h2>
    <p>{text}</p>
    <ButtonLink to={action.to} variant="secondary">
      {action.label}
    </ButtonLink>
  </aside>
);
