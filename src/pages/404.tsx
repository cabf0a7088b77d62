import { useEffect } from "react";
import { graphql, type HeadFC, type PageProps } from "gatsby";
import { css } from "@emotion/react";
import { Layout } from "../components/layout/Layout";
import { Seo } from "../components/layout/Seo";
import { Container } from "../components/ui/Container";
import { useNeedsBrowser } from "../components/browser/needs-browser";
import { ButtonLink } from "../components/ui/ButtonLink";
import { requireContent } from "../content-contract/require-content";
import { colors, space } from "../styles/theme";

const notFoundStyles = css`
  padding: ${space.xxxl} 0;
  text-align: center;
  h1 {
    font-size: clamp(4rem, 3rem + 6vw, 7rem);
    color: ${colors.blue};
    margin-bottom: ${space.sm};
  }
  p {
    font-size: 1.25rem;
    margin-bottom: ${space.xl};
  }
`;

const NotFoundPage = ({ data, location }: PageProps<Queries.NotFoundPageQuery>) => {
  const text = requireContent(data.systemPagesJson, "content/system-pages.json").notFound;

  // Written to the console log (the spec's word; a missing page is no fault of the page) so that a broken
  // link shows up in the browser console and in monitoring: by script.
  useNeedsBrowser("not-found report");
  useEffect(() => {
    console.log(text.consoleMessage.replace("{path}", location.pathname));
  }, [location.pathname, text.consoleMessage]);

  return (
    <Layout currentPath={location.pathname}>
      <Container>
        <div css={notFoundStyles}>
          <h1>{text.heading}</h1>
          <p>{text.text}</p>
          <ButtonLink to="/" variant="secondary">
            {text.homeLabel}
          </ButtonLink>
        </div>
      </Container>
    </Layout>
  );
};

export default NotFoundPage;

export const Head: HeadFC<Queries.NotFoundPageQuery> = ({ data, location }) => (
  <Seo title={data.systemPagesJson?.notFound.seoTitle ?? ""} pathname={location.pathname} indexable={false} />
);

export const query = graphql`
  query NotFoundPage {
    systemPagesJson {
      notFound {
        seoTitle
        heading
        text
        homeLabel
        consoleMessage
      }
    }
  }
`;
