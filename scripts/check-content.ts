// Validates content/ without a build: every file against the content schema,
// then slugs, compliance marks and internal links across files.
// Usage: npm run check:content [-- --dir path/to/content]
import path from "node:path";
import { fixedRoutes, formatProblem, validateContentDir } from "../src/content-contract/validate";
import { robotsProblems } from "../src/seo/robots";

const dirFlag = process.argv.indexOf("--dir");
const contentDir = path.resolve(dirFlag >= 0 ? (process.argv[dirFlag + 1] ?? "content") : "content");
const root = path.resolve(__dirname, "..");

const problems = [
  ...validateContentDir(contentDir, { routes: fixedRoutes(path.join(root, "src", "pages")) }),
  ...robotsProblems(contentDir, path.join(root, "static", "robots.txt")),
];

if (problems.length > 0) {
  console.error(`Content check failed: ${problems.length} problem${problems.length > 1 ? "s" : ""} (see CONTENT.md)`);
  for (const problem of problems) console.error(`  - ${formatProblem(problem)}`);
  process.exit(1);
}
console.log(`Content check passed: ${path.relative(process.cwd(), contentDir) || "."} is valid.`);
