import type { HeadFC } from "gatsby";
import { Seo } from "./Seo";

interface PageSeo {
  readonly title: string;
  readonly description: string;
}

/** A page's Head export from the seo block its query returns. */
export const pageHead = <Data,>(select: (data: Data) => PageSeo | null | undefined): HeadFC<Data> => {
  const PageHead: HeadFC<Data> = ({ data, location }) => {
    const seo = select(data);
    return <Seo title={seo?.title ?? ""} description={seo?.description} pathname={location.pathname} />;
  };
  return PageHead;
};
