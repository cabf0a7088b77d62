import { graphql, type PageProps } from "gatsby";
import { PageShell } from "../components/layout/PageShell";
import { pageHead } from "../components/layout/page-head";
import { ContactPanel } from "../components/inquiry/ContactPanel";
import { useSiteData } from "../hooks/use-site-data";
import { requireContent } from "../content/require-content";
import { categoryOptions, complianceOptions, requestFromSearch } from "../inquiry/request-from-search";

const ContactPage = ({ data, location }: PageProps<Queries.ContactPageQuery>) => {
  const copy = requireContent(data.sitePagesJson, "content/site-pages.json").contact;
  const form = requireContent(data.inquiryJson, "content/inquiry.json");
  const { company } = useSiteData();
  return (
    <PageShell currentPath={location.pathname} title={copy.heading} intro={copy.intro}>
      <ContactPanel
        form={form}
        categories={categoryOptions(data.allProductCategoryJson.nodes)}
        complianceOptions={complianceOptions(
          requireContent(data.certificationsJson, "content/certifications.json").compliance.items,
        )}
        company={company}
        requested={requestFromSearch(location.search)}
        headingLevel={2}
      />
    </PageShell>
  );
};

export default ContactPage;

export const Head = pageHead<Queries.ContactPageQuery>((data) => data.sitePagesJson?.contact.seo);

export const query = graphql`
  query ContactPage {
    sitePagesJson {
      contact {
        seo {
          title
          description
        }
        heading
        intro
      }
    }
    inquiryJson {
      ...InquiryFormContent
    }
    allProductCategoryJson(sort: { order: ASC }) {
      ...ProductCategoryOptions
    }
    certificationsJson {
      ...InquiryComplianceOptions
    }
  }
`;
