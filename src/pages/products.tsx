import { graphql, type PageProps } from "gatsby";
import { PageShell } from "../components/layout/PageShell";
import { pageHead } from "../components/layout/page-head";
import { CategoryCards } from "../components/products/CategoryCards";
import { requireContent } from "../content-contract/require-content";

const ProductsPage = ({ data, location }: PageProps<Queries.ProductsPageQuery>) => {
  const copy = requireContent(data.sitePagesJson, "content/site-pages.json").products;
  return (
    <PageShell currentPath={location.pathname} title={copy.heading} intro={copy.intro}>
      <CategoryCards categories={data.allProductCategoryJson.nodes} actionLabel={copy.cardActionLabel} />
    </PageShell>
  );
};

export default ProductsPage;

export const Head = pageHead<Queries.ProductsPageQuery>((data) => data.sitePagesJson?.products.seo);

export const query = graphql`
  query ProductsPage {
    sitePagesJson {
      products {
        seo {
          title
          description
        }
        heading
        intro
        cardActionLabel
      }
    }
    allProductCategoryJson(sort: { order: ASC }) {
      nodes {
        slug
        title
        summary
        icon
      }
    }
  }
`;
