import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { GatsbyNode } from "gatsby";
import { createSchemaCustomization } from "../gatsby-node";
import { contentSchemaEntries } from "../src/content-contract/content-schemas";
import {
  contentGraphqlTypeDefs,
  graphqlObjectTypes,
  graphqlTypeDefs,
  type GraphqlObjectType,
} from "../src/content-contract/graphql";
import { contentJsonSchema } from "../src/content-contract/json-schema";
import { graphqlSnapshotHeader, graphqlSnapshotPath, projectionFiles } from "../src/content-contract/projections";
import { contractFields } from "./support/contract-fields";

const root = path.join(__dirname, "..");
const entries = contentSchemaEntries();
const types = new Map(graphqlObjectTypes(entries).map((type) => [type.name, type]));

type JsonSchema = z.core.JSONSchema.BaseSchema;
const asObject = (schema: z.core.JSONSchema._JSONSchema | undefined): JsonSchema =>
  typeof schema === "object" ? schema : {};

/** The JSON Schema node of a property, list items looked through as the contract's fields are. */
const jsonProperty = (schema: JsonSchema, key: string): JsonSchema => {
  let node = asObject(schema.properties?.[key]);
  while (node.type === "array" && !Array.isArray(node.items)) node = asObject(node.items);
  return node;
};

const namedType = (type: string) => type.replace(/[[\]!]/g, "");

describe("the projections of the content contract", () => {
  it("are committed as the contract generates them (npm run schemas)", () => {
    for (const [file, text] of projectionFiles()) {
      expect({ file, text: fs.readFileSync(path.join(root, file), "utf8") }).toEqual({ file, text });
    }
  });

  it("give gatsby-node exactly the generated GraphQL types, nothing written by hand", async () => {
    const createTypes = jest.fn();
    const args = { actions: { createTypes } } as unknown as Parameters<
      NonNullable<GatsbyNode["createSchemaCustomization"]>
    >[0];
    await createSchemaCustomization?.(args, { plugins: [] }, () => undefined);
    expect(createTypes.mock.calls).toEqual([[contentGraphqlTypeDefs()]]);
    expect(fs.readFileSync(path.join(root, graphqlSnapshotPath), "utf8")).toBe(
      `${graphqlSnapshotHeader}${contentGraphqlTypeDefs()}`,
    );
  });

  describe.each(entries)("for $fileMatch", ({ typeName, schema }) => {
    const fields = contractFields(schema);

    it("has fields to compare", () => {
      expect(fields.length).toBeGreaterThan(1);
    });

    it("show every contract field in the GraphQL types, non-null exactly when required", () => {
      for (const { path: keys, required } of fields) {
        let type: GraphqlObjectType | undefined = types.get(typeName);
        let field: GraphqlObjectType["fields"][number] | undefined;
        for (const key of keys) {
          field = type?.fields.find((candidate) => candidate.name === key);
          type = field && types.get(namedType(field.type));
        }
        expect({ at: keys.join("."), type: field?.type.endsWith("!") }).toEqual({ at: keys.join("."), type: required });
      }
    });

    it("show every contract field in the JSON Schema, required exactly when required", () => {
      for (const { path: keys, required } of fields) {
        const parent = keys.slice(0, -1).reduce(jsonProperty, asObject(contentJsonSchema(schema)));
        const key = keys.at(-1) ?? "";
        expect({
          at: keys.join("."),
          present: key in (parent.properties ?? {}),
          required: (parent.required ?? []).includes(key),
        }).toEqual({
          at: keys.join("."),
          present: true,
          required,
        });
      }
    });
  });
});

describe("the GraphQL projection", () => {
  const tiny = (part: z.ZodRawShape) =>
    z.strictObject({
      title: z.string(),
      part: z.strictObject({ count: z.int(), ...part }).meta({ graphqlType: "TinyPart" }),
    });
  const sources = (schema: z.ZodType) => [{ typeName: "TinyJson", schema, fileMatch: "content/tiny.json" }];

  it("shows a field added to the contract in the GraphQL types and the JSON Schema", () => {
    const before = tiny({});
    const after = tiny({ subtitle: z.string().optional() });
    expect(graphqlTypeDefs(sources(before))).not.toContain("subtitle");
    expect(graphqlTypeDefs(sources(after))).toBe(
      [
        "type TinyJson implements Node @dontInfer {",
        "  title: String!",
        "  part: TinyPart!",
        "}",
        "",
        "type TinyPart @dontInfer {",
        "  count: Int!",
        "  subtitle: String",
        "}",
        "",
      ].join("\n"),
    );
    expect(jsonProperty(asObject(contentJsonSchema(before)), "part").properties).not.toHaveProperty("subtitle");
    const part = jsonProperty(asObject(contentJsonSchema(after)), "part");
    expect(part.properties?.subtitle).toEqual({ type: "string" });
    expect(part.required).toEqual(["count"]);
  });

  it("maps each kind of contract field to its GraphQL type, with descriptions and File links from .meta()", () => {
    const option = z.strictObject({ value: z.string(), label: z.string() }).meta({ graphqlType: "TinyOption" });
    const schema = z.strictObject({
      updated: z.iso.date().optional(),
      ratio: z.number().min(0),
      shown: z.boolean(),
      kind: z.enum(["a", "b"]),
      tags: z.array(z.string().trim()).min(1),
      options: z.array(option).optional(),
      otherOptions: z.array(
        z.strictObject({ value: z.string().regex(/^x/), label: z.string() }).meta({ graphqlType: "TinyOption" }),
      ),
      to: z.union([z.string().regex(/^\//), z.email()]),
      image: z.string().meta({ description: "A path under content/.", link: { type: "File", by: "relativePath" } }),
      logo: z.string().meta({ link: { type: "File", by: "relativePath", as: "logoFile" } }),
    });
    expect(graphqlTypeDefs(sources(schema))).toBe(
      [
        "type TinyJson implements Node @dontInfer {",
        "  updated: Date @dateformat",
        "  ratio: Float!",
        "  shown: Boolean!",
        "  kind: String!",
        "  tags: [String!]!",
        "  options: [TinyOption!]",
        "  otherOptions: [TinyOption!]!",
        "  to: String!",
        '  "A path under content/."',
        '  image: File! @link(by: "relativePath")',
        "  logo: String!",
        '  "The file that logo names, when it is a path under content/."',
        '  logoFile: File @link(by: "relativePath", from: "logo")',
        "}",
        "",
        "type TinyOption @dontInfer {",
        "  value: String!",
        "  label: String!",
        "}",
        "",
      ].join("\n"),
    );
    expect(JSON.stringify(contentJsonSchema(schema))).not.toMatch(/graphqlType|relativePath|logoFile/);
  });

  it("refuses an object without a GraphQL type name, naming where it is", () => {
    const schema = z.strictObject({ part: z.strictObject({ count: z.int() }) });
    expect(() => graphqlTypeDefs(sources(schema))).toThrow(
      "content/tiny.json.part: an object needs .meta({ graphqlType }) to name its GraphQL type",
    );
  });

  it("refuses one type name for two different shapes", () => {
    const schema = z.strictObject({
      a: z.strictObject({ count: z.int() }).meta({ graphqlType: "TinyPart" }),
      b: z.strictObject({ count: z.string() }).meta({ graphqlType: "TinyPart" }),
    });
    expect(() => graphqlTypeDefs(sources(schema))).toThrow(
      "GraphQL type TinyPart is given to two different shapes: content/tiny.json.a and content/tiny.json.b",
    );
  });

  it("refuses a choice GraphQL cannot express", () => {
    const schema = z.strictObject({ size: z.union([z.string(), z.int()]) });
    expect(() => graphqlTypeDefs(sources(schema))).toThrow(
      "content/tiny.json.size: GraphQL cannot express a choice between String, Int",
    );
  });
});
