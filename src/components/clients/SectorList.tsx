import { css } from "@emotion/react";
import { colors, radii, space } from "../../styles/theme";
import { cardGrid } from "../ui/card-grid";
import { Icon } from "../ui/Icon";

export interface SectorContent {
  readonly name: string;
  readonly description: string;
  readonly icon: string;
}

const itemStyles = css`
  li {
    display: grid;
    grid-template-columns: 3rem minmax(0, 1fr);
    gap: ${space.md};
    padding: ${space.lg};
    border: 1px solid ${colors.border};
    border-radius: ${radii.md};
  }
  h3 {
    font-size: 1.125rem;
    margin-bottom: ${space.xs};
  }
  p {
    margin: 0;
    color: ${colors.muted};
  }
  svg {
    color: ${colors.blue};
  }
`;

/** The kinds of buyers served, each with an icon and a line on what they buy. */
export const SectorList = ({ sectors }: { sectors: readonly SectorContent[] }) => (
  <ul css={[cardGrid({ md: 2, lg: 3 }), itemStyles]}>
    {sectors.map((sector) => (
      <li key={sector.name}>
        <Icon name={sector.icon} size={32} />
        <div>
          <h3>{sector.name}</h3>
          <p>{sector.description}</p>
        </div>
      </li>
    ))}
  </ul>
);
