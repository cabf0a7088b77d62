import { graphql } from "gatsby";

/** The product categories as the inquiry form offers them. */
export const productCategoryOptionsFragment = graphql`
  fragment ProductCategoryOptions on ProductCategoryJsonConnection {
    nodes {
      slug
      shortTitle
    }
  }
`;
