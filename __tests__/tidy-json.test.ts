import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { cmsConfig, type CmsField } from "../src/content-contract/cms-config";
import { contentFileKind } from "../src/content-contract/content-files";
import { createFormat, tidyObject, toJsonText } from "../src/content-contract/tidy-json";

const contentDir = path.join(__dirname, "..", "content");
const config = cmsConfig();
const format = createFormat(config);

const contentFiles = fs
  .readdirSync(contentDir, { recursive: true, encoding: "utf8" })
  .filter((file) => contentFileKind(file) !== null)
  .sort();

/** The fields Decap would use for a content file, as the config gives them. */
const fieldsOf = (file: string): readonly CmsField[] => {
  const kind = contentFileKind(file)!;
  const [site, ...folders] = config.collections;
  if (kind.kind === "single") return site!.files!.find((entry) => entry.file === `content/${file}`)!.fields;
  return folders.find((collection) => collection.folder === `content/${kind.name}`)!.fields!;
};

/** The same data with every object's keys in reverse order, as Decap may hand over a larger object. */
const reversed = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(reversed);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([key, inner]) => [key, reversed(inner)]),
    );
  }
  return value;
};

// Prettier formats only asynchronously through a dynamic import, which jest's module system cannot run:
// it formats every text the tests compare with in one child process, with the repository's settings.
const prettierJson = (texts: readonly string[]): string[] =>
  JSON.parse(
    execFileSync(
      process.execPath,
      [
        "-e",
        `const prettier = require("prettier");
        const texts = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
        prettier.resolveConfig("content/home.json").then((options) =>
          Promise.all(texts.map((text) => prettier.format(text, { ...options, parser: "json" })))
        ).then((out) => process.stdout.write(JSON.stringify(out)));`,
      ],
      { cwd: path.join(__dirname, ".."), input: JSON.stringify(texts), encoding: "utf8" },
    ),
  ) as string[];

/** A copy of the data with its first text value (depth first) replaced, as an editor's one-field edit. */
const withFirstTextChanged = (value: object, replacement: string): object => {
  let done = false;
  const visit = (node: unknown): unknown => {
    if (done) return node;
    if (typeof node === "string") {
      done = true;
      return replacement;
    }
    if (Array.isArray(node)) return node.map(visit);
    if (typeof node === "object" && node !== null) {
      return Object.fromEntries(Object.entries(node).map(([key, inner]) => [key, visit(inner)]));
    }
    return node;
  };
  return visit(value) as object;
};

const texts = contentFiles.map((file) => fs.readFileSync(path.join(contentDir, file), "utf8"));
const savedTexts = contentFiles.map((file, index) =>
  format.toFile(
    JSON.parse(texts[index]!) as object,
    fieldsOf(file).map((field) => field.name),
  ),
);
// Prettier keeps an object on one line where the original had it so; the editor writes one key a line.
const formattedTexts = prettierJson(savedTexts);

describe.each(contentFiles.map((file, index) => [file, texts[index]!, formattedTexts[index]!] as const))(
  "content/%s saved through the editing screen",
  (file, text, formatted) => {
    const names = fieldsOf(file).map((field) => field.name);

    it("comes out as `npm run format` leaves it, keys in the contract's order, whatever order Decap hands over", () => {
      expect(format.toFile(reversed(JSON.parse(text)) as object, names)).toBe(formatted);
    });

    it("is stored as the editing screen saves it, so an editor's first save changes only what they changed", () => {
      expect(format.toFile(JSON.parse(text) as object, names)).toBe(text);
    });

    it("with one field changed, differs from its tidy form by that one line", () => {
      const data = JSON.parse(text) as object;
      const changed = withFirstTextChanged(data, "Changed by an editor");
      const before = format.toFile(data, names).split("\n");
      const after = format.toFile(reversed(changed) as object, names).split("\n");
      expect(after).toHaveLength(before.length);
      const differing = after.filter((line, index) => line !== before[index]);
      expect(differing).toHaveLength(1);
      expect(differing[0]).toMatch(/^\s+"\w+": "Changed by an editor",?$/);
    });
  },
);

describe("tidyObject", () => {
  const fields: CmsField[] = [
    { name: "title", label: "Title", widget: "string" },
    { name: "updated", label: "Updated", widget: "datetime", optional: true },
    // The contract requires the key but takes it empty (a decorative picture's description).
    { name: "imageAlt", label: "Picture description", widget: "string", required: false, empty_value: "" },
    {
      name: "sections",
      label: "Sections",
      widget: "list",
      fields: [
        { name: "heading", label: "Heading", widget: "string" },
        { name: "icon", label: "Icon", widget: "select", optional: true },
        {
          name: "items",
          label: "Items",
          widget: "list",
          optional: true,
          field: { name: "items", label: "Items", widget: "string" },
        },
      ],
    },
    {
      name: "cta",
      label: "Call to action",
      widget: "object",
      optional: true,
      fields: [{ name: "label", label: "Label", widget: "string", optional: true }],
    },
  ];

  it("leaves out an optional field the editor cleared, whether Decap saved it as empty text, null or an empty list", () => {
    expect(
      tidyObject(
        {
          sections: [
            { items: [], icon: null, heading: "Hours" },
            { icon: "", heading: "Phone", items: ["Call"] },
          ],
          updated: "",
          title: "About",
          cta: { label: "" },
        },
        fields,
      ),
    ).toEqual({
      title: "About",
      imageAlt: "",
      sections: [{ heading: "Hours" }, { heading: "Phone", items: ["Call"] }],
    });
  });

  it("gives a new entry the keys it must have that the editor left untouched, empty as the contract takes them", () => {
    expect(tidyObject({ sections: [{ heading: "Hours" }], title: "About" }, fields)).toEqual({
      title: "About",
      imageAlt: "",
      sections: [{ heading: "Hours" }],
    });
  });

  it("keeps a field the contract requires, empty or not, and keys no field names at the end", () => {
    const tidied = tidyObject({ extra: 1, imageAlt: "", title: "", sections: [] }, fields);
    expect(Object.entries(tidied)).toEqual([
      ["title", ""],
      ["imageAlt", ""],
      ["sections", []],
      ["extra", 1],
    ]);
  });
});

describe("toJsonText", () => {
  const layouts = [
    ["a list of words that fits on its line", { days: ["Monday", "Tuesday"] }],
    ["a list exactly as wide as a line", { list: ["x".repeat(108)] }],
    ["a list one character too wide", { list: ["x".repeat(109)] }],
    ["a list too wide only with the comma after it", { list: ["x".repeat(108)], next: true }],
    ["nested objects, lists of objects and empty ones", { a: { b: [{ c: 1 }, { d: null }], e: {}, f: [] } }],
    ["text that needs escapes", { quote: 'He said "hi"\\n', unicode: "Café — 5 ½" }],
  ] as const;
  const expected = prettierJson(layouts.map(([, value]) => JSON.stringify(value, null, 2)));

  it.each(layouts.map(([name, value], index) => [name, value, expected[index]!] as const))(
    "lays out %s as Prettier does",
    (_, value, formatted) => {
      expect(toJsonText(value)).toBe(formatted);
    },
  );
});

it("finds a file's fields from its top-level keys, and refuses a config where two kinds of file share them", () => {
  expect(() => format.toFile({}, ["no", "such", "file"])).toThrow(
    "No content file has the top-level fields no, such, file",
  );
  const field: CmsField = { name: "title", label: "Title", widget: "string" };
  expect(() =>
    createFormat({
      collections: [
        { name: "a", fields: [field] },
        { name: "b", fields: [field] },
      ],
    }),
  ).toThrow("b has the same top-level fields as another file");
});
