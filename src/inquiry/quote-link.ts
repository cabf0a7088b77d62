/** The quote request page, optionally with the form opened for one product category. */
export const quoteRequestPath = (category?: string): string =>
  category ? `/contact/quote/?${new URLSearchParams({ category }).toString()}` : "/contact/quote/";
