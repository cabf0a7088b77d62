import { definitionOf, unwrap, type ContractNode } from "../../src/content-contract/zod-nodes";

export interface ContractField {
  /** Keys from the file's top level down; list items are looked through, so navigation's links give ["main", "label"]. */
  readonly path: readonly string[];
  readonly required: boolean;
}

/** The node a value holds, with lists looked through to their items. */
const itemNode = (schema: ContractNode): ContractNode => {
  const inner = unwrap(schema).schema;
  const definition = definitionOf(inner);
  return definition.type === "array" ? itemNode(definition.element) : inner;
};

/** Every field of a content file's contract, those of nested objects included: what each projection must show. */
export const contractFields = (schema: ContractNode, prefix: readonly string[] = []): ContractField[] => {
  const definition = definitionOf(itemNode(schema));
  if (definition.type !== "object") return [];
  return Object.entries(definition.shape).flatMap(([key, field]) => [
    { path: [...prefix, key], required: unwrap(field).required },
    ...contractFields(field, [...prefix, key]),
  ]);
};
