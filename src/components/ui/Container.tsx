import type { ReactNode } from "react";
import { css } from "@emotion/react";
import { layout, mq } from "../../styles/theme";

const containerStyles = css`
  width: 100%;
  max-width: ${layout.maxWidth};
  margin: 0 auto;
  padding: 0 ${layout.gutter};
  ${mq.md} {
    padding: 0 ${layout.gutterMd};
  }
`;

export const Container = ({ children, className }: { children: ReactNode; className?: string }) => (
  <div css={containerStyles} className={className}>
    {children}
  </div>
);
