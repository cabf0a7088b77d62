// The tables of settings, generated from their catalogues: docs/configuration.md's from the site's
// (server/settings/catalog.ts), docs/development.md's from the tests' and benches' (testing/tool-settings.ts). One
// row per variable, between two marker comments; the prose around each table is written by hand.
// `npm run docs:settings` writes them, and `npm run check:docs` (part of `npm test`) fails when a committed table is
// not what its catalogue makes.
// Usage: npm run docs:settings [-- --check]
import fs from "node:fs";
import path from "node:path";
import { metaOfField, siteSettings, type Catalogue, type SettingMeta } from "../server/settings/catalog";
import { toolCatalogue } from "../testing/tool-settings";

/** A generated table: the guide that holds it, the catalogue it lists, and the file that catalogue is in. */
export interface SettingsTable {
  readonly doc: string;
  readonly settings: Catalogue;
  readonly source: string;
}

export const SETTINGS_TABLES: readonly SettingsTable[] = [
  { doc: "docs/configuration.md", settings: siteSettings.shape, source: "server/settings/catalog.ts" },
  { doc: "docs/development.md", settings: toolCatalogue, source: "testing/tool-settings.ts" },
];

const markersOf = ({ source }: SettingsTable) => ({
  begin: `<!-- settings table: generated from ${source} by npm run docs:settings -->`,
  end: "<!-- end of the settings table -->",
});

const HEADER = ["variable", "default", "allowed", "where it applies", "what it does"];

const defaultOf = (setting: SettingMeta): string => {
  if (setting.defaultText !== undefined) return setting.defaultText;
  const value = setting.default;
  if (value === null || value === false) return "unset";
  if (value === true) return "on";
  return `\`${typeof value === "string" ? value : JSON.stringify(value)}\``;
};

const rows = (settings: Catalogue): string[][] =>
  Object.entries(settings).map(([name, field]) => {
    const setting = metaOfField(name, field);
    return [`\`${name}\``, defaultOf(setting), setting.allowed, setting.applies.join(", "), setting.meaning];
  });

/** The table as Prettier lays it out (each column as wide as its widest cell), so that `npm run format` keeps it. */
export const settingsTable = (settings: Catalogue): string => {
  const table = [HEADER, ...rows(settings)];
  const widths = HEADER.map((_, column) => Math.max(3, ...table.map((row) => (row[column] ?? "").length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(" | ")} |`;
  const [header, ...body] = table;
  return [line(header ?? []), line(widths.map((width) => "-".repeat(width))), ...body.map(line)].join("\n");
};

/** A table's lines with the padding left out: a reformatted table is the same table. */
const normalized = (table: string): string[] =>
  table
    .trim()
    .split("\n")
    .map((row) =>
      row
        .split("|")
        .map((cell) => cell.trim().replace(/^-+$/, "-"))
        .join("|"),
    );

interface Located {
  readonly before: string;
  readonly table: string;
  readonly after: string;
}

const locate = (table: SettingsTable, text: string): Located | null => {
  const markers = markersOf(table);
  const begin = text.indexOf(markers.begin);
  const end = text.indexOf(markers.end, begin);
  if (begin === -1 || end === -1) return null;
  return {
    before: text.slice(0, begin + markers.begin.length),
    table: text.slice(begin + markers.begin.length, end),
    after: text.slice(end),
  };
};

/** What is wrong with a guide's committed table: nothing (null), no markers, or the first row that differs. */
export const settingsTableProblem = (table: SettingsTable, text: string): { line: number; message: string } | null => {
  const located = locate(table, text);
  const { begin, end } = markersOf(table);
  if (!located) return { line: 0, message: `has no settings table between ${begin} and ${end}` };
  const committed = normalized(located.table);
  const generated = normalized(settingsTable(table.settings));
  const differs = generated.findIndex((row, index) => committed[index] !== row);
  if (differs === -1 && committed.length === generated.length) return null;
  const index = differs === -1 ? generated.length : differs;
  const line = located.before.split("\n").length + 1 + index;
  return {
    line,
    message: `the settings table is not what ${table.source} makes (first at row ${index + 1}): run npm run docs:settings`,
  };
};

/** The guide with its table replaced by the generated one. */
const withSettingsTable = (table: SettingsTable, text: string): string => {
  const located = locate(table, text);
  const { begin, end } = markersOf(table);
  if (!located) throw new Error(`${table.doc} has no markers ${begin} and ${end}`);
  return `${located.before}\n\n${settingsTable(table.settings)}\n\n${located.after}`;
};

const main = () => {
  for (const table of SETTINGS_TABLES) {
    const file = path.join(__dirname, "..", table.doc);
    const text = fs.readFileSync(file, "utf8");
    if (process.argv.includes("--check")) {
      const problem = settingsTableProblem(table, text);
      if (problem) {
        console.error(`${table.doc}:${problem.line}: ${problem.message}`);
        process.exitCode = 1;
      }
      continue;
    }
    const updated = withSettingsTable(table, text);
    if (updated !== text) fs.writeFileSync(file, updated);
    console.log(`${table.doc}: ${Object.keys(table.settings).length} settings`);
  }
};

if (require.main === module) main();
