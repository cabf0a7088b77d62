import { toJsonText } from "./tidy-json";
import { CMS_CONFIG_PATH, cmsConfig } from "./cms-config";
import { contentSchemaEntries } from "./content-schemas";
import { graphqlTypeDefs } from "./graphql";
import { contentJsonSchema } from "./json-schema";

/**
 * Every file generated from the content contract, by path relative to the
 * repository: the JSON Schemas editors' tools validate against (mapped in
 * .vscode/settings.json), the GraphQL types the build declares and the
 * editing screen's configuration (the build writes it to /admin/), kept in
 * the repository so a change to the contract shows in review as a change to
 * each projection. `npm run schemas` writes them; `npm run check:schemas` and
 * a test fail when one is stale.
 */

export const graphqlSnapshotPath = "schemas/graphql/content.graphql";

export const graphqlSnapshotHeader =
  "# Generated from src/content-contract/schema.ts by npm run schemas; gatsby-node declares these types.\n\n";

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

export const projectionFiles = (): Map<string, string> => {
  const entries = contentSchemaEntries();
  const files = new Map<string, string>();
  for (const { name, schema } of entries) files.set(`schemas/${name}.schema.json`, json(contentJsonSchema(schema)));
  files.set(
    ".vscode/settings.json",
    json({
      "json.schemas": entries.map(({ name, fileMatch }) => ({
        fileMatch: [fileMatch],
        url: `./schemas/${name}.schema.json`,
      })),
    }),
  );
  files.set(graphqlSnapshotPath, `${graphqlSnapshotHeader}${graphqlTypeDefs(entries)}`);
  files.set(CMS_CONFIG_PATH, toJsonText(cmsConfig(entries)));
  return files;
};
