import type { AssetUrl, EditedContent } from "./query-data";

/**
 * The part of Decap's preview props (https://decapcms.org/docs/customization/) the previews read. The
 * entry is an Immutable.js Map; its `path` is the file's path in the repository once it has been saved.
 */
export interface DecapEntry {
  getIn(path: readonly string[]): unknown;
}

interface ImmutableValue {
  toJS(): unknown;
}

export interface DecapPreviewProps {
  readonly entry: DecapEntry;
  /** A path as the entry holds it (images/hero.jpg) → an object whose string is the address to show it from. */
  readonly getAsset: (path: string) => { toString(): string } | null | undefined;
}

const hasToJS = (value: unknown): value is ImmutableValue =>
  typeof value === "object" && value !== null && "toJS" in value && typeof value.toJS === "function";

/** The file being edited, from Decap's entry: `kind` is the template's name (a file's or a folder's). */
export const editedContent = (kind: string, entry: DecapEntry): EditedContent => {
  const data = entry.getIn(["data"]);
  const path = entry.getIn(["path"]);
  const fileName = typeof path === "string" && path !== "" ? path.split("/").pop() : undefined;
  return { kind, data: hasToJS(data) ? data.toJS() : {}, ...(fileName ? { fileName } : {}) };
};

/**
 * Where the preview shows a file from: the build's copy of a file the repository's content links to
 * (under `linkedFilesUrl`), or else Decap's getAsset, which knows what the editor has just uploaded;
 * the path itself while Decap has nothing for it yet.
 */
export const assetUrlOf =
  (getAsset: DecapPreviewProps["getAsset"], linkedFiles: readonly string[], linkedFilesUrl: URL): AssetUrl =>
  (relativePath) => {
    if (linkedFiles.includes(relativePath)) return new URL(relativePath, linkedFilesUrl).href;
    const address = getAsset(relativePath)?.toString();
    return address === undefined || address === "" ? relativePath : address;
  };
