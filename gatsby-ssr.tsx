import type { GatsbySSR } from "gatsby";

export { wrapPageElement } from "./src/wrap-page-element";

/** Declared here as well as in each page's Head so that no page, not even a failing one, lacks it. */
export const onRenderBody: GatsbySSR["onRenderBody"] = ({ setHtmlAttributes }) => {
  setHtmlAttributes({ lang: "en" });
};
