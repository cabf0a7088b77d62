import fs from "node:fs";
import path from "node:path";
import { contentSchemaEntries, type ContentSchemaEntry } from "../../content-contract/content-schemas";
import { definitionOf, unwrap, type ContractNode } from "../../content-contract/zod-nodes";
import type { ContentPath, FileLinkPath, PreviewContent, PreviewContentKind } from "./preview-content-types";
import { eachHolder, isContentPath } from "./query-data";

/**
 * The repository's content for the previews, read at build time: every content file, and where the
 * contract says a value names a file or a date, so that the browser can give the page components the
 * shape their GraphQL queries give them without shipping the contract (zod) to the editing screen.
 */

interface Marks {
  readonly fileLinks: FileLinkPath[];
  readonly dates: ContentPath[];
}

const collectMarks = (schema: ContractNode, at: ContentPath, marks: Marks): void => {
  const value = unwrap(schema);
  const definition = definitionOf(value.schema);
  const { link } = value.meta;
  if (link) {
    marks.fileLinks.push(link.as ? { path: at, as: link.as } : { path: at });
    return;
  }
  if (definition.type === "object") {
    for (const [key, field] of Object.entries(definition.shape)) collectMarks(field, [...at, key], marks);
  } else if (definition.type === "array") {
    collectMarks(definition.element, [...at, "*"], marks);
  } else if (definition.type === "string" && "format" in definition && definition.format === "date") {
    marks.dates.push(at);
  }
};

const readJson = (file: string): unknown => JSON.parse(fs.readFileSync(file, "utf8"));

const kindOf = (entry: ContentSchemaEntry, repositoryDir: string): PreviewContentKind => {
  const marks: Marks = { fileLinks: [], dates: [] };
  collectMarks(entry.schema, [], marks);
  const folder = entry.fileMatch.endsWith("/*.json");
  const fileNames = folder
    ? fs
        .readdirSync(path.join(repositoryDir, path.dirname(entry.fileMatch)))
        .filter((name) => name.endsWith(".json"))
        .sort()
    : [path.basename(entry.fileMatch)];
  const directory = path.join(repositoryDir, path.dirname(entry.fileMatch));
  const files = Object.fromEntries(fileNames.map((name) => [name, readJson(path.join(directory, name))]));
  return { name: entry.name, typeName: entry.typeName, folder, files, ...marks };
};

/** The paths under content/ that the files link to and that exist there. */
const linkedFilesOf = (kinds: readonly PreviewContentKind[], repositoryDir: string): string[] => {
  const linked = new Set<string>();
  for (const kind of kinds) {
    for (const file of Object.values(kind.files)) {
      for (const link of kind.fileLinks) {
        eachHolder(file, link.path, (holder, key) => {
          const value = holder[key];
          if (isContentPath(value) && fs.existsSync(path.join(repositoryDir, "content", value))) linked.add(value);
        });
      }
    }
  }
  return [...linked].sort();
};

/** Every kind of content file the contract names, read from the repository at `repositoryDir`. */
export const readPreviewContent = (repositoryDir: string = path.resolve()): PreviewContent => {
  const kinds = contentSchemaEntries().map((entry) => kindOf(entry, repositoryDir));
  return { kinds, linkedFiles: linkedFilesOf(kinds, repositoryDir) };
};
