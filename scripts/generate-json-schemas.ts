// Writes a JSON Schema for every content file from the zod content contract,
// so editors see mistakes while typing (.vscode/settings.json maps them).
// The checks JSON Schema cannot express (files exist, links resolve) stay
// with `npm run check:content` and the build.
// Usage: npm run schemas            write schemas/ and .vscode/settings.json
//        npm run schemas -- --check fail if they are out of date
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { folderSchemas, singleFileSchemas, type ContentContext } from "../src/content-contract/schema";

const root = path.resolve(__dirname, "..");
const schemaDir = path.join(root, "schemas");
const anyFile: ContentContext = { fileExists: () => true };

const entries = [
  ...Object.entries(singleFileSchemas(anyFile)).map(([file, schema]) => ({
    name: file.replace(/\.json$/, ""),
    fileMatch: [`content/${file}`],
    schema,
  })),
  ...Object.entries(folderSchemas(anyFile)).map(([folder, schema]) => ({
    name: folder,
    fileMatch: [`content/${folder}/*.json`],
    schema,
  })),
];

const outputs = new Map<string, string>();
for (const { name, schema } of entries) {
  const jsonSchema = z.toJSONSchema(schema, { target: "draft-7", unrepresentable: "any", io: "input" });
  outputs.set(path.join(schemaDir, `${name}.schema.json`), `${JSON.stringify(jsonSchema, null, 2)}\n`);
}
const settings = {
  "json.schemas": entries.map(({ name, fileMatch }) => ({ fileMatch, url: `./schemas/${name}.schema.json` })),
};
outputs.set(path.join(root, ".vscode", "settings.json"), `${JSON.stringify(settings, null, 2)}\n`);

if (process.argv.includes("--check")) {
  const stale = [...outputs].filter(([file, text]) => !fs.existsSync(file) || fs.readFileSync(file, "utf8") !== text);
  if (stale.length > 0) {
    console.error(
      `JSON Schemas are out of date; run npm run schemas:\n  ${stale.map(([file]) => path.relative(root, file)).join("\n  ")}`,
    );
    process.exit(1);
  }
  console.log(`JSON Schemas are up to date (${entries.length} files).`);
} else {
  for (const [file, text] of outputs) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
  console.log(`Wrote ${entries.length} JSON Schemas to schemas/ and mapped them in .vscode/settings.json.`);
}
