import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { parse, type DefaultTreeAdapterMap } from "parse5";
import { commonHeaders } from "../server/site/common-headers";
import { isRunnableScriptType } from "../server/site/script-types";
import { formatHeaderRules, HEADERS_FILE, pagePathOf, type HeaderRules } from "../server/site/headers-file";
import { ADMIN_FOLDER, adminFolderHeaders, adminPageHeaders } from "./admin-headers";

/**
 * The site's security headers, in one place for both deploys: the build writes them to
 * `public/_headers` in the CDN's format (Netlify reads it as is), and the production server reads the
 * same file; the CDN deploy's function adds the site-wide ones to its answers itself. Each page gets a
 * Content-Security-Policy that allows exactly the inline scripts that page carries, by their hashes, so
 * no injected script runs.
 */

type Node = DefaultTreeAdapterMap["node"];
type Element = DefaultTreeAdapterMap["element"];
type TextNode = DefaultTreeAdapterMap["textNode"];

/**
 * The policy of a page whose inline scripts have the given hashes and which loads the site's script files
 * (`loadsScriptFiles`) or not. A page with neither gets `script-src 'none'`: no script of any kind runs on
 * it. Styles may be inline: emotion puts
 * each page's CSS in <style> elements and gatsby-plugin-image sets style attributes. Images may come
 * from https addresses (content/agencies.json may name a logo by URL).
 */
export const pagePolicy = (scriptHashes: readonly string[], { loadsScriptFiles = true } = {}): string => {
  const scriptSources = [...(loadsScriptFiles ? ["'self'"] : []), ...scriptHashes.map((hash) => `'${hash}'`)];
  return [
    "default-src 'self'",
    `script-src ${scriptSources.length > 0 ? scriptSources.join(" ") : "'none'"}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: https:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
};

const isElement = (node: Node): node is Element => "tagName" in node;
const isText = (node: Node): node is TextNode => node.nodeName === "#text";

const textOf = (element: Element): string =>
  element.childNodes.map((child) => (isText(child) ? child.value : "")).join("");

/** What a page runs: the sha256 hashes (CSP source expressions) of its inline scripts, and its script files. */
export interface PageScripts {
  readonly inlineHashes: readonly string[];
  readonly files: readonly string[];
}

/** Every script the browser would run in a page, <template> contents included (the app's, started later). */
export const pageScripts = (html: string): PageScripts => {
  const hashes = new Set<string>();
  const files = new Set<string>();
  const visit = (node: Node) => {
    if (isElement(node)) {
      if (node.tagName === "script") {
        const attributes = new Map(node.attrs.map((attribute) => [attribute.name, attribute.value]));
        const source = attributes.get("src");
        if (isRunnableScriptType(attributes.get("type"))) {
          if (source !== undefined) files.add(source);
          else hashes.add(`sha256-${createHash("sha256").update(textOf(node), "utf8").digest("base64")}`);
        }
      }
      // A <template>'s content is a fragment of its own.
      const content = (node as Element & { content?: DefaultTreeAdapterMap["documentFragment"] }).content;
      if (content) content.childNodes.forEach(visit);
    }
    if ("childNodes" in node) node.childNodes.forEach(visit);
  };
  visit(parse(html));
  return { inlineHashes: [...hashes].sort(), files: [...files].sort() };
};

/** sha256 hashes, as CSP source expressions, of every inline script the browser would run in a page. */
export const inlineScriptHashes = (html: string): string[] => [...pageScripts(html).inlineHashes];

/** The policy that allows exactly the scripts of a built page, and none where it has none. */
export const policyForPage = (html: string): string => {
  const { inlineHashes, files } = pageScripts(html);
  return pagePolicy(inlineHashes, { loadsScriptFiles: files.length > 0 });
};

/**
 * The headers of a built HTML file (relative to public/, with either separator): the editing screen's own
 * under /admin/, else a policy that allows exactly the file's scripts (none on a page that has none).
 */
export const headersForFile = (relativeFile: string, html: string): Readonly<Record<string, string>> =>
  relativeFile.split(/[\\/]/)[0] === ADMIN_FOLDER
    ? adminPageHeaders()
    : { "Content-Security-Policy": policyForPage(html) };

/**
 * The URL paths a built HTML file answers: its page path, and for a folder's page its index.html as well,
 * which Netlify's rule for the folder does not match (`/contact/` matches `/contact/` and `/contact` only).
 */
export const servedPathsOf = (relativeFile: string): string[] => {
  const pagePath = pagePathOf(relativeFile);
  return pagePath.endsWith("/") ? [pagePath, `${pagePath}index.html`] : [pagePath];
};

/** Every built page of public/, relative and with `/` separators; slices under _gatsby/ are pieces of pages, not pages. */
export const builtPageFiles = (publicDir: string): string[] =>
  fs
    .readdirSync(publicDir, { recursive: true, encoding: "utf8" })
    .map((file) => file.split(path.sep).join("/"))
    .filter((file) => file.endsWith(".html") && !file.startsWith("_gatsby/"))
    .filter((file) => fs.statSync(path.join(publicDir, file)).isFile())
    .sort();

/** Directives a policy that leaves them out takes from its default-src (CSP 3, "fetch directives"). */
export const FETCH_DIRECTIVES: ReadonlySet<string> = new Set([
  "child-src",
  "connect-src",
  "font-src",
  "frame-src",
  "img-src",
  "manifest-src",
  "media-src",
  "object-src",
  "script-src",
  "style-src",
  "worker-src",
]);

/** A policy's directives, each with its sources ('none' as no source). */
export const policyDirectives = (policy: string): Map<string, string[]> =>
  new Map(
    policy
      .split(";")
      .map((part) => part.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name = "", ...sources]) => [name, sources.filter((source) => source !== "'none'")]),
  );

/**
 * One policy that allows whatever any of the given policies allows, directive by directive (a fetch
 * directive a policy leaves out read as its default-src; any other directive it leaves out is left out).
 * A browser that enforces it together with one of them is held to that one alone. A directive that would
 * mix 'unsafe-inline' with hashes is refused: a browser ignores 'unsafe-inline' beside a hash, so the
 * union would forbid what one of the policies allows.
 */
export const policyAllowingEach = (policies: readonly string[]): string => {
  const parsed = policies.map(policyDirectives);
  const names = [...new Set(parsed.flatMap((directives) => [...directives.keys()]))];
  const union: string[] = [];
  for (const name of names) {
    const sourceLists = parsed.map(
      (directives) => directives.get(name) ?? (FETCH_DIRECTIVES.has(name) ? directives.get("default-src") : undefined),
    );
    // Unrestricted by one of the policies: unrestricted by the union.
    if (sourceLists.some((sources) => sources === undefined)) continue;
    const sources = [...new Set(sourceLists.flatMap((list) => list ?? []))];
    if (sources.includes("'unsafe-inline'") && sources.some((source) => /^'(sha\d+|nonce)-/.test(source)))
      throw new Error(`${name}: one policy allows inline code by 'unsafe-inline', another by hash`);
    union.push([name, ...(sources.length > 0 ? sources : ["'none'"])].join(" "));
  }
  return union.join("; ");
};

/**
 * Every built page with its headers, after the rules for all paths and for the editing screen's folder.
 *
 * The rule for all paths carries a Content-Security-Policy too, for the answers no page's rule covers:
 * Netlify answers a path without a file with 404.html but with the headers of the path asked for, so
 * without it the 404 page would come without a policy. It allows what any page's policy allows, and
 * each page's own rule, later in the file, gives the page its own: Netlify's emulation of its rules
 * (@netlify/headers, netlify dev) lets the later matching rule's value replace the earlier one's, and
 * should the platform send both values instead, a browser enforces both, which holds the page to its own.
 */
export const headerRulesFor = (publicDir: string): HeaderRules => {
  const pages = builtPageFiles(publicDir).map((file) => ({
    file,
    headers: headersForFile(file, fs.readFileSync(path.join(publicDir, file), "utf8")),
  }));
  const pagePolicies = pages.flatMap(({ headers }) => headers["Content-Security-Policy"] ?? []);
  const anyPagePolicy = policyAllowingEach(pagePolicies);
  const rules = new Map<string, Readonly<Record<string, string>>>([
    ["/*", { ...commonHeaders, ...(anyPagePolicy ? { "Content-Security-Policy": anyPagePolicy } : {}) }],
    [`/${ADMIN_FOLDER}/*`, adminFolderHeaders],
  ]);
  for (const { file, headers } of pages) for (const servedPath of servedPathsOf(file)) rules.set(servedPath, headers);
  return rules;
};

/** Writes `public/_headers`; returns how many pages got a policy. */
export const writeHeadersFile = (publicDir: string): number => {
  const rules = headerRulesFor(publicDir);
  fs.writeFileSync(path.join(publicDir, HEADERS_FILE), formatHeaderRules(rules));
  return builtPageFiles(publicDir).length;
};
