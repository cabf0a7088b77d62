import { graphql, useStaticQuery } from "gatsby";

const required = <T>(value: T | null | undefined, what: string): T => {
  if (value == null) throw new Error(`Site content is missing: ${what}`);
  return value;
};

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
    buildYear: Number(required(data.site?.buildYear, "build time")),
    company: required(data.companyJson, "content/company.json"),
    navigation: required(data.navigationJson, "content/navigation.json"),
    procurement: required(data.certificationsJson, "content/certifications.json"),
    errorScreen: required(data.systemPagesJson, "content/system-pages.json").error,
  };
};

export type SiteData = ReturnType<typeof useSiteData>;
export type Company = SiteData["company"];
export type Navigation = SiteData["navigation"];
export type Procurement = SiteData["procurement"];
