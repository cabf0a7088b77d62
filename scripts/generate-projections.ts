// Writes every projection of the zod content contract: the JSON Schemas that
// editors' tools check content/ against (.vscode/settings.json maps them) and
// the GraphQL types the build declares (schemas/graphql/content.graphql) and the
// editing screen's configuration (schemas/cms/config.json), kept
// so that a contract change shows in review as a change to each projection.
// The checks a projection cannot express (files exist, links resolve) stay
// with `npm run check:content` and the build.
// Usage: npm run schemas            write them
//        npm run check:schemas      fail if any is out of date
import fs from "node:fs";
import path from "node:path";
import { projectionFiles } from "../src/content-contract/projections";

const root = path.resolve(__dirname, "..");
const outputs = [...projectionFiles()].map(([file, text]) => [path.join(root, file), text] as const);

if (process.argv.includes("--check")) {
  const stale = outputs.filter(([file, text]) => !fs.existsSync(file) || fs.readFileSync(file, "utf8") !== text);
  if (stale.length > 0) {
    console.error(
      `Files generated from the content contract are out of date; run npm run schemas:\n  ${stale.map(([file]) => path.relative(root, file)).join("\n  ")}`,
    );
    process.exit(1);
  }
  console.log(`Files generated from the content contract are up to date (${outputs.length} files).`);
} else {
  for (const [file, text] of outputs) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
  console.log(`Wrote ${outputs.length} files generated from the content contract.`);
}
