import { css } from "@emotion/react";
import { colors, mq, radii, space } from "../../styles/theme";
import { cardGrid } from "../ui/card-grid";

export interface DetailItem {
  readonly name: string;
  readonly detail: string;
  readonly description?: string | null;
}

const itemStyles = css`
  ${mq.lg} {
    grid-template-columns: repeat(auto-fit, minmax(18rem, 1fr));
  }
  li {
    padding: ${space.lg};
    border: 1px solid ${colors.border};
    border-left: 4px solid ${colors.blue};
    border-radius: ${radii.sm};
  }
  h3 {
    font-size: 1.125rem;
    margin-bottom: ${space.xs};
  }
  p {
    margin: 0 0 ${space.xs};
  }
  p + p {
    color: ${colors.muted};
  }
`;

/** Named entries with a detail line and an optional description: contract vehicles, certifications. */
export const DetailList = ({ items }: { items: readonly DetailItem[] }) => (
  <ul css={[cardGrid({ md: 1, gap: space.md }), itemStyles]}>
    {items.map((item) => (
      <li key={item.name}>
        <h3>{item.name}</h3>
        <p>{item.detail}</p>
        {item.description ? <p>{item.description}</p> : null}
      </li>
    ))}
  </ul>
);
