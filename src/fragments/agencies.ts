import { graphql } from "gatsby";

/** The agency list as the carousel and the clients page show it. */
export const agencyListFragment = graphql`
  fragment AgencyList on AgenciesJson {
    disclaimer
    agencies {
      name
      logo
      logoFile {
        publicURL
      }
      alt
      showLogo
    }
  }
`;
