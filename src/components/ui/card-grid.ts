import { css } from "@emotion/react";
import { mq, space } from "../../styles/theme";

/** A reset list laid out as a grid of cards: one column on phones, then `md` and `lg` columns. */
export const cardGrid = ({ md = 2, lg = md, gap = space.lg }: { md?: number; lg?: number; gap?: string }) => css`
  list-style: none;
  margin: 0;
  padding: 0;
  display: grid;
  gap: ${gap};
  ${mq.md} {
    grid-template-columns: repeat(${md}, minmax(0, 1fr));
  }
  ${mq.lg} {
    grid-template-columns: repeat(${lg}, minmax(0, 1fr));
  }
`;
