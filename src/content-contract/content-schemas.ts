import type { z } from "zod";
import { folders, singleFiles } from "./content-files";
import { folderSchemas, singleFileSchemas, type ContentContext } from "./schema";

/** One kind of content file, with everything each projection of the contract names it by. */
export interface ContentSchemaEntry {
  /** A single file's name without .json, or a folder's name. */
  readonly name: string;
  /** The files it describes, relative to the repository: content/home.json, content/products/*.json. */
  readonly fileMatch: string;
  /** The GraphQL node type of its files. */
  readonly typeName: string;
  readonly schema: z.ZodType;
}

// The projections describe shapes; whether a named file exists is the build's and check:content's question.
const anyFile: ContentContext = { fileExists: () => true };

/** Every kind of content file, in content-files.ts order. */
export const contentSchemaEntries = (): ContentSchemaEntry[] => {
  const single = singleFileSchemas(anyFile);
  const folder = folderSchemas(anyFile);
  return [
    ...Object.entries(singleFiles).map(([file, typeName]) => ({
      name: file.replace(/\.json$/, ""),
      fileMatch: `content/${file}`,
      typeName,
      schema: single[file as keyof typeof singleFiles],
    })),
    ...Object.entries(folders).map(([name, typeName]) => ({
      name,
      fileMatch: `content/${name}/*.json`,
      typeName,
      schema: folder[name as keyof typeof folders],
    })),
  ];
};
