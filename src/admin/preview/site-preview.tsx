import { Component, type ComponentType, type ReactNode } from "react";
import type { PageProps } from "gatsby";
import HomePage from "../../pages/index";
import ContactPage from "../../pages/contact";
import CertificationsPage from "../../pages/certifications";
import ProductsPage from "../../pages/products";
import NotFoundPage from "../../pages/404";
import ProductCategoryTemplate from "../../templates/product-category";
import ContentPageTemplate from "../../templates/content-page";
import { PreviewQueryData } from "./gatsby-runtime";
import { queryData, type AssetUrl, type EditedContent, type QueryData } from "./query-data";
import type { PreviewContent } from "./preview-content-types";

/**
 * The preview of a content file: the site's own page that shows it, rendered from the page query's data
 * with the edited file in place of the repository's. Pages take only `data` and `location`; the rest of
 * Gatsby's page props (its router's) never reach the site's components.
 */
const pageProps = <Data,>(data: QueryData, pathname: string): PageProps<Data> =>
  ({ data, location: { pathname, search: "", hash: "" } }) as unknown as PageProps<Data>;

interface PreviewPage {
  /** The page's path on the site, for the menu's current item. */
  readonly pathname: (edited: EditedContent) => string;
  readonly render: (data: QueryData, pathname: string) => ReactNode;
}

const page = <Data,>(Page: ComponentType<PageProps<Data>>, pathname: PreviewPage["pathname"]): PreviewPage => ({
  pathname,
  render: (data, path) => <Page {...pageProps<Data>(data, path)} />,
});

const slugOf = (edited: EditedContent) =>
  typeof edited.data === "object" && edited.data !== null && "slug" in edited.data ? String(edited.data.slug) : "";

const home = page(HomePage, () => "/");
const contact = page(ContactPage, () => "/contact/");

/** The page each kind of content file is seen on: the menus and footer on every page, the home page's first. */
export const previewPages: Readonly<Record<string, PreviewPage>> = {
  home,
  agencies: home,
  navigation: home,
  // The company's details: in the footer and the contact panel beside the inquiry form.
  company: contact,
  inquiry: contact,
  certifications: page(CertificationsPage, () => "/certifications/"),
  "site-pages": page(ProductsPage, () => "/products/"),
  "system-pages": page(NotFoundPage, () => "/404/"),
  products: page(ProductCategoryTemplate, (edited) => `/products/${slugOf(edited)}/`),
  pages: page(ContentPageTemplate, (edited) => `/${slugOf(edited)}/`),
};

interface BoundaryProps {
  readonly data: QueryData;
  readonly children: ReactNode;
}

interface BoundaryState {
  readonly data: QueryData;
  readonly error: Error | null;
}

/**
 * A new entry is half filled while the editor types, and a page cannot render a section without its
 * heading: the preview says what is missing instead of going blank, and tries again on the next keystroke.
 */
class UnfinishedEntryBoundary extends Component<BoundaryProps, BoundaryState> {
  override state: BoundaryState = { data: this.props.data, error: null };

  static getDerivedStateFromError(error: unknown): Partial<BoundaryState> {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  static getDerivedStateFromProps(props: BoundaryProps, state: BoundaryState): Partial<BoundaryState> | null {
    return props.data === state.data ? null : { data: props.data, error: null };
  }

  override render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <p role="status" style={{ padding: "1rem", fontFamily: "sans-serif" }}>
        The preview shows this entry once its required fields are filled in ({error.message}).
      </p>
    );
  }
}

export interface SitePreviewProps {
  readonly content: PreviewContent;
  readonly edited: EditedContent;
  readonly assetUrl: AssetUrl;
}

/** The page that shows the edited file, as the site renders it. */
export const SitePreview = ({ content, edited, assetUrl }: SitePreviewProps) => {
  const preview = previewPages[edited.kind];
  if (!preview) return null;
  const data = queryData(content, edited, assetUrl);
  return (
    <PreviewQueryData.Provider value={data}>
      <UnfinishedEntryBoundary data={data}>{preview.render(data, preview.pathname(edited))}</UnfinishedEntryBoundary>
    </PreviewQueryData.Provider>
  );
};
