/**
 * What a node of the content contract tells the projections generated from it
 * (GraphQL types, CMS configuration, JSON Schemas), carried by zod's `.meta()`.
 * One object per schema node, so a field's label, hint, GraphQL type and
 * widget sit next to its rules in schema.ts instead of in a second file.
 */

/** A string field that names a file under content/ and resolves to Gatsby's File node. */
export interface FileLink {
  type: "File";
  /** The File field the string is matched against. */
  by: "relativePath";
  /** Expose the link under another field name and keep the string field as it is (Agency.logo → logoFile). */
  as?: string;
}

/**
 * Widget options for the CMS, written by the CMS projection's owner; the keys
 * are Decap's field options (widget, hint, pattern, …).
 */
interface CmsFieldMeta {
  widget?: string;
  [option: string]: unknown;
}

export interface ContentMeta {
  /** The editor-facing label of a field or section. */
  title?: string;
  /** The editor-facing hint: what the field is for and what it accepts. */
  description?: string;
  /** The GraphQL type name of an object node; file-level types come from content-files.ts. */
  graphqlType?: string;
  link?: FileLink;
  cms?: CmsFieldMeta;
}

/** Keys that only the GraphQL and CMS projections read; JSON Schema output drops them. */
export const projectionOnlyMetaKeys = ["graphqlType", "link", "cms"] as const satisfies readonly (keyof ContentMeta)[];

// `.meta()` writes to zod's global registry; typing that registry's entries
// makes a misspelt key or a wrong value in schema.ts a compile error.
declare module "zod" {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- interface merging is how zod lets the global registry be typed
  interface GlobalMeta extends ContentMeta {}
}
