import { css } from "@emotion/react";
import { colors, fontSizes, radii, space } from "../../styles/theme";

export interface CodeRow {
  readonly code: string;
  readonly title: string;
  readonly primary?: boolean | null;
}

const tableStyles = css`
  width: 100%;
  border-collapse: collapse;
  font-variant-numeric: tabular-nums;
  caption {
    text-align: left;
    font-weight: 700;
    margin-bottom: ${space.sm};
  }
  th,
  td {
    text-align: left;
    padding: ${space.sm} ${space.md};
    border-bottom: 1px solid ${colors.border};
    vertical-align: top;
  }
  thead th {
    background: ${colors.surface};
    color: ${colors.navy};
  }
  tbody th {
    white-space: nowrap;
  }
`;

const primaryStyles = css`
  margin-left: ${space.sm};
  padding: 0 0.5rem;
  border-radius: ${radii.round};
  background: ${colors.navy};
  color: ${colors.white};
  font-size: ${fontSizes.sm};
  font-weight: 700;
`;

/** Procurement codes (NAICS, PSC) with their titles. */
export const CodeTable = ({
  rows,
  headers,
  primaryLabel,
}: {
  rows: readonly CodeRow[];
  headers: { readonly code: string; readonly title: string };
  primaryLabel?: string;
}) => (
  <table css={tableStyles}>
    <thead>
      <tr>
        <th scope="col">{headers.code}</th>
        <th scope="col">{headers.title}</th>
      </tr>
    </thead>
    <tbody>
      {rows.map((row) => (
        <tr key={row.code}>
          <th scope="row">{row.code}</th>
          <td>
            {row.title}
            {row.primary && primaryLabel ? <span css={primaryStyles}>{primaryLabel}</span> : null}
          </td>
        </tr>
      ))}
    </tbody>
  </table>
);
