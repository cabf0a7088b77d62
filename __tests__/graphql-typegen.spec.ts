/**
 * @jest-environment node
 */
/**
 * The query types Gatsby's graphqlTypegen writes to src/gatsby-types.d.ts on every build, held against the
 * GraphQL types the content contract gives gatsby-node (__tests__/content-projections.test.ts holds the
 * contract's other projections).
 *
 * Not a *.test.ts file: the types are the build's output and, as Gatsby's docs advise, are not committed,
 * so a bare `npx jest` on a fresh clone has none. `npm test` runs this by name (`npm run test:typegen`)
 * after the build that its type check makes.
 */
import fs from "node:fs";
import path from "node:path";
import { contentSchemaEntries } from "../src/content-contract/content-schemas";
import { graphqlObjectTypes } from "../src/content-contract/graphql";

const typegenPath = path.join(__dirname, "..", "src", "gatsby-types.d.ts");

describe("the query types graphqlTypegen wrote to src/gatsby-types.d.ts (npm run build)", () => {
  it("match the GraphQL types of the content contract", () => {
    if (!fs.existsSync(typegenPath)) {
      throw new Error(
        "src/gatsby-types.d.ts is missing: it is written by a build (npm run build), which npm test runs",
      );
    }
    const typegen = fs.readFileSync(typegenPath, "utf8");
    const scalars = new Set(["String", "Int", "Float", "Boolean", "Date"]);
    const tsType = (type: string): string => {
      const bare = type.endsWith("!") ? type.slice(0, -1) : type;
      const inner = bare.startsWith("[")
        ? `ReadonlyArray<${tsType(bare.slice(1, -1))}>`
        : scalars.has(bare)
          ? `Scalars['${bare}']`
          : bare;
      return type.endsWith("!") ? inner : `Maybe<${inner}>`;
    };
    const types = graphqlObjectTypes(contentSchemaEntries());
    expect(types.length).toBeGreaterThan(1);
    for (const type of types) {
      const block = new RegExp(`\\ntype ${type.name} = (Node & )?\\{\\n([\\s\\S]*?)\\n\\};`).exec(typegen);
      const written = new Map(
        [...(block?.[2] ?? "").matchAll(/^ {2}readonly (\w+): (.*);$/gm)].map(([, name, tsFieldType]) => [
          name,
          tsFieldType,
        ]),
      );
      for (const field of type.fields) {
        expect({ at: `${type.name}.${field.name}`, type: written.get(field.name) }).toEqual({
          at: `${type.name}.${field.name}`,
          type: tsType(field.type),
        });
      }
      expect({ type: type.name, node: block?.[1] === "Node & " }).toEqual({ type: type.name, node: type.node });
    }
  });
});
