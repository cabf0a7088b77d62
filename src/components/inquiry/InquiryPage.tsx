import { PageShell } from "../layout/PageShell";
import { ContactPanel } from "./ContactPanel";
import { useSiteData } from "../../hooks/use-site-data";
import { inquiryFormProps } from "../../fragments/inquiry-form";
import { requestFromSearch } from "../../inquiry/protocol";

interface InquiryPageProps {
  copy: { readonly heading: string; readonly intro: string };
  data: Queries.InquiryFormDataFragment;
  location: { readonly pathname: string; readonly search: string };
  /**
   * The inquiry type the form starts with in the page's HTML. The quote page starts as a quote, so its
   * extra fields are in the HTML (and work without JavaScript) instead of appearing after hydration.
   */
  initialType?: string;
}

/** The contact page and the quote request page: the inquiry form beside the contact details. */
export const InquiryPage = ({ copy, data, location, initialType }: InquiryPageProps) => {
  const { company } = useSiteData();
  return (
    <PageShell currentPath={location.pathname} title={copy.heading} intro={copy.intro}>
      <ContactPanel
        {...inquiryFormProps(data)}
        company={company}
        requested={requestFromSearch(location.search)}
        initialType={initialType}
        headingLevel={2}
      />
    </PageShell>
  );
};
