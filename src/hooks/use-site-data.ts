import { graphql, useStaticQuery } from "gatsby";
import { requireContent } from "../content-contract/require-content";

/** Site-wide content for the layout, head and error screen: one query, one place. */
export const useSiteData = () => {
  const data = useStaticQuery<Queries.SiteDataQuery>(graphql`
    query SiteData {
      site {
        buildYear: buildTime(formatString: "YYYY")
      }
      companyJson {
        name
        legalName
        tagline
        description
        siteUrl
        contact {
          address {
            street
            locality
            region
            postalCode
            country
          }
          phone {
            display
            tel
          }
          email
        }
        contactLabels {
          address
          phone
          email
          hours
        }
        hours {
          display
          days
          opens
          closes
          timeZone
        }
      }
      certificationsJson {
        identifiers {
          uei
          cage
        }
        identifierLabels {
          uei
          cage
        }
        naics {
          heading
          codes {
            code
            primary
          }
        }
      }
      navigationJson {
        skipLinkLabel
        primaryLabel
        menuLabel
        main {
          label
          to
        }
        quoteAction {
          label
          to
        }
        footer {
          label
          columns {
            heading
            links {
              label
              to
            }
          }
          contactHeading
          rightsNotice
        }
      }
      systemPagesJson {
        error {
          title
          intro
          homeLabel
        }
      }
    }
  `);

  return {
    buildYear: Number(requireContent(data.site?.buildYear, "build time")),
    company: requireContent(data.companyJson, "content/company.json"),
    navigation: requireContent(data.navigationJson, "content/navigation.json"),
    procurement: requireContent(data.certificationsJson, "content/certifications.json"),
    errorScreen: requireContent(data.systemPagesJson, "content/system-pages.json").error,
  };
};

type SiteData = ReturnType<typeof useSiteData>;
export type Company = SiteData["company"];
export type Navigation = SiteData["navigation"];
export type Procurement = SiteData["procurement"];
