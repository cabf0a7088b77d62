/**
 * What the editing screen's previews know of the repository's content besides the entry being edited,
 * written by the build next to the preview bundle (preview/content.json) and read by it in the browser.
 * Kept free of zod and of Node so that the browser bundle can import the types.
 */

/** A path into a content file's JSON: keys, with "*" for every element of a list. */
export type ContentPath = readonly string[];

/** A path that names a file under content/, as the GraphQL schema links it (src/content-contract/graphql.ts). */
export interface FileLinkPath {
  readonly path: ContentPath;
  /** The field the file is exposed under beside the path (Agency.logo → logoFile); the path itself when absent. */
  readonly as?: string;
}

/** One kind of content file: a single file, or a folder of files of one type. */
export interface PreviewContentKind {
  /** The content contract's name: home, company, …, or a folder's name: products, pages. */
  readonly name: string;
  /** The GraphQL node type its files get (HomeJson, ProductCategoryJson). */
  readonly typeName: string;
  readonly folder: boolean;
  /** The files as they are in the repository, by file name (home.json, tactical.json). */
  readonly files: Readonly<Record<string, unknown>>;
  readonly fileLinks: readonly FileLinkPath[];
  /** Fields of GraphQL type Date, which the page queries format. */
  readonly dates: readonly ContentPath[];
}

export interface PreviewContent {
  readonly kinds: readonly PreviewContentKind[];
  /**
   * The files under content/ that the content links to (images/hero.jpg), copied by the build to the
   * previews' folder under the same path: Decap's getAsset finds a file only in its field's media folder,
   * and the preview of one file shows the images of others (the home page's agency logos).
   */
  readonly linkedFiles: readonly string[];
}

/** The previews' folder, relative to the editing screen's. */
export const PREVIEW_FOLDER = "preview/";

/** Where the build writes the content, relative to the editing screen's folder. */
export const PREVIEW_CONTENT_FILE = `${PREVIEW_FOLDER}content.json`;
