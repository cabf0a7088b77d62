import type { ReactNode } from "react";
import { css } from "@emotion/react";
import { space } from "../../styles/theme";
import { Layout } from "./Layout";
import { PageHeader } from "../ui/PageHeader";
import { Container } from "../ui/Container";

interface PageShellProps {
  currentPath: string;
  title: string;
  intro?: ReactNode;
  eyebrow?: ReactNode;
  children: ReactNode;
}

const bodyStyles = css`
  padding: ${space.xxl} 0 ${space.xxxl};
  display: grid;
  gap: ${space.xxl};
  h2 {
    margin-bottom: ${space.lg};
  }
`;

/** Every page but the home page: the site layout, the title band with the h1, and the page's sections below. */
export const PageShell = ({ currentPath, title, intro, eyebrow, children }: PageShellProps) => (
  <Layout currentPath={currentPath}>
    <PageHeader title={title} intro={intro} eyebrow={eyebrow} />
    <Container>
      <div css={bodyStyles}>{children}</div>
    </Container>
  </Layout>
);
