import fs from "node:fs";
import path from "node:path";

/**
 * The `_headers` file, in the format Netlify reads: a path pattern, then its headers indented below it.
 * The build writes it (build/security-headers.ts); Netlify's CDN applies it to files, and the production
 * server reads it once as it starts (server/app.ts).
 */

export const HEADERS_FILE = "_headers";

export type HeaderRules = ReadonlyMap<string, Readonly<Record<string, string>>>;

/** The URL path a built HTML file answers: `contact/index.html` → `/contact/`, `404.html` → `/404.html`. */
export const pagePathOf = (relativeFile: string): string => {
  const posix = relativeFile.split(path.sep).join("/");
  if (posix === "index.html") return "/";
  if (posix.endsWith("/index.html")) return `/${posix.slice(0, -"index.html".length)}`;
  return `/${posix}`;
};

/** The rules in the `_headers` format: a path, then its headers indented below it. */
export const formatHeaderRules = (rules: HeaderRules): string =>
  [...rules]
    .map(([pathPattern, headers]) =>
      [pathPattern, ...Object.entries(headers).map(([name, value]) => `  ${name}: ${value}`)].join("\n"),
    )
    .join("\n\n")
    .concat("\n");

/** Reads a `_headers` file back into rules; a line it does not understand is an error, not a silent skip. */
export const parseHeaderRules = (text: string): HeaderRules => {
  const rules = new Map<string, Record<string, string>>();
  let current: Record<string, string> | null = null;
  text.split("\n").forEach((line, index) => {
    if (line.trim() === "" || line.trim().startsWith("#")) return;
    if (!/^\s/.test(line)) {
      current = rules.get(line.trim()) ?? {};
      rules.set(line.trim(), current);
      return;
    }
    const separator = line.indexOf(":");
    if (!current || separator < 0) throw new Error(`${HEADERS_FILE} line ${index + 1} is not a header: ${line}`);
    current[line.slice(0, separator).trim()] = line.slice(separator + 1).trim();
  });
  return rules;
};

export const readHeadersFile = (publicDir: string): HeaderRules =>
  parseHeaderRules(fs.readFileSync(path.join(publicDir, HEADERS_FILE), "utf8"));
