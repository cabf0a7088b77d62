import type { ReactNode } from "react";
import { css } from "@emotion/react";
import { GlobalStyles } from "../../styles/GlobalStyles";
import { useSiteData } from "../../hooks/use-site-data";
import { MAIN_CONTENT_ID } from "./SkipLink";
import { NavBar } from "./NavBar";
import { Footer } from "./Footer";

interface LayoutProps {
  /** The page's path, for the navigation's current-page marker. */
  currentPath: string;
  children: ReactNode;
}

const pageStyles = css`
  display: flex;
  flex-direction: column;
  min-height: 100vh;
  main {
    flex: 1 0 auto;
  }
  main:focus {
    outline: none;
  }
`;

export const Layout = ({ currentPath, children }: LayoutProps) => {
  const { company, navigation, procurement, buildYear } = useSiteData();
  return (
    <div css={pageStyles}>
      <GlobalStyles />
      <NavBar companyName={company.name} navigation={navigation} currentPath={currentPath} />
      <main id={MAIN_CONTENT_ID} tabIndex={-1}>
        {children}
      </main>
      <Footer company={company} footer={navigation.footer} procurement={procurement} buildYear={buildYear} />
    </div>
  );
};
