import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";

const root = path.join(__dirname, "..");

/** What a copy of the repository needs for the check: not the installed modules, builds or reports. */
const LEFT_OUT = new Set([
  "node_modules",
  ".git",
  "public",
  ".cache",
  "reports",
  "test-results",
  "playwright-report",
  ".data",
  ".netlify",
]);

const copies: string[] = [];
afterEach(() => {
  for (const dir of copies.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A copy of the repository's files, to break one claim in; removed after the test. */
const repositoryCopy = (): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "docs-check-"));
  copies.push(dir);
  for (const entry of fs.readdirSync(root)) {
    if (!LEFT_OUT.has(entry)) fs.cpSync(path.join(root, entry), path.join(dir, entry), { recursive: true });
  }
  return dir;
};

const edit = (dir: string, file: string, change: (text: string) => string) => {
  const full = path.join(dir, file);
  const before = fs.readFileSync(full, "utf8");
  const after = change(before);
  // A change that did not apply would make the test pass on the unbroken copy.
  expect(after).not.toBe(before);
  fs.writeFileSync(full, after);
};

const checkDocs = (dir: string) =>
  spawnSync(
    path.join(root, "node_modules", ".bin", "tsx"),
    [path.join(root, "scripts", "check-docs.ts"), "--root", dir],
    {
      cwd: root,
      encoding: "utf8",
    },
  );

const expectFailure = (dir: string, problem: string) => {
  const result = checkDocs(dir);
  expect(result.stderr).toContain(problem);
  expect(result.stderr).toContain("Docs check failed: 1 problem");
  expect(result.status).toBe(1);
};

// Each case spawns the check in a child process: the Markdown libraries are ES modules only, which Node loads and
// jest's module system does not.
jest.setTimeout(60_000);

describe("npm run check:docs", () => {
  it("passes the repository as it is", () => {
    const result = checkDocs(root);
    expect(result.stderr).toBe("");
    expect(result.stdout).toMatch(/^Docs check passed: \d+ guides\.$/m);
    expect(result.status).toBe(0);
  });

  it("passes an unchanged copy, so that each case below fails on its own change", () => {
    const result = checkDocs(repositoryCopy());
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  });

  it("fails on an npm script that package.json does not have", () => {
    const dir = repositoryCopy();
    edit(dir, "docs/development.md", (text) => `${text}\nRun \`npm run check:everything\` before a push.\n`);
    expectFailure(dir, "npm run check:everything: package.json has no such script");
  });

  it("fails on a script of package.json that docs/development.md does not name", () => {
    const dir = repositoryCopy();
    edit(dir, "package.json", (text) => text.replace('"lint": ', '"lint:fix": "eslint --fix .",\n    "lint": '));
    expectFailure(dir, "npm run lint:fix is a script that it does not name");
  });

  it("fails when docs/configuration.md's settings table is not what the catalogue makes", () => {
    const dir = repositoryCopy();
    edit(dir, "docs/configuration.md", (text) =>
      text.replace(/^(\| `PORT` +\|.*)$/m, "$1\n| `SITE_THEME` | `light` | any text | server | the colours |"),
    );
    expectFailure(dir, "the settings table is not what server/settings/catalog.ts makes");
  });

  it("fails when docs/configuration.md has lost the settings table's markers", () => {
    const dir = repositoryCopy();
    edit(dir, "docs/configuration.md", (text) => text.replace("<!-- end of the settings table -->", ""));
    expectFailure(dir, "has no settings table between");
  });

  it("passes the settings table laid out again (Prettier's padding is not content)", () => {
    const dir = repositoryCopy();
    edit(dir, "docs/configuration.md", (text) => text.replace(/^(\| `PORT`) +\|/m, "$1 |"));
    expect(checkDocs(dir).status).toBe(0);
  });

  it("fails on a relative link to a file that does not exist", () => {
    const dir = repositoryCopy();
    edit(dir, "README.md", (text) => `${text}\nSee [the upgrade guide](docs/upgrading.md).\n`);
    expectFailure(dir, "links to docs/upgrading.md: docs/upgrading.md does not exist");
  });

  it("fails on an anchor that no heading of the target makes", () => {
    const dir = repositoryCopy();
    edit(dir, "CONTENT.md", (text) => `${text}\nSee [the variables](docs/configuration.md#the-variables-table).\n`);
    expectFailure(
      dir,
      "links to docs/configuration.md#the-variables-table: docs/configuration.md has no #the-variables-table",
    );
  });

  it("fails when README's first commands are not what .ci/run runs", () => {
    const dir = repositoryCopy();
    edit(dir, "README.md", (text) => text.replace(/^npm test(\s)/m, "npm run test:unit$1"));
    expectFailure(dir, "npm run test:unit: .ci/run does not run it");
  });

  it("fails on a budget in budgets.json without its one-line reason", () => {
    const dir = repositoryCopy();
    edit(dir, "budgets.json", (text) => text.replace(/\n\s*"refusedCpuMsPerRequest: [^"]*",/, ""));
    expectFailure(dir, 'refusedCpuMsPerRequest has no one-line reason in "$comment"');
  });

  it("fails when docs/performance-log.md's table misstates a budget's value, leaves one out or names none", () => {
    const dir = repositoryCopy();
    edit(dir, "docs/performance-log.md", (text) =>
      text
        .replace(/(\| `deploy\.buildPeakMemoryMb` +\| )≤ 3500 MB/, "$1≤ 3000 MB")
        .replace(/\n\| `netlifyLoad\.inquiries` [^\n]*/, "")
        .replace("`inquiryScale.startupSeconds`", "`inquiryScale.startSeconds`"),
    );
    const result = checkDocs(dir);
    expect(result.stderr).toContain('deploy.buildPeakMemoryMb is 3500 in budgets.json, but its row says "≤ 3000 MB"');
    expect(result.stderr).toContain("netlifyLoad.inquiries of budgets.json has no row in the table");
    // The renamed row: a budget without its row, and a row without its budget.
    expect(result.stderr).toContain("inquiryScale.startupSeconds of budgets.json has no row in the table");
    expect(result.stderr).toContain("inquiryScale.startSeconds is not a budget of budgets.json");
    expect(result.stderr).toContain("Docs check failed: 4 problems");
    expect(result.status).toBe(1);
  });

  it("fails when .ci/run stops running README's test command", () => {
    const dir = repositoryCopy();
    edit(dir, ".ci/run", (text) => text.replace(/^npm test$/m, "npm run test:unit"));
    expectFailure(dir, "npm test: .ci/run does not run it");
  });
});
