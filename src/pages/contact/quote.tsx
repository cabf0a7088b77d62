import { graphql, type PageProps } from "gatsby";
import { pageHead } from "../../components/layout/page-head";
import { InquiryPage } from "../../components/inquiry/InquiryPage";
import { requireContent } from "../../content-contract/require-content";

const QuoteRequestPage = ({ data, location }: PageProps<Queries.QuoteRequestPageQuery>) => (
  <InquiryPage
    copy={requireContent(data.sitePagesJson, "content/site-pages.json").quote}
    data={data}
    location={location}
    initialType={requireContent(data.inquiryJson, "content/inquiry.json").quoteType}
  />
);

export default QuoteRequestPage;

export const Head = pageHead<Queries.QuoteRequestPageQuery>((data) => data.sitePagesJson?.quote.seo);

export const query = graphql`
  query QuoteRequestPage {
    sitePagesJson {
      quote {
        ...InquiryPageCopy
      }
    }
    ...InquiryFormData
  }
`;
