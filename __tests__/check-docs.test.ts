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

  it("fails on a variable the code reads that docs/configuration.md does not list", () => {
    const dir = repositoryCopy();
    fs.writeFileSync(
      path.join(dir, "scripts", "new-setting.ts"),
      'export const retries = Number(process.env["EXPORT_RETRIES"] ?? 3);\n',
    );
    expectFailure(dir, "EXPORT_RETRIES is read by scripts/new-setting.ts but not listed in the table");
  });

  it("fails on a variable a helper reads by name (setting(env, name)) that is not listed", () => {
    const dir = repositoryCopy();
    edit(dir, "server/inquiries/config.ts", (text) =>
      text.replace(
        'SMTP_URL: setting(env, "SMTP_URL"),',
        'SMTP_URL: setting(env, "SMTP_URL") ?? setting(env, "SMTP_RELAY_URL"),',
      ),
    );
    expectFailure(dir, "SMTP_RELAY_URL is read by server/inquiries/config.ts but not listed in the table");
  });

  it("fails on a listed variable that nothing reads", () => {
    const dir = repositoryCopy();
    edit(dir, "docs/configuration.md", (text) =>
      text.replace(/^(\| `PORT` +\|.*)$/m, "$1\n| `SITE_THEME` | `light` | server | the colours |"),
    );
    expectFailure(dir, "SITE_THEME is listed, but no code reads it");
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

  it("fails when .ci/run stops running README's test command", () => {
    const dir = repositoryCopy();
    edit(dir, ".ci/run", (text) => text.replace(/^npm test$/m, "npm run test:unit"));
    expectFailure(dir, "npm test: .ci/run does not run it");
  });
});
