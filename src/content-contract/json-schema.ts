import { z } from "zod";
import { projectionOnlyMetaKeys } from "./meta";

/**
 * A content file's JSON Schema, for editors' autocompletion and inline errors.
 * The contract's labels and hints come along; metadata meant for the GraphQL
 * and CMS projections does not, since it means nothing to a JSON editor.
 */
export const contentJsonSchema = (schema: z.ZodType) =>
  z.toJSONSchema(schema, {
    target: "draft-7",
    unrepresentable: "any",
    io: "input",
    override: ({ jsonSchema }) => {
      for (const key of projectionOnlyMetaKeys) Reflect.deleteProperty(jsonSchema, key);
    },
  });
