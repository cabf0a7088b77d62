import { contentSchemaEntries, type ContentSchemaEntry } from "./content-schemas";
import type { ContentMeta } from "./meta";
import { definitionOf, unwrap, type ContractNode, type UnwrappedNode } from "./zod-nodes";

/**
 * The editing screen's configuration (Decap CMS, /admin/), generated from the
 * content contract: every content file and field, with the contract's labels,
 * hints, required rules, patterns, lengths and choices, so that an edit the
 * build would refuse is refused in the editor first, with the contract's own
 * message. What a pattern cannot say (a file exists, a placeholder is known,
 * a link resolves) is still checked by the build and `npm run check:content`.
 */

/** A Decap field: its options as config.json writes them (https://decapcms.org/docs/widgets/). */
export interface CmsField {
  readonly name: string;
  readonly label: string;
  readonly widget: string;
  /** Decap's rule: false when the value may be empty. */
  readonly required?: false;
  /** The contract lets the file leave the key out; a save drops it when it is empty. */
  readonly optional?: true;
  /** What a save writes for a key the file must have when the editor left it untouched or empty. */
  readonly empty_value?: unknown;
  readonly hint?: string;
  /** A regular expression the value must match, and the contract's message when it does not. */
  readonly pattern?: readonly [string, string];
  readonly fields?: readonly CmsField[];
  readonly field?: CmsField;
  readonly [option: string]: unknown;
}

interface CmsFile {
  readonly name: string;
  readonly label: string;
  readonly file: string;
  readonly fields: readonly CmsField[];
  readonly [option: string]: unknown;
}

interface CmsCollection {
  readonly name: string;
  readonly label: string;
  readonly format: typeof CONTENT_FORMAT;
  readonly files?: readonly CmsFile[];
  readonly folder?: string;
  readonly fields?: readonly CmsField[];
  readonly [option: string]: unknown;
}

export interface CmsConfig {
  readonly collections: readonly CmsCollection[];
  readonly [option: string]: unknown;
}

/** The format the admin page registers (src/admin/admin.mjs): ordered keys, Prettier's layout. */
const CONTENT_FORMAT = "json-ordered";

/** Where the generated configuration is kept in the repository, for review; the build writes it to /admin/. */
export const CMS_CONFIG_PATH = "schemas/cms/config.json";

/** `shortName` → "Short name": the label of a field the contract gives no title. */
export const humanise = (key: string): string => {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[-_]+/g, " ")
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

// Fields that hold sentences get a multi-line box; names, labels and addresses a single line.
const PROSE_FIELD =
  /^(description|text|intro|summary|mission|disclaimer|overview|paragraphs|items|detail|competencies|differentiators|rightsNotice|requiredNote|hint)$/;

interface Check {
  readonly source: string;
  readonly message: string;
}

interface CheckDefinition {
  check?: string;
  format?: string;
  pattern?: RegExp;
  protocol?: RegExp;
  minimum?: number;
  maximum?: number;
  value?: number | bigint;
  inclusive?: boolean;
}

const checkDefinitions = (schema: ContractNode): CheckDefinition[] =>
  ((definitionOf(schema) as { checks?: { _zod: { def: CheckDefinition } }[] }).checks ?? []).map(
    (check) => check._zod.def,
  );

/** The message a check was given (`{ error: "…" }`, which zod keeps as a function returning it). */
const messageOf = (definition: object): string => {
  const { error } = definition as { error?: unknown };
  const message: unknown = typeof error === "function" ? (error as () => unknown)() : undefined;
  return typeof message === "string" ? message : "";
};

/**
 * A regular expression without flags, for Decap's `pattern` (which takes none): the `i` flag is
 * written out as a class per letter, which needs the letters to stand outside classes.
 */
export const flaglessSource = (pattern: RegExp): string => {
  const flags = pattern.flags.replace(/[gy]/g, "");
  if (flags === "") return pattern.source;
  if (flags !== "i") throw new Error(`/${pattern.source}/${pattern.flags}: only the i flag can be written out`);
  let source = "";
  let escaped = false;
  for (const character of pattern.source) {
    if (escaped) {
      source += character;
      escaped = false;
    } else if (character === "\\") {
      source += character;
      escaped = true;
    } else if (character === "[") {
      throw new Error(`/${pattern.source}/i: a class cannot be made case-insensitive here; list both cases`);
    } else if (/[a-z]/i.test(character)) {
      source += `[${character.toLowerCase()}${character.toUpperCase()}]`;
    } else {
      source += character;
    }
  }
  return source;
};

const stripAnchors = (source: string) => source.replace(/^\^/, "").replace(/\$$/, "");

/** The checks of a string the editor can test as it is typed, each as a regular expression and a message. */
const stringChecks = (schema: ContractNode): Check[] => {
  const own = definitionOf(schema) as CheckDefinition;
  const definitions = [...(own.check === "string_format" ? [own] : []), ...checkDefinitions(schema)];
  // z.string().trim() adds an overwrite check; the length checks then see the trimmed text.
  const trimmed = definitions.some((definition) => definition.check === "overwrite");
  const checks: Check[] = [];
  for (const definition of definitions) {
    const message = messageOf(definition);
    if (definition.check === "min_length" && definition.minimum !== undefined && definition.minimum > 0) {
      checks.push({
        source: trimmed && definition.minimum === 1 ? "\\S" : `^[\\s\\S]{${definition.minimum},}$`,
        message,
      });
    } else if (definition.check === "max_length" && definition.maximum !== undefined) {
      checks.push({
        source: trimmed ? `^\\s*[\\s\\S]{0,${definition.maximum}}?\\s*$` : `^[\\s\\S]{0,${definition.maximum}}$`,
        message,
      });
    } else if (definition.check === "string_format" && definition.format === "url") {
      const protocol = definition.protocol ? stripAnchors(flaglessSource(definition.protocol)) : "[a-z][a-z0-9+.-]*";
      checks.push({ source: `^(?:${protocol}):\\/\\/\\S+$`, message });
    } else if (definition.check === "string_format" && definition.pattern) {
      checks.push({ source: flaglessSource(definition.pattern), message });
    }
  }
  return checks;
};

/** One regular expression that matches where every check does (each a lookahead from the start). */
const allOf = (checks: readonly Check[]): Check | null => {
  const [first] = checks;
  if (!first) return null;
  if (checks.length === 1) return first;
  const messages = [...new Set(checks.map((check) => check.message).filter(Boolean))];
  return {
    source: `^${checks.map((check) => `(?=[\\s\\S]*?(?:${check.source}))`).join("")}`,
    message: messages.join("; "),
  };
};

/** What a string (or a choice between strings) must look like, or null when anything goes. */
const patternOf = (value: UnwrappedNode, at: string): Check | null => {
  const definition = definitionOf(value.schema);
  if (definition.type === "string") return allOf(stringChecks(value.schema));
  if (definition.type === "union") {
    const options = definition.options.map((option, index) => patternOf(unwrap(option), `${at}|${index}`));
    // An option that takes any string makes the whole choice take any string.
    if (options.some((option) => option === null)) return null;
    return {
      source: (options as Check[]).map((option) => `(?:${option.source})`).join("|"),
      message: messageOf(definition) || (options as Check[]).map((option) => option.message).join(" or "),
    };
  }
  throw new Error(`${at}: the editor has no text field for a zod ${definition.type}`);
};

const withPattern = (check: Check | null) =>
  check ? { pattern: [check.source, check.message || "has the wrong form"] as const } : {};

/** Decap's number widget bounds from a zod number's checks. */
const numberOptions = (schema: ContractNode) => {
  const definition = definitionOf(schema) as CheckDefinition & { checks?: { _zod: { def: CheckDefinition } }[] };
  const integer = typeof definition.format === "string" && definition.format.includes("int");
  const options: Record<string, unknown> = { value_type: integer ? "int" : "float" };
  for (const check of (definition.checks ?? []).map((entry) => entry._zod.def)) {
    const bound = Number(check.value);
    if (check.check === "greater_than") options.min = check.inclusive ? bound : bound + (integer ? 1 : 0);
    if (check.check === "less_than") options.max = check.inclusive ? bound : bound - (integer ? 1 : 0);
  }
  return options;
};

const listBounds = (schema: ContractNode) => {
  const options: Record<string, number> = {};
  for (const check of checkDefinitions(schema)) {
    if (check.check === "min_length" && check.minimum) options.min = check.minimum;
    if (check.check === "max_length" && check.maximum !== undefined) options.max = check.maximum;
  }
  return options;
};

const labelled = (key: string, meta: ContentMeta) => ({
  label: meta.title ?? humanise(key),
  ...(meta.description ? { hint: meta.description } : {}),
});

/** The first text field of a list item, to name the item in the list while it is collapsed. */
const summaryOf = (fields: readonly CmsField[]) => {
  const named = fields.find((field) => field.widget === "string");
  return named ? { summary: `{{fields.${named.name}}}` } : {};
};

/** Whether a pattern lets a text field be left empty, as Decap tests it. */
const acceptsEmptyText = (check: Check | null) => !check || new RegExp(check.source).test("");

/** A Decap field without its required rule, and whether the contract takes the field's value empty. */
interface Widget {
  readonly field: CmsField;
  readonly acceptsEmpty: boolean;
}

const widgetOf = (key: string, value: UnwrappedNode, at: string): Widget => {
  const base = { name: key, ...labelled(key, value.meta) };
  const definition = definitionOf(value.schema);
  switch (definition.type) {
    case "object":
      return {
        field: { ...base, widget: "object", collapsed: false, fields: cmsFields(value.schema, at) },
        acceptsEmpty: false,
      };
    case "array": {
      const element = unwrap(definition.element);
      const elementDefinition = definitionOf(element.schema);
      const bounds = listBounds(value.schema);
      const acceptsEmpty = !bounds.min;
      if (elementDefinition.type === "enum") {
        const options = Object.values(elementDefinition.entries).map(String);
        return { field: { ...base, widget: "select", multiple: true, options, ...bounds }, acceptsEmpty };
      }
      if (elementDefinition.type === "object") {
        const fields = cmsFields(element.schema, `${at}[]`);
        // "Add agency" rather than "Add agencies": the item's own title, or its GraphQL type's name.
        const singular = element.meta.title ?? humanise(element.meta.graphqlType ?? "item");
        return {
          field: {
            ...base,
            widget: "list",
            label_singular: singular.toLowerCase(),
            collapsed: true,
            ...summaryOf(fields),
            fields,
            ...bounds,
          },
          acceptsEmpty,
        };
      }
      const item = cmsField(key, definition.element, `${at}[]`);
      return { field: { ...base, widget: "list", field: { ...item, label: base.label }, ...bounds }, acceptsEmpty };
    }
    case "enum":
      return {
        field: { ...base, widget: "select", options: Object.values(definition.entries).map(String) },
        acceptsEmpty: false,
      };
    case "boolean":
      // Unticked is a value: Decap's required check passes false.
      return { field: { ...base, widget: "boolean", default: false }, acceptsEmpty: false };
    case "number":
      return { field: { ...base, widget: "number", ...numberOptions(value.schema) }, acceptsEmpty: false };
    case "string":
    case "union": {
      const check = patternOf(value, at);
      const acceptsEmpty = acceptsEmptyText(check);
      if ("format" in definition && definition.format === "date") {
        const dateFormat = { date_format: "YYYY-MM-DD", time_format: false, format: "YYYY-MM-DD", picker_utc: true };
        return { field: { ...base, widget: "datetime", ...dateFormat, ...withPattern(check) }, acceptsEmpty };
      }
      const widget = PROSE_FIELD.test(key) ? "text" : "string";
      return { field: { ...base, widget, ...withPattern(check) }, acceptsEmpty };
    }
    default:
      throw new Error(`${at}: the editor has no widget for a zod ${definition.type}`);
  }
};

/**
 * The Decap field for one key of the contract: its widget from the zod type, its rules from the checks.
 * Decap's `required` means "not empty", so a field the contract takes empty (a decorative image's
 * description, a product line with no compliance marks) is not required there; `optional` marks a key
 * the file may leave out, which is what a save drops when the editor clears it (src/admin/tidy-json.js).
 */
const cmsField = (key: string, schema: ContractNode, at: string): CmsField => {
  const value = unwrap(schema);
  const { meta } = value;
  const { field, acceptsEmpty } = widgetOf(key, value, at);
  // The contract's own widget options come last: an image picker for a path, a folder for uploads. A
  // widget of another kind keeps only what every field has, and the pattern its value must still match.
  const kept = !meta.cms?.widget || meta.cms.widget === field.widget;
  const { name, label, hint, pattern } = field;
  const common = { name, label, ...(hint ? { hint } : {}), ...(pattern ? { pattern } : {}) };
  // CmsFieldMeta holds Decap's options by name; the widget, name and label are set either way.
  const widget = { ...(kept ? field : common), ...meta.cms } as CmsField;
  if (!value.required) return { ...widget, required: false, optional: true };
  if (widget.widget === "boolean") return { ...widget, empty_value: false };
  if (!acceptsEmpty) return widget;
  // The file must have the key even when the editor leaves it empty. Not Decap's `default`: a default
  // inside a list item makes Decap start a new entry's list with an item nobody added.
  return { ...widget, required: false, empty_value: widget.multiple === true || widget.widget === "list" ? [] : "" };
};

/** The fields of an object node, in the contract's order (which is the order a saved file keeps). */
const cmsFields = (schema: ContractNode, at: string): CmsField[] => {
  const definition = definitionOf(schema);
  if (definition.type !== "object") throw new Error(`${at}: a content file or section must be an object`);
  return Object.entries(definition.shape).map(([key, field]) => cmsField(key, field, `${at}.${key}`));
};

const fileMetaOf = (entry: ContentSchemaEntry) => unwrap(entry.schema).meta;

/**
 * The configuration the content decides. The single files form one collection; each folder is a
 * collection of its own whose new entries are named after their slug. Where saves go (the backend) is
 * the deploy's to say, not the content's: src/admin/editing-backend.ts adds it when the build writes
 * the screen, and admin.js switches to decap-server on an editor's machine.
 */
export const cmsConfig = (entries: readonly ContentSchemaEntry[] = contentSchemaEntries()): CmsConfig => {
  const single = entries.filter((entry) => !entry.fileMatch.endsWith("*.json"));
  const folders = entries.filter((entry) => entry.fileMatch.endsWith("*.json"));
  const files: CmsFile[] = single.map((entry) => {
    const meta = fileMetaOf(entry);
    return {
      name: entry.name,
      label: meta.title ?? humanise(entry.name),
      file: entry.fileMatch,
      fields: cmsFields(unwrap(entry.schema).schema, entry.fileMatch),
      ...meta.cms,
    };
  });
  const folderCollections: CmsCollection[] = folders.map((entry) => {
    const meta = fileMetaOf(entry);
    const fields = cmsFields(unwrap(entry.schema).schema, entry.fileMatch);
    return {
      name: entry.name,
      label: humanise(entry.name),
      ...(meta.title ? { label_singular: meta.title } : {}),
      ...(meta.description ? { description: meta.description } : {}),
      folder: entry.fileMatch.replace(/\/\*\.json$/, ""),
      extension: "json",
      format: CONTENT_FORMAT,
      create: true,
      // A new entry's file is named after its slug, as the existing ones are.
      slug: "{{fields.slug}}",
      identifier_field: fields.some((field) => field.name === "title") ? "title" : fields[0]?.name,
      fields,
      ...meta.cms,
    };
  });
  return {
    // Uploads land under content/images and the JSON keeps the path relative to content/, as the site reads it.
    media_folder: "content/images",
    public_folder: "images",
    // The preview pane draws the site's own pages (src/admin/preview/), one template per file and folder.
    editor: { preview: true },
    collections: [{ name: "site", label: "Site content", format: CONTENT_FORMAT, files }, ...folderCollections],
  };
};
