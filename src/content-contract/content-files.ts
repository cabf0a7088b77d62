/**
 * Every content file and the GraphQL type its node gets. Single files are
 * named one by one; a folder holds many files of one type. Without this the
 * transformer would merge all single-object files of a folder into one
 * inferred type. Kept free of zod so that gatsby-config can import it cheaply.
 */
export const singleFiles = {
  "company.json": "CompanyJson",
  "navigation.json": "NavigationJson",
  "home.json": "HomeJson",
  "agencies.json": "AgenciesJson",
  "inquiry.json": "InquiryJson",
  "system-pages.json": "SystemPagesJson",
  "site-pages.json": "SitePagesJson",
  "certifications.json": "CertificationsJson",
} as const;

export const folders = {
  products: "ProductCategoryJson",
  pages: "ContentPageJson",
} as const;

export type SingleFileName = keyof typeof singleFiles;
export type FolderName = keyof typeof folders;

export type ContentFileKind = { kind: "single"; name: SingleFileName } | { kind: "folder"; name: FolderName };

const has = <T extends object>(record: T, key: string): key is Extract<keyof T, string> =>
  Object.prototype.hasOwnProperty.call(record, key);

/** What a path under content/ holds, or null when no content file belongs there. */
export const contentFileKind = (relativePath: string): ContentFileKind | null => {
  const parts = relativePath.split("/");
  if (parts.length === 1 && has(singleFiles, relativePath)) return { kind: "single", name: relativePath };
  const [folder] = parts;
  if (parts.length === 2 && folder && has(folders, folder) && relativePath.endsWith(".json")) {
    return { kind: "folder", name: folder };
  }
  return null;
};

export const contentTypeName = (relativePath: string): string | null => {
  const kind = contentFileKind(relativePath);
  if (!kind) return null;
  return kind.kind === "single" ? singleFiles[kind.name] : folders[kind.name];
};
