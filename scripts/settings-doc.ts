// docs/configuration.md's table of settings, generated from the catalogue (server/settings/catalog.ts): one row per
// variable, between two marker comments; the prose around it is written by hand. `npm run docs:settings` writes it,
// and `npm run check:docs` (part of `npm test`) fails when the committed table is not what the catalogue makes.
// Usage: npm run docs:settings [-- --check]
import fs from "node:fs";
import path from "node:path";
import { catalogue, type Setting } from "../server/settings/catalog";

export const SETTINGS_DOC = "docs/configuration.md";
export const TABLE_BEGIN =
  "<!-- settings table: generated from server/settings/catalog.ts by npm run docs:settings -->";
export const TABLE_END = "<!-- end of the settings table -->";

const HEADER = ["variable", "default", "allowed", "where it applies", "what it does"];

const defaultOf = (setting: Setting<unknown>): string => {
  if (setting.defaultText !== undefined) return setting.defaultText;
  const value = setting.default;
  if (value === null || value === false) return "unset";
  if (value === true) return "on";
  return `\`${typeof value === "string" ? value : JSON.stringify(value)}\``;
};

const rows = (): string[][] =>
  Object.entries(catalogue).map(([name, entry]) => {
    const setting: Setting<unknown> = entry;
    return [`\`${name}\``, defaultOf(setting), setting.allowed, setting.applies.join(", "), setting.meaning];
  });

/** The table as Prettier lays it out (each column as wide as its widest cell), so that `npm run format` keeps it. */
export const settingsTable = (): string => {
  const table = [HEADER, ...rows()];
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

const locate = (text: string): Located | null => {
  const begin = text.indexOf(TABLE_BEGIN);
  const end = text.indexOf(TABLE_END);
  if (begin === -1 || end < begin) return null;
  return {
    before: text.slice(0, begin + TABLE_BEGIN.length),
    table: text.slice(begin + TABLE_BEGIN.length, end),
    after: text.slice(end),
  };
};

/** What is wrong with the committed table: nothing (null), no markers, or the first row that differs. */
export const settingsTableProblem = (text: string): { line: number; message: string } | null => {
  const located = locate(text);
  if (!located) return { line: 0, message: `has no settings table between ${TABLE_BEGIN} and ${TABLE_END}` };
  const committed = normalized(located.table);
  const generated = normalized(settingsTable());
  const differs = generated.findIndex((row, index) => committed[index] !== row);
  if (differs === -1 && committed.length === generated.length) return null;
  const index = differs === -1 ? generated.length : differs;
  const line = located.before.split("\n").length + 1 + index;
  return {
    line,
    message: `the settings table is not what server/settings/catalog.ts makes (first at row ${index + 1}): run npm run docs:settings`,
  };
};

/** The file with its table replaced by the generated one. */
export const withSettingsTable = (text: string): string => {
  const located = locate(text);
  if (!located) throw new Error(`${SETTINGS_DOC} has no markers ${TABLE_BEGIN} and ${TABLE_END}`);
  return `${located.before}\n\n${settingsTable()}\n\n${located.after}`;
};

const main = () => {
  const file = path.join(__dirname, "..", SETTINGS_DOC);
  const text = fs.readFileSync(file, "utf8");
  if (process.argv.includes("--check")) {
    const problem = settingsTableProblem(text);
    if (problem) {
      console.error(`${SETTINGS_DOC}:${problem.line}: ${problem.message}`);
      process.exitCode = 1;
    }
    return;
  }
  const updated = withSettingsTable(text);
  if (updated !== text) fs.writeFileSync(file, updated);
  console.log(`${SETTINGS_DOC}: ${Object.keys(catalogue).length} settings`);
};

if (require.main === module) main();
