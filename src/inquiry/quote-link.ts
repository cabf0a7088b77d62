/** The contact page with the form opened as a quote request, optionally for one product category. */
export const quoteRequestPath = (quoteType: string, category?: string): string => {
  const params = new URLSearchParams({ type: quoteType });
  if (category) params.set("category", category);
  return `/contact/?${params.toString()}`;
};
