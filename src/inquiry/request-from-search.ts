/** What a link asked the inquiry form for, read from the page address (?type=quote&category=tactical). */
export const requestFromSearch = (search: string) => {
  const params = new URLSearchParams(search);
  return { type: params.get("type"), category: params.get("category") };
};

/** The product categories as options of the form's category select. */
export const categoryOptions = (nodes: readonly { readonly slug: string; readonly shortTitle: string }[]) =>
  nodes.map((node) => ({ value: node.slug, label: node.shortTitle }));

/** The compliance marks (content/certifications.json) as the form's compliance checkboxes. */
export const complianceOptions = (items: readonly { readonly id: string; readonly name: string }[]) =>
  items.map((item) => ({ value: item.id, label: item.name }));
