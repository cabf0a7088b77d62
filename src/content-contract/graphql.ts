import { contentSchemaEntries } from "./content-schemas";
import type { FileLink } from "./meta";
import { definitionOf, unwrap, type ContractNode, type UnwrappedNode } from "./zod-nodes";

/**
 * The GraphQL types of the content, generated from the zod contract: every
 * type is declared (`@dontInfer`) so that a field no entry happens to fill, or
 * a mistyped value, cannot change the schema the page queries are written
 * against, and since the declaration is derived, no contract field can be
 * missing from it.
 */

/** A content file type: the GraphQL node type and the contract of its files. */
export interface ContentTypeSource {
  readonly typeName: string;
  readonly schema: ContractNode;
  /** The files it describes, for error messages. */
  readonly fileMatch: string;
}

interface GraphqlField {
  readonly name: string;
  /** The field's GraphQL type, `!` included. */
  readonly type: string;
  readonly directives: readonly string[];
  readonly description?: string;
}

export interface GraphqlObjectType {
  readonly name: string;
  /** Whether this is a content file's node type (`implements Node`) rather than an object inside one. */
  readonly node: boolean;
  readonly fields: readonly GraphqlField[];
  /** The first contract path that produced the type, for error messages. */
  readonly at: string;
}

/** A field's GraphQL type without the outer `!`, and the directives the type needs on its field. */
interface FieldType {
  readonly type: string;
  readonly directives: readonly string[];
}

const scalarOfValues = (values: readonly unknown[], at: string): string => {
  const kinds = new Set(values.map((value) => typeof value));
  if (kinds.size === 1 && kinds.has("string")) return "String";
  if (kinds.size === 1 && kinds.has("boolean")) return "Boolean";
  if (kinds.size === 1 && kinds.has("number")) {
    return values.every((value) => Number.isInteger(value)) ? "Int" : "Float";
  }
  throw new Error(`${at}: GraphQL has no type for a choice between ${[...kinds].join(" and ")} values`);
};

const linkDirective = (link: FileLink, from?: string) =>
  from ? `@link(by: "${link.by}", from: "${from}")` : `@link(by: "${link.by}")`;

/** The SDL of one type. */
const printType = (type: GraphqlObjectType): string => {
  const header = type.node ? `type ${type.name} implements Node @dontInfer {` : `type ${type.name} @dontInfer {`;
  const fields = type.fields.flatMap((field) => [
    // A JSON string is a valid GraphQL string: the same quotes and escapes.
    ...(field.description ? [`  ${JSON.stringify(field.description)}`] : []),
    `  ${[`${field.name}: ${field.type}`, ...field.directives].join(" ")}`,
  ]);
  return [header, ...fields, "}"].join("\n");
};

const shapeOf = (type: GraphqlObjectType) =>
  type.fields.map((field) => [`${field.name}: ${field.type}`, ...field.directives].join(" ")).join("\n");

/**
 * Walks the content types' schemas and returns every GraphQL object type they
 * need, each once, in the order they are first met. Object nodes are named by
 * their `graphqlType` metadata; two nodes may share a name only if they give
 * the same fields (the contact and quote pages, the two kinds of option).
 */
export const graphqlObjectTypes = (sources: readonly ContentTypeSource[]): GraphqlObjectType[] => {
  const types = new Map<string, GraphqlObjectType | "pending">();

  const objectType = (name: string, node: boolean, schema: ContractNode, at: string) => {
    const definition = definitionOf(schema);
    if (definition.type !== "object") throw new Error(`${at}: a content file's schema must be an object`);
    const known = types.get(name);
    if (known === "pending") throw new Error(`${at}: ${name} contains itself, which GraphQL types here cannot`);
    if (!known) types.set(name, "pending");
    const type: GraphqlObjectType = {
      name,
      node,
      at,
      fields: Object.entries(definition.shape).flatMap(([key, field]) => fieldsOf(key, field, `${at}.${key}`)),
    };
    if (!known) types.set(name, type);
    else if (shapeOf(known) !== shapeOf(type) || known.node !== node) {
      throw new Error(
        `GraphQL type ${name} is given to two different shapes: ${known.at} and ${at}; give one of them its own graphqlType`,
      );
    }
  };

  const typeOf = (value: UnwrappedNode, at: string): FieldType => {
    const { schema, meta } = value;
    const definition = definitionOf(schema);
    if (meta.link && !meta.link.as) {
      if (definition.type !== "string" && definition.type !== "union") {
        throw new Error(`${at}: only a path (a string) can link to a ${meta.link.type}`);
      }
      return { type: meta.link.type, directives: [linkDirective(meta.link)] };
    }
    switch (definition.type) {
      case "object": {
        if (!meta.graphqlType)
          throw new Error(`${at}: an object needs .meta({ graphqlType }) to name its GraphQL type`);
        objectType(meta.graphqlType, false, schema, at);
        return { type: meta.graphqlType, directives: [] };
      }
      case "array": {
        const element = unwrap(definition.element);
        const inner = typeOf(element, `${at}[]`);
        return { type: `[${inner.type}${element.required ? "!" : ""}]`, directives: inner.directives };
      }
      case "string":
        // A date string becomes Gatsby's Date, which lets a query format it.
        return "format" in definition && definition.format === "date"
          ? { type: "Date", directives: ["@dateformat"] }
          : { type: "String", directives: [] };
      case "number":
        return "format" in definition && typeof definition.format === "string" && definition.format.includes("int")
          ? { type: "Int", directives: [] }
          : { type: "Float", directives: [] };
      case "boolean":
        return { type: "Boolean", directives: [] };
      case "enum":
        return { type: scalarOfValues(Object.values(definition.entries), at), directives: [] };
      case "literal":
        return { type: scalarOfValues(definition.values, at), directives: [] };
      case "union": {
        const options = definition.options.map((option, index) => typeOf(unwrap(option), `${at}|${index}`));
        const printed = new Set(options.map((option) => [option.type, ...option.directives].join(" ")));
        const [first] = options;
        if (!first || printed.size !== 1) {
          throw new Error(`${at}: GraphQL cannot express a choice between ${[...printed].join(", ")}`);
        }
        return first;
      }
      default:
        throw new Error(`${at}: no GraphQL type for a zod ${definition.type}`);
    }
  };

  const fieldsOf = (key: string, schema: ContractNode, at: string): GraphqlField[] => {
    const value = unwrap(schema);
    const bang = value.required ? "!" : "";
    const { link } = value.meta;
    if (link?.as) {
      const text = typeOf({ ...value, meta: { ...value.meta, link: undefined } }, at);
      return [
        { name: key, type: `${text.type}${bang}`, directives: text.directives, description: value.meta.description },
        {
          name: link.as,
          // Nullable: the path may be an address elsewhere, or name no file.
          type: link.type,
          directives: [linkDirective(link, key)],
          description: `The file that ${key} names, when it is a path under content/.`,
        },
      ];
    }
    const type = typeOf(value, at);
    return [
      { name: key, type: `${type.type}${bang}`, directives: type.directives, description: value.meta.description },
    ];
  };

  for (const { typeName, schema, fileMatch } of sources) objectType(typeName, true, schema, fileMatch);
  return [...types.values()].filter((type): type is GraphqlObjectType => type !== "pending");
};

/** GraphQL SDL for the given content types, ready for Gatsby's `createTypes`. */
export const graphqlTypeDefs = (sources: readonly ContentTypeSource[]): string =>
  `${graphqlObjectTypes(sources).map(printType).join("\n\n")}\n`;

/** The site's content types as GraphQL SDL. */
export const contentGraphqlTypeDefs = (): string => graphqlTypeDefs(contentSchemaEntries());
