import { graphql } from "gatsby";

/** The procurement facts shared by the certifications page and the capability statement. */
export const procurementFactsFragment = graphql`
  fragment ProcurementFacts on CertificationsJson {
    identifiers {
      heading
      uei
      cage
      samStatus
      stateVendorNumber
    }
    identifierLabels {
      uei
      cage
      samStatus
      stateVendorNumber
    }
    tableHeaders {
      code
      title
    }
    naics {
      heading
      primaryLabel
      codes {
        code
        title
        primary
      }
    }
    psc {
      heading
      codes {
        code
        title
      }
    }
    contractVehicles {
      heading
      items {
        name
        detail
        description
      }
    }
    smallBusiness {
      heading
      items {
        name
        detail
      }
    }
    compliance {
      heading
      items {
        id
        name
        description
      }
    }
  }
`;
