import { globalRegistry, type z } from "zod";
import type { ContentMeta } from "./meta";

/** What the projections of the contract read from its zod nodes, in one place. */

export type ContractNode = z.core.$ZodType;

/** A node's definition, typed by its kind (`type`), so a switch over kinds narrows it. */
export const definitionOf = (schema: ContractNode) => (schema as z.core.$ZodTypes)._zod.def;

export interface UnwrappedNode {
  /** The node that says what the value is: an object, array, string, … */
  readonly schema: ContractNode;
  /** False when a wrapper lets the value be left out (optional, nullable, a default). */
  readonly required: boolean;
  readonly meta: ContentMeta;
}

/**
 * Looks through optional, nullable, default and pipe wrappers to the node that
 * says what the value is. The metadata of every layer counts, the outermost
 * first, so `.meta()` on a field's `.optional()` is not lost.
 */
export const unwrap = (schema: ContractNode): UnwrappedNode => {
  let current = schema;
  let required = true;
  let meta: ContentMeta = {};
  for (;;) {
    meta = { ...globalRegistry.get(current), ...meta };
    const definition = definitionOf(current);
    switch (definition.type) {
      case "optional":
      case "nullable":
      case "default":
      case "prefault":
        required = false;
        current = definition.innerType;
        break;
      case "readonly":
        current = definition.innerType;
        break;
      case "pipe":
        // Content files hold what the pipe takes in.
        current = definition.in;
        break;
      default:
        return { schema: current, required, meta };
    }
  }
};
