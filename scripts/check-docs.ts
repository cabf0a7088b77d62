// The docs check (`npm run check:docs`, part of `npm test`): fails when the guides say something the repository
// does not do. Five kinds of claim are held to the code:
// - every `npm run <script>` (and `npm start`, `npm test`) in README.md, CONTENT.md and docs/**/*.md is a script
//   of package.json, and every script of package.json is named in docs/development.md;
// - docs/configuration.md's and docs/development.md's tables of settings are the ones their catalogues
//   (server/settings/catalog.ts, testing/tool-settings.ts) generate (scripts/settings-doc.ts); that the code reads
//   its settings through a catalogue is a jest test's;
// - every relative link and `#anchor` resolves (anchors by GitHub's own slug rules, github-slugger);
// - README's first code block, the commands a newcomer runs first, is what .ci/run runs;
// - every budget in budgets.json keeps its one-line reason, a line `<key>: …` of its object's "$comment", and a row
//   of docs/performance-log.md's table with its value.
// Usage: npm run check:docs [-- --root <a copy of the repository>]
import fs from "node:fs";
import path from "node:path";
import GithubSlugger from "github-slugger";
import type { Code, Nodes, Root, Table } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { toString as textOf } from "mdast-util-to-string";
import { gfm } from "micromark-extension-gfm";
import { visit } from "unist-util-visit";
import { SETTINGS_TABLES, settingsTableProblem, type SettingsTable } from "./settings-doc";

export interface DocsProblem {
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

/** The guides the check reads, relative to the repository's root. */
const docFiles = (root: string): string[] => [
  ...["README.md", "CONTENT.md"].filter((file) => fs.existsSync(path.join(root, file))),
  ...fs.globSync("docs/**/*.md", { cwd: root }).sort(),
];

const parseMarkdown = (text: string): Root =>
  fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });

const lineOf = (node: Nodes): number => node.position?.start.line ?? 0;

interface ParsedDoc {
  readonly file: string;
  readonly text: string;
  readonly tree: Root;
}

/** The anchors GitHub gives a Markdown file: one per heading, numbered when repeated, and any HTML `id` or `name`. */
const anchorsOf = (tree: Root): Set<string> => {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  visit(tree, (node) => {
    if (node.type === "heading") anchors.add(slugger.slug(textOf(node)));
    if (node.type === "html")
      for (const [, anchor] of node.value.matchAll(/\b(?:id|name)="([^"]+)"/g)) if (anchor) anchors.add(anchor);
  });
  return anchors;
};

const isExternal = (url: string) => /^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith("//");

const checkLinks = (root: string, doc: ParsedDoc, parsed: (file: string) => ParsedDoc | null): DocsProblem[] => {
  const problems: DocsProblem[] = [];
  visit(doc.tree, (node) => {
    if (node.type !== "link" && node.type !== "image" && node.type !== "definition") return;
    const url = node.url;
    if (url === "" || isExternal(url)) return;
    const hashAt = url.indexOf("#");
    const target = decodeURIComponent(hashAt === -1 ? url : url.slice(0, hashAt));
    const anchor = hashAt === -1 ? null : decodeURIComponent(url.slice(hashAt + 1));
    // A link starting with / is the repository's root on GitHub; any other is relative to the file.
    const resolved = target.startsWith("/")
      ? path.join(root, target)
      : target === ""
        ? path.join(root, doc.file)
        : path.join(root, path.dirname(doc.file), target);
    const relative = path.relative(root, resolved);
    if (!fs.existsSync(resolved)) {
      problems.push({ file: doc.file, line: lineOf(node), message: `links to ${url}: ${relative} does not exist` });
      return;
    }
    if (anchor === null || anchor === "" || !relative.endsWith(".md")) return;
    const targetDoc = parsed(relative);
    if (targetDoc && !anchorsOf(targetDoc.tree).has(anchor)) {
      problems.push({ file: doc.file, line: lineOf(node), message: `links to ${url}: ${relative} has no #${anchor}` });
    }
  });
  return problems;
};

interface PackageJson {
  readonly scripts: Record<string, string>;
}

const readPackage = (root: string): PackageJson =>
  JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as PackageJson;

/** `npm run <name>`, `npm start` or `npm test`: the script's name is the first group or the second. */
const NPM_SCRIPT = /\bnpm (?:run ([\w:-]*[\w-])|(start|test)\b)/.source;

const checkScripts = (doc: ParsedDoc, scripts: Record<string, string>): DocsProblem[] =>
  doc.text.split("\n").flatMap((line, index) =>
    [...line.matchAll(new RegExp(NPM_SCRIPT, "g"))]
      .flatMap(([, runName, builtinName]) => [runName ?? builtinName ?? ""])
      .filter((name) => !(name in scripts))
      .map((name) => ({
        file: doc.file,
        line: index + 1,
        message: `npm run ${name}: package.json has no such script`,
      })),
  );

const DEVELOPMENT_DOC = "docs/development.md";
/** Scripts npm runs by itself at a point of its life cycle, named in the guide by their name alone. */
const LIFECYCLE_SCRIPTS = new Set(["preinstall", "install", "postinstall", "prepare", "prepack", "postpack"]);

/** Every script of package.json is in the developers' guide: `npm run x`, `npm start`, `npm test`, or `postinstall`. */
const checkScriptsListed = (development: ParsedDoc | null, scripts: Record<string, string>): DocsProblem[] => {
  if (!development) return [{ file: DEVELOPMENT_DOC, line: 0, message: "is missing" }];
  const named = new Set(
    [...development.text.matchAll(new RegExp(`${NPM_SCRIPT}|${/`([\w:-]+)`/.source}`, "g"))].flatMap(
      ([, runName, builtinName, codeName]) => [
        runName ?? builtinName ?? (LIFECYCLE_SCRIPTS.has(codeName ?? "") ? codeName : ""),
      ],
    ),
  );
  return Object.keys(scripts)
    .filter((name) => !named.has(name))
    .map((name) => ({ file: DEVELOPMENT_DOC, line: 0, message: `npm run ${name} is a script that it does not name` }));
};

/** A guide's settings table against the catalogue it is generated from. */
const checkSettings = (table: SettingsTable, doc: ParsedDoc | null): DocsProblem[] => {
  if (!doc) return [{ file: table.doc, line: 0, message: "is missing" }];
  const problem = settingsTableProblem(table, doc.text);
  return problem ? [{ file: table.doc, ...problem }] : [];
};

/** The commands of a shell file or code block, one per line, without comments, split at `&&`. */
const commandsOf = (text: string): string[] =>
  text
    .split("\n")
    .map((line) => line.replace(/(^|\s)#.*$/, "").trim())
    .filter(Boolean)
    .flatMap((line) => line.split("&&").map((part) => part.trim()));

const scriptNameOf = (command: string): string | null => {
  const match = new RegExp(`^${NPM_SCRIPT}$`).exec(command);
  return match ? (match[1] ?? match[2] ?? null) : null;
};

/**
 * README's first code block against .ci/run. The install: README's `npm install` and CI's `npm ci` install the same
 * lock file (CI's refuses to change it). Every other command must be one CI runs: a line of .ci/run, or an npm script
 * whose parts CI runs; `npm run serve` counts when its command is the one Playwright's webServer starts for
 * `npm run test:e2e` in CI.
 */
const checkReadmeCommands = (
  root: string,
  readme: ParsedDoc | null,
  scripts: Record<string, string>,
): DocsProblem[] => {
  if (!readme) return [{ file: "README.md", line: 0, message: "is missing" }];
  const blocks: Code[] = [];
  visit(readme.tree, "code", (code) => {
    blocks.push(code);
  });
  const [block] = blocks;
  if (!block) return [{ file: "README.md", line: 0, message: "has no code block with the commands to run first" }];
  const { value } = block;
  const line = lineOf(block);
  const ciPath = path.join(root, ".ci", "run");
  if (!fs.existsSync(ciPath)) return [{ file: ".ci/run", line: 0, message: "is missing" }];
  const ci = new Set(commandsOf(fs.readFileSync(ciPath, "utf8")));
  const playwrightConfigPath = path.join(root, "playwright.config.ts");
  const playwrightConfig = fs.existsSync(playwrightConfigPath) ? fs.readFileSync(playwrightConfigPath, "utf8") : "";
  const runByCi = (command: string, depth: number): boolean => {
    if (ci.has(command)) return true;
    const name = scriptNameOf(command);
    const script = name === null ? undefined : scripts[name];
    if (script === undefined || depth > 3) return false;
    if (ci.has("npm run test:e2e") && playwrightConfig.includes(`command: ${JSON.stringify(script)}`)) return true;
    return commandsOf(script).every((part) => runByCi(part, depth + 1));
  };
  const installs = [...ci].some((command) => /^npm (ci|install)\b/.test(command));
  return commandsOf(value).flatMap((command): DocsProblem[] => {
    if (/^npm (ci|install)$/.test(command)) {
      return installs ? [] : [{ file: "README.md", line, message: `${command}: .ci/run installs nothing` }];
    }
    return runByCi(command, 0) ? [] : [{ file: "README.md", line, message: `${command}: .ci/run does not run it` }];
  });
};

type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

const BUDGETS_DOC = "docs/performance-log.md";

/** A budget of budgets.json: its path (`deploy.buildPeakMemoryMb`) and the numbers it holds. */
interface Budget {
  readonly path: string;
  readonly values: readonly number[];
}

/** The numbers written in a cell, thousands separators ignored: "≤ 3,500 MB" holds 3500. */
const numbersIn = (text: string): number[] =>
  [...text.replace(/(\d),(?=\d{3}\b)/g, "$1").matchAll(/\d+(?:\.\d+)?/g)].map(([number]) => Number(number));

/**
 * Each budget needs a line starting `<its key>: ` in the "$comment" list of the object that holds it, and a row of
 * docs/performance-log.md's table naming its path with its value; every row there names a budget. A budget is a
 * number, or an object of numbers without a "$comment" of its own (an lhci assertion, `{ "minScore": 0.95 }`).
 */
const checkBudgets = (root: string, table: ParsedDoc | null): DocsProblem[] => {
  const budgetsPath = path.join(root, "budgets.json");
  if (!fs.existsSync(budgetsPath)) return [];
  const problems: DocsProblem[] = [];
  const budgets: Budget[] = [];
  const isObject = (value: JsonValue): value is Record<string, JsonValue> =>
    value !== null && typeof value === "object" && !Array.isArray(value);
  const numbersOf = (value: JsonValue): number[] =>
    typeof value === "number" ? [value] : isObject(value) ? Object.values(value).flatMap(numbersOf) : [];
  const walk = (value: Record<string, JsonValue>, where: string): void => {
    const comment = value.$comment;
    const lines = Array.isArray(comment) ? comment.filter((line): line is string => typeof line === "string") : [];
    for (const [key, child] of Object.entries(value)) {
      if (key === "$comment") continue;
      if (isObject(child) && "$comment" in child) {
        walk(child, `${where}${key}.`);
        continue;
      }
      budgets.push({ path: `${where}${key}`, values: numbersOf(child) });
      if (!lines.some((line) => line.startsWith(`${key}: `))) {
        problems.push({
          file: "budgets.json",
          line: 0,
          message: `${where}${key} has no one-line reason in "$comment"`,
        });
      }
    }
  };
  const parsedBudgets = JSON.parse(fs.readFileSync(budgetsPath, "utf8")) as JsonValue;
  if (isObject(parsedBudgets)) walk(parsedBudgets, "");
  if (!table) return [...problems, { file: BUDGETS_DOC, line: 0, message: "is missing" }];

  // The table's rows: the budget's path in code in the first cell, its value in the second.
  const rows = new Map<string, { line: number; value: string }>();
  visit(table.tree, "table", (node: Table) => {
    for (const row of node.children.slice(1)) {
      const [name, value] = row.children;
      const code = name?.children.find((child) => child.type === "inlineCode");
      if (code) rows.set(code.value, { line: lineOf(row), value: value ? textOf(value) : "" });
    }
  });
  for (const { path: budgetPath, values } of budgets) {
    const row = rows.get(budgetPath);
    if (!row) {
      problems.push({ file: BUDGETS_DOC, line: 0, message: `${budgetPath} of budgets.json has no row in the table` });
      continue;
    }
    const written = numbersIn(row.value);
    const missing = values.filter((value) => !written.includes(value));
    if (missing.length > 0) {
      problems.push({
        file: BUDGETS_DOC,
        line: row.line,
        message: `${budgetPath} is ${values.join(", ")} in budgets.json, but its row says "${row.value}"`,
      });
    }
  }
  const known = new Set(budgets.map((budget) => budget.path));
  for (const [name, { line }] of rows) {
    if (!known.has(name))
      problems.push({ file: BUDGETS_DOC, line, message: `${name} is not a budget of budgets.json` });
  }
  return problems;
};

export const checkDocs = (root: string): DocsProblem[] => {
  const cache = new Map<string, ParsedDoc | null>();
  const parsed = (file: string): ParsedDoc | null => {
    if (!cache.has(file)) {
      const full = path.join(root, file);
      const text = fs.existsSync(full) ? fs.readFileSync(full, "utf8") : null;
      cache.set(file, text === null ? null : { file, text, tree: parseMarkdown(text) });
    }
    return cache.get(file) ?? null;
  };
  const { scripts } = readPackage(root);
  const docs = docFiles(root)
    .map(parsed)
    .filter((doc): doc is ParsedDoc => doc !== null);
  return [
    ...docs.flatMap((doc) => [...checkScripts(doc, scripts), ...checkLinks(root, doc, parsed)]),
    ...checkScriptsListed(parsed(DEVELOPMENT_DOC), scripts),
    ...SETTINGS_TABLES.flatMap((table) => checkSettings(table, parsed(table.doc))),
    ...checkReadmeCommands(root, parsed("README.md"), scripts),
    ...checkBudgets(root, parsed(BUDGETS_DOC)),
  ];
};

const main = () => {
  const rootAt = process.argv.indexOf("--root");
  const rootArgument = rootAt === -1 ? path.join(__dirname, "..") : process.argv[rootAt + 1];
  if (rootArgument === undefined) throw new Error("--root needs a folder");
  const root = path.resolve(rootArgument);
  const problems = checkDocs(root);
  if (problems.length === 0) {
    console.log(`Docs check passed: ${docFiles(root).length} guides.`);
    return;
  }
  console.error(`Docs check failed: ${problems.length} problem${problems.length === 1 ? "" : "s"}`);
  for (const { file, line, message } of problems) console.error(`  ${file}${line ? `:${line}` : ""}: ${message}`);
  process.exitCode = 1;
};

if (require.main === module) main();
