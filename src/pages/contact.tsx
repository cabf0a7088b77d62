import { graphql, type PageProps } from "gatsby";
import { pageHead } from "../components/layout/page-head";
import { InquiryPage } from "../components/inquiry/InquiryPage";
import { requireContent } from "../content-contract/require-content";

const ContactPage = ({ data, location }: PageProps<Queries.ContactPageQuery>) => (
  <InquiryPage
    copy={requireContent(data.sitePagesJson, "content/site-pages.json").contact}
    data={data}
    location={location}
  />
);

export default ContactPage;

export const Head = pageHead<Queries.ContactPageQuery>((data) => data.sitePagesJson?.contact.seo);

export const query = graphql`
  query ContactPage {
    sitePagesJson {
      contact {
        ...InquiryPageCopy
      }
    }
    ...InquiryFormData
  }
`;
