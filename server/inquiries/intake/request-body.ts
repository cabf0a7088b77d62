import secureJsonParse from "secure-json-parse";

/**
 * How a posted inquiry's body becomes the value the handler checks, for both deploys. Its type is read here
 * once, for the handler (which bodies it takes, whether it answers with a page) and for the parsers. The
 * single server lets Fastify parse JSON and parses a form with parseFormBody (fastify/plugin.ts); the CDN deploy's
 * function, which takes the body's bytes as they came instead of the platform's parsed version, whose
 * parser errors never reach it, parses both here, JSON with the parser Fastify's own is. One set of rules,
 * so the two answer a body alike.
 */

/** The encodings the endpoint takes: JSON (the form's script) and a urlencoded form (a post without script). */
export type BodyKind = "json" | "form";

/** The body's kind by its declared Content-Type, parameters (a charset) aside; null for any other type. */
export const bodyKind = (contentType: string | undefined): BodyKind | null => {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase();
  if (type === "application/json") return "json";
  if (type === "application/x-www-form-urlencoded") return "form";
  return null;
};

/** A body that is not the JSON it claims to be is `unreadable` (answered 400), never an empty inquiry. */
export type ParsedBody = { readonly readable: true; readonly body: unknown } | { readonly readable: false };

/**
 * The form's urlencoded post as an object; a name sent more than once (the compliance boxes) becomes a list.
 * The object has no prototype, so a field named `__proto__` is a field like any other.
 */
export const parseFormBody = (text: string): Record<string, string | string[]> => {
  const body = Object.create(null) as Record<string, string | string[]>;
  for (const [name, value] of new URLSearchParams(text)) {
    const earlier = body[name];
    body[name] = earlier === undefined ? value : [...(Array.isArray(earlier) ? earlier : [earlier]), value];
  }
  return body;
};

// Fastify's defaults (onProtoPoisoning, onConstructorPoisoning): a body that would reach an object's
// prototype through `__proto__` or `constructor.prototype` is refused, not cleaned.
const POISONING = { protoAction: "error", constructorAction: "error" } as const;

/** JSON as Fastify's own parser (secure-json-parse) reads it: an empty body is no JSON either. */
const parseJsonBody = (text: string): ParsedBody => {
  try {
    return { readable: true, body: secureJsonParse(text, null, POISONING) as unknown };
  } catch {
    return { readable: false };
  }
};

/**
 * The body by its declared type, for a request whose type was already screened to be one of the two the
 * endpoint takes: a urlencoded form, or JSON.
 */
export const parseInquiryBody = (contentType: string | undefined, text: string): ParsedBody =>
  bodyKind(contentType) === "form" ? { readable: true, body: parseFormBody(text) } : parseJsonBody(text);
