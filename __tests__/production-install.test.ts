import fs from "node:fs";
import { isBuiltin } from "node:module";
import path from "node:path";
import ts from "typescript";

// docs/deploy-server.md lets a machine that only serves install with `npm ci --omit=dev` and copy in a build's
// dist/ and public/: every package the compiled server loads must be a dependency, not a devDependency.

const root = path.join(__dirname, "..");

interface PackageJson {
  readonly scripts: Record<string, string>;
  readonly dependencies: Record<string, string>;
  readonly devDependencies: Record<string, string>;
}

const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as PackageJson;

const EXTENSIONS = ["", ".ts", ".tsx", ".mts", ".js", ".mjs", ".cjs", ".json", "/index.ts", "/index.js"];

const resolveRelative = (from: string, specifier: string): string => {
  const base = path.resolve(path.dirname(from), specifier);
  const found = EXTENSIONS.map((extension) => base + extension).find((file) =>
    fs.statSync(file, { throwIfNoEntry: false })?.isFile(),
  );
  if (!found) throw new Error(`${path.relative(root, from)} imports ${specifier}, which does not resolve`);
  return found;
};

const packageNameOf = (specifier: string): string =>
  specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!;

/** The modules a file loads when it runs: imports and re-exports that are not type-only, import() and require(). */
const runtimeSpecifiers = (file: string): string[] => {
  const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const specifiers: string[] = [];
  const walk = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.phaseModifier === ts.SyntaxKind.TypeKeyword ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((element) => element.isTypeOnly)));
      if (!typeOnly) specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!node.isTypeOnly) specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.arguments.length > 0 && ts.isStringLiteral(node.arguments[0]!)) {
      const isImport = node.expression.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(node.expression) && node.expression.text === "require";
      if (isImport || isRequire) specifiers.push(node.arguments[0].text);
    }
    ts.forEachChild(node, walk);
  };
  walk(source);
  return specifiers;
};

/** The TypeScript source of a file tsconfig.server.json compiles into dist/. */
const sourceOfCompiled = (compiled: string): string => {
  expect(compiled).toMatch(/^dist\/.+\.js$/);
  return path.join(root, compiled.replace(/^dist\//, "").replace(/\.js$/, ".ts"));
};

/** Every package `node <compiled entry>` loads: the entry's imports, followed through the repository's sources. */
const packagesLoadedBy = (command: string): Set<string> => {
  const words = command.split(/\s+/);
  expect(words).toHaveLength(2);
  expect(words[0]).toBe("node");
  const packages = new Set<string>();
  const entry = sourceOfCompiled(words[1]!);
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file) || file.endsWith(".json")) continue;
    seen.add(file);
    for (const specifier of runtimeSpecifiers(file)) {
      if (specifier.startsWith(".")) queue.push(resolveRelative(file, specifier));
      else if (!isBuiltin(specifier)) packages.add(packageNameOf(specifier));
    }
  }
  expect(seen.size).toBeGreaterThan(10);
  return packages;
};

describe("the production server runs compiled, and a serving-only install (npm ci --omit=dev) can start it", () => {
  it("npm start serves with npm run serve", () => {
    expect(pkg.scripts.start).toBe("npm run build && npm run serve");
  });

  it("npm run serve runs the compiled server with node alone: no npm, no TypeScript loader", () => {
    expect(pkg.scripts.serve).toBe("node dist/server/main.js");
    // Beside gatsby build, and waited for: the build fails when either does.
    expect(pkg.scripts.build).toMatch(/npm run -s build:server & server=\$!; gatsby build; .*wait \$server/);
    expect(pkg.scripts["build:server"]).toBe("tsc -p tsconfig.server.json");
  });

  it("every package npm run serve loads is a dependency", () => {
    const loaded = [...packagesLoadedBy(pkg.scripts.serve!)].sort();
    expect(loaded).toEqual(expect.arrayContaining(["fastify", "@fastify/static"]));
    expect(loaded).not.toContain("tsx");
    expect(loaded.filter((name) => !(name in pkg.dependencies))).toEqual([]);
  });
});
