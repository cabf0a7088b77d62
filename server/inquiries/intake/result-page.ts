import escapeHtml from "escape-html";
import { colors } from "../../../src/styles/colors";
import type { InquiryContent } from "../content";
import { inquiryFieldNames, type InquiryErrors } from "../../../src/inquiry/values";

/**
 * The pages a visitor without JavaScript lands on after posting the form: the server answers the
 * post itself, since a static page cannot show the reference it has just made up.
 */
export type ResultPage =
  | { readonly kind: "received"; readonly reference: string }
  | { readonly kind: "rejected"; readonly errors: InquiryErrors }
  | { readonly kind: "tooMany"; readonly retryAfterSeconds: number }
  | { readonly kind: "crossSite" }
  | { readonly kind: "failed" };

const CONTACT_PATH = "/contact/";
/** The icon gatsby-plugin-manifest writes and every page links: without a link a browser asks for /favicon.ico, a 404. */
const FAVICON_PATH = "/favicon-32x32.png";

/** The Content-Security-Policy these pages are sent with: their own inline styles, and no script at all. */
export const resultPagePolicy =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Escapes the copy, then puts the company's details and the given values in place of their placeholders. */
export const fill = (text: string, content: Pick<InquiryContent, "company">, values: Record<string, string> = {}) => {
  const { contact, hours } = content.company;
  const tokens: Record<string, string> = {
    email: `<a href="mailto:${escapeHtml(contact.email)}">${escapeHtml(contact.email)}</a>`,
    phone: `<a href="tel:${escapeHtml(contact.phone.tel)}">${escapeHtml(contact.phone.display)}</a>`,
    hours: escapeHtml(hours.display),
    ...Object.fromEntries(Object.entries(values).map(([key, value]) => [key, `<strong>${escapeHtml(value)}</strong>`])),
  };
  return escapeHtml(text).replace(/\{(\w+)\}/g, (whole, token: string) => tokens[token] ?? whole);
};

const styles = `
  body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; line-height: 1.6; color: ${colors.text}; }
  header { background: ${colors.navy}; padding: 1rem; }
  header a { color: ${colors.white}; font-weight: 700; font-size: 1.25rem; text-decoration: none; }
  main { max-width: 40rem; margin: 0 auto; padding: 2rem 1rem 3rem; }
  h1 { color: ${colors.navy}; line-height: 1.2; }
  a { color: ${colors.blue}; }
  a:focus-visible { outline: 3px solid ${colors.focus}; outline-offset: 2px; }
  li { margin-bottom: 0.5rem; }
  .error { color: ${colors.error}; }
  .actions a { display: inline-block; margin: 0.5rem 1.5rem 0 0; font-weight: 700; }
  button { font: inherit; font-weight: 700; color: ${colors.white}; background: ${colors.navy}; border: 0; border-radius: 4px; padding: 0.75rem 1.25rem; cursor: pointer; }
  button:focus-visible { outline: 3px solid ${colors.focus}; outline-offset: 2px; }
`;

/**
 * A plain page of the site's back end, without script: the company's name, a heading, `body` (HTML the
 * caller has escaped) and `actions` (links, likewise).
 */
export const renderPlainPage = (
  title: string,
  body: string,
  actions: string,
  company: Pick<InquiryContent["company"], "name">,
): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)} | ${escapeHtml(company.name)}</title>
<link rel="icon" href="${FAVICON_PATH}" type="image/png">
<style>${styles}</style>
</head>
<body>
<header><a href="/">${escapeHtml(company.name)}</a></header>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
<p class="actions">${actions}</p>
</main>
</body>
</html>
`;

export const renderResultPage = (page: ResultPage, content: InquiryContent): string => {
  const { form, company } = content;
  const copy = form.resultPage;
  let title: string;
  let body: string;
  switch (page.kind) {
    case "received":
      title = copy.receivedTitle;
      body = `<p>${fill(form.sent.text, content, { reference: page.reference })}</p>`;
      break;
    case "rejected": {
      title = copy.rejectedTitle;
      const items = inquiryFieldNames
        .filter((name) => page.errors[name])
        .map(
          (name) =>
            `<li><strong>${escapeHtml(form.formFields[name].label)}:</strong> <span class="error">${escapeHtml(page.errors[name] ?? "")}</span></li>`,
        );
      body = `<p>${fill(copy.rejectedIntro, content)}</p><ul>${items.join("")}</ul>`;
      break;
    }
    case "tooMany":
      title = form.tooMany.title;
      body = `<p>${fill(form.tooMany.text, content, { minutes: String(Math.ceil(page.retryAfterSeconds / 60)) })}</p>`;
      break;
    case "crossSite":
      title = copy.crossSiteTitle;
      body = `<p>${fill(copy.crossSiteText, content)}</p>`;
      break;
    case "failed":
      title = form.failed.title;
      body = `<p>${fill(form.failed.text, content)}</p>`;
      break;
  }
  const actions =
    page.kind === "received"
      ? `<a href="/">${escapeHtml(copy.homeLabel)}</a>`
      : `<a href="${CONTACT_PATH}">${escapeHtml(copy.backLabel)}</a><a href="/">${escapeHtml(copy.homeLabel)}</a>`;
  return renderPlainPage(title, body, actions, company);
};
