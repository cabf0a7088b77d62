import type { IGatsbyImageData } from "gatsby-plugin-image";
import type { ContentPath, FileLinkPath, PreviewContent, PreviewContentKind } from "./preview-content-types";

/**
 * The data a page query hands a page, built in the browser from content JSON the way Gatsby builds it
 * at build time (gatsby-transformer-json and the contract's GraphQL types): each single file under its
 * type's field (content/home.json → homeJson), a folder's files as `all<Type>.nodes`, the edited folder
 * entry as `<type>`, a path the contract links to a file as that file's node, a date formatted as the
 * page queries ask. The page components then map it to their sections' props as on the live site.
 */

/** Every root field any page or the site-wide query reads; each page reads its own part. */
export type QueryData = Readonly<Record<string, unknown>>;

/** The content file being edited, as Decap holds it while the editor types. */
export interface EditedContent {
  /** The kind's name: home, company, … for a single file; products or pages for a folder's entry. */
  readonly kind: string;
  /** The file's name in its folder (tactical.json), when it has been saved before. */
  readonly fileName?: string;
  readonly data: unknown;
}

/** A path under content/ (images/hero.jpg) to the address the editing screen can show it from. */
export type AssetUrl = (relativePath: string) => string;

const lowerFirst = (name: string) => name.charAt(0).toLowerCase() + name.slice(1);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The processed image the page would get, as the plain file: the preview has no sharp, so no sizes or
 * formats. Marked full-width so that the site's PriorityImage gives it no pixel size of its own: its box
 * comes from the page's CSS, as the processed image's does on the live site.
 */
const plainImage = (src: string): IGatsbyImageData => ({
  layout: "fullWidth",
  width: 1,
  height: 1,
  images: { fallback: { src } },
});

/** A File node as the page queries read it: its address, and the image data for a raster image. */
const fileNode = (relativePath: string, assetUrl: AssetUrl) => {
  const publicURL = assetUrl(relativePath);
  const raster = /\.(jpe?g|png|webp|avif)$/i.test(relativePath);
  return { publicURL, childImageSharp: raster ? { gatsbyImageData: plainImage(publicURL) } : null };
};

/** A path on the site, not an address elsewhere (a logo may be either). */
export const isContentPath = (value: unknown): value is string => typeof value === "string" && !/^[a-z]+:/i.test(value);

/** Applies `change` to every record that holds the last key of `path` (a list's items where it says "*"). */
export const eachHolder = (
  value: unknown,
  path: ContentPath,
  change: (holder: Record<string, unknown>, key: string) => void,
) => {
  const [head, ...rest] = path;
  if (head === undefined) return;
  if (head === "*") {
    if (Array.isArray(value)) for (const item of value) eachHolder(item, rest, change);
    return;
  }
  if (!isRecord(value)) return;
  if (rest.length === 0) change(value, head);
  else eachHolder(value[head], rest, change);
};

const linkFiles = (file: unknown, links: readonly FileLinkPath[], assetUrl: AssetUrl) => {
  for (const link of links) {
    eachHolder(file, link.path, (holder, key) => {
      const path = holder[key];
      const node = isContentPath(path) ? fileNode(path, assetUrl) : null;
      holder[link.as ?? key] = node;
    });
  }
};

// Gatsby's formatString: "MMMM D, YYYY", the one format the page queries ask of a date.
const dateFormat = new Intl.DateTimeFormat("en-US", {
  month: "long",
  day: "numeric",
  year: "numeric",
  timeZone: "UTC",
});

const formatDates = (file: unknown, dates: readonly ContentPath[]) => {
  for (const path of dates) {
    eachHolder(file, path, (holder, key) => {
      const date = holder[key];
      const time = typeof date === "string" ? Date.parse(date) : Number.NaN;
      if (!Number.isNaN(time)) holder[key] = dateFormat.format(time);
    });
  }
};

/** One file as its GraphQL node: a copy (content is JSON), so the repository's content and Decap's entry stay as they are. */
const asNode = (file: unknown, kind: PreviewContentKind, assetUrl: AssetUrl): unknown => {
  const node: unknown = file === undefined ? undefined : JSON.parse(JSON.stringify(file));
  linkFiles(node, kind.fileLinks, assetUrl);
  formatDates(node, kind.dates);
  return node;
};

// The site lists a folder's entries by their `order` (allProductCategoryJson(sort: { order: ASC })).
const orderOf = (node: unknown) => (isRecord(node) && typeof node.order === "number" ? node.order : 0);

/** The query data of the whole site with `edited` in place of its file in the repository. */
export const queryData = (content: PreviewContent, edited: EditedContent, assetUrl: AssetUrl): QueryData => {
  const data: Record<string, unknown> = {
    // The build's year in the footer's notice: the preview shows the year the next build will have.
    site: { buildYear: String(new Date().getFullYear()) },
  };
  for (const kind of content.kinds) {
    const field = lowerFirst(kind.typeName);
    const isEdited = kind.name === edited.kind;
    if (!kind.folder) {
      const [repositoryFile] = Object.values(kind.files);
      data[field] = asNode(isEdited ? edited.data : repositoryFile, kind, assetUrl);
      continue;
    }
    const files = { ...kind.files };
    if (isEdited) files[edited.fileName ?? "(new entry)"] = edited.data;
    const nodes = Object.values(files).map((file) => asNode(file, kind, assetUrl));
    data[`all${kind.typeName}`] = { nodes: nodes.sort((a, b) => orderOf(a) - orderOf(b)) };
    if (isEdited) data[field] = asNode(edited.data, kind, assetUrl);
  }
  return data;
};
