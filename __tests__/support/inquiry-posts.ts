/** Inquiries as the form posts them, and the two ways it posts them, for the tests of the server. */

/** A general question the rules accept, with a fill time well past the minimum. */
export const validInquiry = {
  fullName: "Pat Buyer",
  organization: "Wake County Sheriff's Office",
  email: "pat.buyer@wake.example.gov",
  phone: "(919) 555-0100",
  inquiryType: "general",
  message: "We need forty duty shirts before the spring academy.",
  fill_ms: 12_000,
};

/** A quote request with every quote field filled in. */
export const quoteInquiry = {
  ...validInquiry,
  inquiryType: "quote",
  productCategory: "uniforms",
  quantities: "40 duty shirts: 10 S, 20 M, 10 L",
  needBy: "2099-03-31",
  shipToState: "NC",
  buyingMethod: "purchase-card",
  compliance: ["berry", "taa"],
};

/** What a visitor wrote in a quote request, none of which may reach a log line. */
export const visitorsAnswers: readonly string[] = [
  quoteInquiry.fullName,
  quoteInquiry.email,
  quoteInquiry.phone,
  quoteInquiry.organization,
  quoteInquiry.message,
  quoteInquiry.quantities,
];

/** How a test reaches the server: fetch over a socket, or the same shape over app.inject() (inquiry-app.ts). */
export type Send = (url: string, init?: RequestInit) => Promise<Response>;

/** Posts a JSON body, as the form does with JavaScript. */
export const postJson = (url: string, body: unknown, send: Send = fetch) =>
  send(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

/** Posts a urlencoded body, as the form does without JavaScript; a list repeats its name. */
export const postForm = (url: string, body: Record<string, string | readonly string[]>, send: Send = fetch) => {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(body)) {
    for (const item of typeof value === "string" ? [value] : value) params.append(key, item);
  }
  return send(url, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: params });
};
