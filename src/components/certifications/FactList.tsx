import { css } from "@emotion/react";
import { colors, mq, space } from "../../styles/theme";

export interface Fact {
  readonly label: string;
  readonly value: string;
}

const listStyles = css`
  display: grid;
  gap: ${space.sm} ${space.lg};
  margin: 0;
  ${mq.md} {
    grid-template-columns: max-content minmax(0, 1fr);
  }
  dt {
    font-weight: 700;
    color: ${colors.navy};
  }
  dd {
    margin: 0 0 ${space.sm};
    font-variant-numeric: tabular-nums;
    ${mq.md} {
      margin: 0;
    }
  }
`;

/** Labelled facts (identifiers, registrations): a definition list, read in pairs by screen readers. */
export const FactList = ({ facts }: { facts: readonly Fact[] }) => (
  <dl css={listStyles}>
    {facts.map((fact) => (
      <div
        key={fact.label}
        css={css`
          display: contents;
        `}
      >
        <dt>{fact.label}</dt>
        <dd>{fact.value}</dd>
      </div>
    ))}
  </dl>
);
