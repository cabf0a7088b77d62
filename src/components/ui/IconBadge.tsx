import { css } from "@emotion/react";
import { colors, radii } from "../../styles/theme";
import { Icon } from "./Icon";

const badgeStyles = css`
  flex: 0 0 auto;
  display: inline-grid;
  place-items: center;
  width: 3.5rem;
  height: 3.5rem;
  border-radius: ${radii.round};
  background: ${colors.infoSurface};
  color: ${colors.blue};
`;

/** A content icon on a tinted disc, as on cards and section headings. */
export const IconBadge = ({ name, className }: { name: string; className?: string }) => (
  <span css={badgeStyles} className={className}>
    <Icon name={name} size={28} />
  </span>
);
