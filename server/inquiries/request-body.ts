/**
 * How a posted inquiry's text becomes the object the handler checks, for both deploys: the single
 * server (server/app.ts) parses with these, and so does the CDN deploy's function (gatsby-function.ts),
 * which takes the body's bytes as they came instead of the platform's parsed version, whose parser
 * errors never reach it. One set of rules, so the two answer a body alike.
 */

/** A body that is not the JSON it claims to be is `unreadable` (answered 400), never an empty inquiry. */
export type ParsedBody = { readonly readable: true; readonly body: unknown } | { readonly readable: false };

/** The form's urlencoded post as an object; a name sent more than once (the compliance boxes) becomes a list. */
export const parseFormBody = (text: string): Record<string, string | string[]> => {
  const body: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(text)) {
    const earlier = body[name];
    body[name] = earlier === undefined ? value : [...(Array.isArray(earlier) ? earlier : [earlier]), value];
  }
  return body;
};

/** JSON as it is: an empty body is no JSON either. */
export const parseJsonBody = (text: string): ParsedBody => {
  try {
    return { readable: true, body: JSON.parse(text) as unknown };
  } catch {
    return { readable: false };
  }
};

/**
 * The body by its declared type, for a request whose type was already screened to be one of the two the
 * endpoint takes: a urlencoded form, or JSON.
 */
export const parseInquiryBody = (contentType: string | undefined, text: string): ParsedBody =>
  (contentType ?? "").split(";")[0]?.trim().toLowerCase() === "application/x-www-form-urlencoded"
    ? { readable: true, body: parseFormBody(text) }
    : parseJsonBody(text);
