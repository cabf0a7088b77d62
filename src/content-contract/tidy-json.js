// How the editing screen (/admin/) writes a content file: keys in the contract's order, a cleared
// optional field left out instead of saved as "" or null, and the layout `npm run format` (Prettier,
// printWidth 120) gives JSON, so that a one-field edit is a one-line diff. Part of the content contract:
// the committed projections (schemas/) are written in the same layout (projections.ts).
//
// Plain JavaScript, served as it is: the admin page loads Decap's own prebuilt bundle and shares no
// build with the site, so nothing would compile TypeScript for it. The same file is a CommonJS module
// for the unit tests (__tests__/tidy-json.test.ts, typed by tidy-json.d.ts) and, loaded by the admin
// page, sets `globalThis.tidyJson`.
(function (define) {
  "use strict";

  const PRINT_WIDTH = 120;
  const INDENT = "  ";

  const isPlainObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);

  const isEmpty = (value) =>
    value === undefined ||
    value === null ||
    value === "" ||
    (Array.isArray(value) && value.length === 0) ||
    (isPlainObject(value) && Object.keys(value).length === 0);

  /**
   * The value with every object's keys in the order of its fields, and every optional field (one the
   * contract lets a file leave out) whose value was cleared taken out: Decap keeps a cleared field as
   * empty text, no choice, an empty list or an object with nothing left, which the contract refuses.
   * A field the contract requires stays, empty or not. Keys no field names keep their place after the
   * named ones, for the content check to report.
   */
  const tidyValue = (value, field) => {
    if (field.fields && isPlainObject(value)) return tidyObject(value, field.fields);
    if (Array.isArray(value)) {
      if (field.fields) return value.map((item) => (isPlainObject(item) ? tidyObject(item, field.fields) : item));
      if (field.field) return value.map((item) => tidyValue(item, field.field));
    }
    return value;
  };

  const tidyObject = (object, fields) => {
    const result = {};
    for (const field of fields) {
      const given = Object.prototype.hasOwnProperty.call(object, field.name) ? object[field.name] : undefined;
      // A key the file must have, which Decap leaves out of a new entry until the editor fills it in
      // and sets to null when a choice is cleared.
      if ((given === undefined || given === null) && field.empty_value !== undefined) {
        result[field.name] = field.empty_value;
        continue;
      }
      if (given === undefined) continue;
      const value = tidyValue(given, field);
      if (field.optional && isEmpty(value)) continue;
      result[field.name] = value;
    }
    for (const key of Object.keys(object)) {
      if (!Object.prototype.hasOwnProperty.call(result, key) && !fields.some((field) => field.name === key)) {
        result[key] = object[key];
      }
    }
    return result;
  };

  const isScalar = (value) => value === null || typeof value !== "object";

  /**
   * Prettier's layout of JSON: objects always open one key a line (content files are written that way,
   * and Prettier keeps an object broken once it is), an array of plain values on one line when it fits
   * within the print width with what precedes and follows it on that line, otherwise one item a line.
   */
  const format = (value, indent, lineStart, lineEnd) => {
    if (isScalar(value)) return JSON.stringify(value);
    const inner = indent + INDENT;
    if (Array.isArray(value)) {
      if (value.length === 0) return "[]";
      if (value.every(isScalar)) {
        const flat = `[${value.map((item) => JSON.stringify(item)).join(", ")}]`;
        if (lineStart + flat.length + lineEnd <= PRINT_WIDTH) return flat;
      }
      const items = value.map(
        (item, index) => inner + format(item, inner, inner.length, index < value.length - 1 ? 1 : 0),
      );
      return `[\n${items.join(",\n")}\n${indent}]`;
    }
    const keys = Object.keys(value).filter((key) => value[key] !== undefined);
    if (keys.length === 0) return "{}";
    const entries = keys.map((key, index) => {
      const prefix = `${inner}${JSON.stringify(key)}: `;
      return prefix + format(value[key], inner, prefix.length, index < keys.length - 1 ? 1 : 0);
    });
    return `{\n${entries.join(",\n")}\n${indent}}`;
  };

  /** The text of a content file: tidied by its fields when given, formatted, with a final newline. */
  const toJsonText = (value, fields) => `${format(fields ? tidyObject(value, fields) : value, "", 0, 0)}\n`;

  /**
   * A Decap CMS format (CMS.registerCustomFormat) for the content files the config describes. Decap
   * tells toFile only the names of a file's top-level fields, in the config's order; every content
   * file kind has its own set of them, which is how the file's whole field tree is found.
   */
  const createFormat = (config) => {
    const byTopLevelKeys = new Map();
    const remember = (fields, where) => {
      const key = fields.map((field) => field.name).join("\n");
      if (byTopLevelKeys.has(key)) throw new Error(`${where} has the same top-level fields as another file`);
      byTopLevelKeys.set(key, fields);
    };
    for (const collection of config.collections) {
      if (collection.fields) remember(collection.fields, collection.name);
      for (const file of collection.files ?? []) remember(file.fields, `${collection.name}/${file.name}`);
    }
    return {
      fromFile: (text) => JSON.parse(text),
      toFile: (data, sortedKeys = []) => {
        const fields = byTopLevelKeys.get(sortedKeys.join("\n"));
        if (!fields) throw new Error(`No content file has the top-level fields ${sortedKeys.join(", ")}`);
        return toJsonText(data, fields);
      },
    };
  };

  define({ tidyObject, toJsonText, createFormat });
})((api) => {
  if (typeof module === "object" && module.exports) module.exports = api;
  else globalThis.tidyJson = api;
});
