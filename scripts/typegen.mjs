// Regenerates src/gatsby-types.d.ts from the current schema and queries without
// a full build: Gatsby's bootstrap (sourcing, schema, query extraction) and
// then the same type writer that `gatsby build` runs at its end.
import { createRequire } from "node:module";
import path from "node:path";
import { readFileSync } from "node:fs";

const require = createRequire(import.meta.url);
const directory = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
process.env.GATSBY_TELEMETRY_DISABLED = "1";
process.env.NODE_ENV ??= "production";
process.chdir(directory);

const reporter = require("gatsby-cli/lib/reporter");
const { bootstrap } = require("gatsby/dist/bootstrap");
const { store } = require("gatsby/dist/redux");
const { writeTypeScriptTypes } = require("gatsby/dist/utils/graphql-typegen/ts-codegen");

const program = {
  directory,
  sitePackageJson: JSON.parse(readFileSync(path.join(directory, "package.json"), "utf8")),
  browserslist: [">0.25%", "not dead"],
  command: "build",
  _: ["build"],
  host: "localhost",
  port: 9000,
  verbose: false,
  prefixPaths: false,
};

try {
  await bootstrap({ program });
  const { schema, definitions, config } = store.getState();
  await writeTypeScriptTypes(directory, schema, definitions, config.graphqlTypegen);
  reporter.success(`GraphQL types written to ${config.graphqlTypegen.typesOutputPath}`);
  // Bootstrap leaves work queued for its worker pool (schema for query running) that typegen does not
  // need; ending the pool under it fails with EPIPE, so exit and let the workers go with the process.
  process.exit(0);
} catch (error) {
  reporter.panic("Could not generate GraphQL types", error);
}
