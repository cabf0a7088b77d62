/**
 * The form's choices that come from other content, as value/label options, for the page (from GraphQL)
 * and the function (from the JSON files) alike.
 */

/** The product categories (content/products/) as options of the category select. */
export const categoryOptions = (nodes: readonly { readonly slug: string; readonly shortTitle: string }[]) =>
  nodes.map((node) => ({ value: node.slug, label: node.shortTitle }));

/** The compliance marks (content/certifications.json) as the compliance checkboxes. */
export const complianceOptions = (items: readonly { readonly id: string; readonly name: string }[]) =>
  items.map((item) => ({ value: item.id, label: item.name }));
