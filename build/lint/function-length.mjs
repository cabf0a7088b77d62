// An ESLint rule: a function may have at most `max` lines of its own. The lines of a function nested inside it
// count toward the nested one, not the outer, so a factory of small closures is as readable as small functions.
const FUNCTION_NODES = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

const linesOf = (node) => node.loc.end.line - node.loc.start.line + 1;

/** The functions directly inside `node`, not inside another function within it. */
const nestedFunctions = (node, visitorKeys) => {
  const found = [];
  const visit = (child) => {
    if (!child || typeof child.type !== "string") return;
    if (FUNCTION_NODES.has(child.type)) {
      found.push(child);
      return;
    }
    for (const key of visitorKeys[child.type] ?? []) {
      const value = child[key];
      for (const item of Array.isArray(value) ? value : [value]) visit(item);
    }
  };
  for (const key of visitorKeys[node.type] ?? []) {
    const value = node[key];
    for (const item of Array.isArray(value) ? value : [value]) visit(item);
  }
  return found;
};

export const functionLength = {
  meta: {
    type: "suggestion",
    schema: [{ type: "object", properties: { max: { type: "integer" } }, additionalProperties: false }],
    messages: { tooLong: "This function has {{lines}} lines of its own; at most {{max}}." },
  },
  create(context) {
    const max = context.options[0]?.max ?? 60;
    const { visitorKeys } = context.sourceCode;
    const check = (node) => {
      const own = linesOf(node) - nestedFunctions(node, visitorKeys).reduce((sum, inner) => sum + linesOf(inner), 0);
      if (own > max) context.report({ node, messageId: "tooLong", data: { lines: own, max } });
    };
    return { FunctionDeclaration: check, FunctionExpression: check, ArrowFunctionExpression: check };
  },
};
