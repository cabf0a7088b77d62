import type { ReactNode } from "react";
import { useSiteData } from "../../hooks/use-site-data";
import { organizationJsonLd } from "../../seo/organization-jsonld";
import { colors } from "../../styles/theme";

interface SeoProps {
  title: string;
  description?: string | null;
  /** The page's path, for the canonical address. */
  pathname: string;
  /** A home page title stands alone; other titles are followed by the company name. */
  standaloneTitle?: boolean;
  /**
   * False for a page search engines must not list (the 404 page): it says noindex, and names no canonical
   * address, which would tell them the opposite.
   */
  indexable?: boolean;
  children?: ReactNode;
}

/** Everything in <head> for one page, through Gatsby's Head API. */
export const Seo = ({
  title,
  description,
  pathname,
  standaloneTitle = false,
  indexable = true,
  children,
}: SeoProps) => {
  const { company, procurement } = useSiteData();
  const fullTitle = standaloneTitle ? title : `${title} | ${company.name}`;
  const metaDescription = description ?? company.description;
  const url = `${company.siteUrl}${pathname}`;
  return (
    <>
      <html lang="en" />
      <title>{fullTitle}</title>
      <meta name="description" content={metaDescription} />
      {indexable ? <link rel="canonical" href={url} /> : <meta name="robots" content="noindex" />}
      <meta property="og:type" content="website" />
      <meta property="og:site_name" content={company.name} />
      <meta property="og:title" content={fullTitle} />
      <meta property="og:description" content={metaDescription} />
      {indexable ? <meta property="og:url" content={url} /> : null}
      <meta property="og:locale" content="en_US" />
      <meta name="twitter:card" content="summary" />
      <meta name="theme-color" content={colors.navy} />
      <script type="application/ld+json">{JSON.stringify(organizationJsonLd(company, procurement))}</script>
      {children}
    </>
  );
};
