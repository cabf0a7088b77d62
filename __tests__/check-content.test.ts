import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { fixedRoutes, formatProblem, validateContentDir } from "../src/content-contract/validate";
import { editedContentCopy, type ContentEdit } from "./support/content-copy";

interface BrokenCase {
  description: string;
  edits: ContentEdit[];
  expected: string;
}

const root = path.join(__dirname, "..");
const routes = fixedRoutes(path.join(root, "src", "pages"));
const casesDir = path.join(__dirname, "fixtures", "broken-content");
const cases = fs
  .readdirSync(casesDir)
  .sort()
  .map((file) => [file, JSON.parse(fs.readFileSync(path.join(casesDir, file), "utf8")) as BrokenCase] as const);

describe("content check on broken content", () => {
  it.each(cases)("%s: rejects %s", (_file, broken) => {
    const dir = editedContentCopy(broken.edits);
    const problems = validateContentDir(dir, { routes }).map(formatProblem);
    // The first problem is the one the editor made; a duplicate slug also strands the links to the lost page.
    expect(problems[0]).toBe(broken.expected);
  });
});

describe("npm run check:content", () => {
  const run = (dir: string) =>
    spawnSync(path.join(root, "node_modules", ".bin", "tsx"), ["scripts/check-content.ts", "--dir", dir], {
      cwd: root,
      encoding: "utf8",
    });

  it("passes the real content", () => {
    const result = run(path.join(root, "content"));
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("Content check passed");
  });

  it("fails with the file, field, what was found and what was expected", () => {
    const [, broken] = cases.find(([file]) => file === "broken-internal-link.json")!;
    const result = run(editedContentCopy(broken.edits));
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("Content check failed: 1 problem");
    expect(result.stderr).toContain(broken.expected);
  });
});
