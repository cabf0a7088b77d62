import { graphql, type PageProps } from "gatsby";
import { PageShell } from "../components/layout/PageShell";
import { pageHead } from "../components/layout/page-head";
import { RichText } from "../components/ui/RichText";
import { ContentSections } from "../components/sections/ContentSections";
import { CallToAction } from "../components/sections/CallToAction";
import { useSiteData } from "../hooks/use-site-data";
import { requireContent } from "../content-contract/require-content";

const ContentPageTemplate = ({ data, location }: PageProps<Queries.ContentPageQuery>) => {
  const page = requireContent(data.contentPageJson, "the page's file in content/pages/");
  const updatedLabel = requireContent(data.systemPagesJson, "content/system-pages.json").updatedLabel;
  const { company } = useSiteData();
  const inquiry = requireContent(data.inquiryJson, "content/inquiry.json");
  // The figures a text page may name ({inquiryRetentionMonths}), read from the files whose settings they are.
  const values = { inquiryRetentionMonths: String(inquiry.delivery.retention.deliveredMonths) };
  return (
    <PageShell
      currentPath={location.pathname}
      title={page.title}
      intro={<RichText text={page.intro} company={company} values={values} />}
      eyebrow={page.updated ? `${updatedLabel} ${page.updated}` : undefined}
    >
      <ContentSections sections={page.sections} company={company} values={values} />
      {page.cta ? <CallToAction {...page.cta} /> : null}
    </PageShell>
  );
};

export default ContentPageTemplate;

export const Head = pageHead<Queries.ContentPageQuery>((data) => data.contentPageJson?.seo);

export const query = graphql`
  query ContentPage($id: String!) {
    contentPageJson(id: { eq: $id }) {
      title
      updated(formatString: "MMMM D, YYYY")
      seo {
        title
        description
      }
      intro
      sections {
        heading
        icon
        paragraphs
        items
      }
      cta {
        heading
        text
        action {
          label
          to
        }
      }
    }
    systemPagesJson {
      updatedLabel
    }
    inquiryJson {
      delivery {
        retention {
          deliveredMonths
        }
      }
    }
  }
`;
