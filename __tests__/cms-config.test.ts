import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { cmsConfig, flaglessSource, humanise, type CmsField } from "../src/content-contract/cms-config";
import { contentSchemaEntries } from "../src/content-contract/content-schemas";
import { contractFields, type ContractField } from "./support/contract-fields";

const config = cmsConfig();
const [site, ...folders] = config.collections;

/** Every field of the CMS config with its key path (list items looked through) and whether it is required. */
const configFields = (fields: readonly CmsField[], prefix: readonly string[] = []): ContractField[] =>
  fields.flatMap((field) => [
    { path: [...prefix, field.name], required: field.optional !== true },
    ...(field.fields ? configFields(field.fields, [...prefix, field.name]) : []),
  ]);

const fieldsOf = (name: string): readonly CmsField[] =>
  site!.files!.find((file) => file.name === name)?.fields ??
  folders.find((collection) => collection.name === name)!.fields!;

const fieldAt = (name: string, keyPath: string): CmsField =>
  keyPath
    .split(".")
    .reduce<CmsField | undefined>(
      (field, key) => (field ? field.fields : fieldsOf(name))?.find((candidate) => candidate.name === key),
      undefined,
    )!;

describe.each(contentSchemaEntries().map((entry) => [entry.fileMatch, entry] as const))("%s", (_, entry) => {
  it("is editable field by field: every contract field has a CMS field, required exactly when required, and no other", () => {
    expect(configFields(fieldsOf(entry.name))).toEqual(contractFields(entry.schema));
  });
});

it("gives every single file to one collection and each folder a collection whose new entries are named by slug", () => {
  expect(site!.files!.map((file) => file.file)).toEqual(
    contentSchemaEntries()
      .filter((entry) => !entry.fileMatch.includes("*"))
      .map((entry) => entry.fileMatch),
  );
  expect(folders.map((collection) => [collection.folder, collection.slug])).toEqual([
    ["content/products", "{{fields.slug}}"],
    ["content/pages", "{{fields.slug}}"],
  ]);
  for (const collection of config.collections) expect(collection.format).toBe("json-ordered");
});

it("labels files and fields with the contract's titles and hints, and humanises a key without one", () => {
  expect(site!.files!.find((file) => file.name === "home")!.label).toBe("Home page");
  expect(folders[0]!.label).toBe("Product categories");
  expect(folders[0]!.label_singular).toBe("Product category");
  expect(fieldAt("company", "siteUrl").label).toBe("Site address");
  expect(fieldAt("company", "siteUrl").hint).toMatch(/https:\/\/ address/);
  expect(fieldAt("company", "contact.address.postalCode").label).toBe("Postal code");
  expect(humanise("contactLabels")).toBe("Contact labels");
});

it("refuses what the contract refuses, with the contract's message", () => {
  const email = fieldAt("company", "contact.email");
  const [source, message] = email.pattern!;
  expect(message).toBe("must be an email address");
  expect(new RegExp(source).test("sales@cardinalridgesupply.com")).toBe(true);
  expect(new RegExp(source).test("sales at example")).toBe(false);

  const description = fieldAt("home", "seo.description").pattern!;
  expect(description[1]).toBe("must not be empty; should be at most 200 characters for search results");
  expect(new RegExp(description[0]).test(`  ${"x".repeat(200)} `)).toBe(true);
  expect(new RegExp(description[0]).test("x".repeat(201))).toBe(false);
  expect(new RegExp(description[0]).test("   ")).toBe(false);

  const link = fieldAt("navigation", "quoteAction.to").pattern!;
  expect(
    ["/contact/", "https://sam.gov", "mailto:a@b.co", "tel:+19195550147"].map((to) => new RegExp(link[0]).test(to)),
  ).toEqual([true, true, true, true]);
  expect(new RegExp(link[0]).test("contact")).toBe(false);
  expect(link[1]).toBe("must be a site path starting with / or an https://, mailto: or tel: address");

  const siteUrl = fieldAt("company", "siteUrl").pattern!;
  expect(new RegExp(siteUrl[0]).test("https://www.example.com")).toBe(true);
  expect(new RegExp(siteUrl[0]).test("https://www.example.com/")).toBe(false);
  expect(new RegExp(siteUrl[0]).test("http://www.example.com")).toBe(false);
});

it("matches each pattern the way zod does, over every text value in content/", () => {
  // The patterns are only useful if they accept what the contract accepts: every value that passes the
  // contract today must pass the editor's pattern too.
  const contentDir = path.join(__dirname, "..", "content");
  const read = (file: string) => JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
  const check = (fields: readonly CmsField[], data: Record<string, unknown>, where: string) => {
    for (const field of fields) {
      const value = data[field.name];
      const values = Array.isArray(value) ? value : [value];
      for (const item of values) {
        if (typeof item === "string" && field.pattern) {
          expect([where, field.name, new RegExp(field.pattern[0]).test(item)]).toEqual([where, field.name, true]);
        }
        if (field.field?.pattern && typeof item === "string") {
          expect([where, field.name, new RegExp(field.field.pattern[0]).test(item)]).toEqual([where, field.name, true]);
        }
        if (field.fields && typeof item === "object" && item !== null) {
          check(field.fields, item as Record<string, unknown>, `${where}.${field.name}`);
        }
      }
    }
  };
  for (const file of site!.files!) {
    check(file.fields, read(path.join(contentDir, "..", file.file)), file.file);
  }
  for (const collection of folders) {
    for (const name of fs.readdirSync(path.join(contentDir, "..", collection.folder!))) {
      const file = path.join(contentDir, "..", collection.folder!, name);
      check(collection.fields!, read(file), `${collection.folder}/${name}`);
    }
  }
});

it("requires a value where the contract refuses an empty one, and marks the keys a file may leave out", () => {
  expect(fieldAt("home", "hero.headline")).not.toHaveProperty("required");
  // Required key, empty allowed: a decorative picture has no description.
  expect(fieldAt("home", "hero.imageAlt")).toMatchObject({ required: false, empty_value: "" });
  expect(fieldAt("home", "hero.imageAlt")).not.toHaveProperty("optional");
  expect(fieldAt("pages", "updated")).toMatchObject({ required: false, optional: true });
  expect(fieldAt("pages", "cta")).toMatchObject({ required: false, optional: true });
  expect(fieldAt("products", "lines").fields!.find((field) => field.name === "compliance")).toMatchObject({
    required: false,
    empty_value: [],
  });
  expect(fieldAt("company", "hours.days")).not.toHaveProperty("required");
});

it("chooses widgets from the contract's types", () => {
  expect(fieldAt("company", "hours.days")).toMatchObject({ widget: "select", multiple: true, min: 1 });
  expect(fieldAt("company", "hours.days").options).toContain("Monday");
  expect(fieldAt("home", "solutions.cards")).toMatchObject({
    widget: "list",
    label_singular: "solution card",
    min: 1,
    summary: "{{fields.title}}",
  });
  expect(fieldAt("products", "order")).toMatchObject({ widget: "number", value_type: "int", min: 0 });
  expect(fieldAt("inquiry", "delivery.minFillSeconds")).toMatchObject({ value_type: "float", min: 0, max: 60 });
  expect(fieldAt("products", "overview")).toMatchObject({ widget: "list", field: { widget: "text" } });
  expect(fieldAt("pages", "updated")).toMatchObject({ widget: "datetime", format: "YYYY-MM-DD" });
  expect(fieldAt("pages", "cta")).toMatchObject({ widget: "object" });
  expect(fieldAt("agencies", "agencies").fields!.find((field) => field.name === "showLogo")).toMatchObject({
    widget: "boolean",
    default: false,
  });
  expect(fieldAt("products", "lines").fields!.find((field) => field.name === "compliance")).toMatchObject({
    widget: "relation",
    file: "certifications",
    value_field: "compliance.items.*.id",
    multiple: true,
  });
});

it("uploads images into content/images/… and keeps the path the site reads, relative to content/", () => {
  expect(config).toMatchObject({ media_folder: "content/images", public_folder: "images" });
  expect(fieldAt("home", "hero.image")).toMatchObject({ widget: "image", choose_url: false });
  expect(fieldAt("home", "hero.image").pattern![1]).toMatch(/\.jpg, \.png/);
  expect(folders[0]).toMatchObject({ media_folder: "/content/images/products", public_folder: "images/products" });
  expect(fieldAt("agencies", "agencies").fields!.find((field) => field.name === "logo")).toMatchObject({
    widget: "image",
    media_folder: "/content/images/agencies",
    public_folder: "images/agencies",
  });
});

it("writes a case-insensitive pattern without flags, which Decap cannot pass", () => {
  const source = flaglessSource(/\.(jpe?g|png)$/i);
  expect(["a.JPG", "a.jpeg", "a.Png"].every((name) => new RegExp(source).test(name))).toBe(true);
  expect(new RegExp(source).test("a.gif")).toBe(false);
  expect(() => flaglessSource(/[a-z]/i)).toThrow("list both cases");
});

it("fails loudly on a contract type the editor has no widget for", () => {
  expect(() =>
    cmsConfig([{ name: "x", fileMatch: "content/x.json", typeName: "X", schema: z.object({ when: z.date() }) }]),
  ).toThrow("no widget for a zod date");
});
