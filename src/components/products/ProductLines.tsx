import { useId } from "react";
import { css } from "@emotion/react";
import { colors, fontSizes, radii, space } from "../../styles/theme";
import { cardGrid } from "../ui/card-grid";

export interface ComplianceMarkContent {
  readonly id: string;
  readonly name: string;
  readonly description: string;
}

export interface ProductLineContent {
  readonly name: string;
  readonly description: string;
  readonly compliance: readonly string[];
}

const lineStyles = css`
  height: 100%;
  padding: ${space.lg};
  border: 1px solid ${colors.border};
  border-radius: ${radii.md};
  background: ${colors.white};
  h3 {
    margin-bottom: ${space.sm};
  }
  p {
    color: ${colors.muted};
  }
`;

const badgesStyles = css`
  display: flex;
  flex-wrap: wrap;
  gap: ${space.sm};
  list-style: none;
  margin: 0;
  padding: 0;
  li {
    padding: 0.125rem 0.625rem;
    border: 1px solid ${colors.blue};
    border-radius: ${radii.round};
    color: ${colors.blue};
    font-size: ${fontSizes.sm};
    font-weight: 700;
  }
`;

/** The product lines of a category, each with the compliance marks it can be supplied with. */
export const ProductLines = ({
  lines,
  marks,
  complianceLabel,
}: {
  lines: readonly ProductLineContent[];
  marks: readonly ComplianceMarkContent[];
  complianceLabel: string;
}) => {
  const nameOf = (id: string) => marks.find((mark) => mark.id === id)?.name ?? id;
  // Each line is an article named by its heading, so that a screen reader's list of articles tells them apart.
  const headingIds = useId();
  return (
    <ul css={cardGrid({ md: 2 })}>
      {lines.map((line, index) => (
        <li key={line.name}>
          <article css={lineStyles} aria-labelledby={`${headingIds}-${index}`}>
            <h3 id={`${headingIds}-${index}`}>{line.name}</h3>
            <p>{line.description}</p>
            {line.compliance.length > 0 ? (
              <ul css={badgesStyles} aria-label={`${complianceLabel}: ${line.name}`}>
                {line.compliance.map((id) => (
                  <li key={id}>{nameOf(id)}</li>
                ))}
              </ul>
            ) : null}
          </article>
        </li>
      ))}
    </ul>
  );
};

const marksStyles = css`
  display: grid;
  gap: ${space.md};
  margin: 0;
  dt {
    font-weight: 700;
    color: ${colors.navy};
  }
  dd {
    margin: 0;
    color: ${colors.muted};
  }
`;

/** What each compliance mark on the page means, for the buyer who must justify it. */
export const ComplianceMarks = ({ marks }: { marks: readonly ComplianceMarkContent[] }) => (
  <dl css={marksStyles}>
    {marks.map((mark) => (
      <div key={mark.id}>
        <dt>{mark.name}</dt>
        <dd>{mark.description}</dd>
      </div>
    ))}
  </dl>
);
