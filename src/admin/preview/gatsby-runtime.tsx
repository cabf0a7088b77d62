import { createContext, useContext, type AnchorHTMLAttributes, type MouseEvent, type ReactNode } from "react";
import type { QueryData } from "./query-data";

/**
 * What the site's components import from "gatsby", for the editing screen's preview bundle (build-preview.ts
 * puts this module where "gatsby" is imported). The previews have no Gatsby runtime: the queries' data comes
 * from the content (query-data.ts) and a link goes nowhere, since following it would take the preview
 * frame away from the entry being edited.
 */

/** The query data of the page being previewed, which the site-wide static query reads too. */
export const PreviewQueryData = createContext<QueryData>({});

/**
 * The page modules declare their queries with this tag at load; Gatsby's compiler removes those calls
 * from the site's pages, and the previews build the data themselves, so here it returns nothing.
 */
export const graphql = (): void => undefined;

/** The site's one static query (src/hooks/use-site-data.ts) reads the root fields it names from the preview's data. */
export const useStaticQuery = (): QueryData => useContext(PreviewQueryData);

interface PreviewLinkProps extends AnchorHTMLAttributes<HTMLAnchorElement> {
  readonly to: string;
  readonly children?: ReactNode;
}

const stayOnEntry = (event: MouseEvent<HTMLAnchorElement>) => event.preventDefault();

/** Gatsby's Link as the anchor it renders, which does not navigate. */
export const Link = ({ to, children, ...rest }: PreviewLinkProps) => (
  <a href={to} {...rest} onClick={stayOnEntry}>
    {children}
  </a>
);
