import fs from "node:fs";
import path from "node:path";
import type { SingleFileName } from "../src/content-contract/content-files";
import type { ContentPageContent, ProductCategoryContent, SingleFileContent } from "../src/content-contract/types";
import { fixedRoutes, formatProblem, listContentFiles, validateContentDir } from "../src/content-contract/validate";
import { robotsProblems } from "../src/seo/robots";
import { contentDir, editedContentCopy } from "./support/content-copy";

const root = path.join(__dirname, "..");
const routes = fixedRoutes(path.join(root, "src", "pages"));
const read = (file: string): unknown => JSON.parse(fs.readFileSync(path.join(contentDir, file), "utf8"));
// Typed by the contract: the first test below checks each file against it in full.
const readFile = <F extends SingleFileName>(file: F) => read(file) as SingleFileContent[F];
const slugOf = (file: string) => (read(file) as ProductCategoryContent | ContentPageContent).slug;

describe("the real content/ files", () => {
  it("match the content schema, and every slug, mark and internal link resolves", () => {
    expect(validateContentDir(contentDir, { routes }).map(formatProblem)).toEqual([]);
  });

  it("name the sitemap at the site's address in robots.txt", () => {
    expect(robotsProblems(contentDir, path.join(root, "static", "robots.txt"))).toEqual([]);
  });

  it("have four solution cards, eight agencies and four product categories", () => {
    expect(readFile("home.json").solutions.cards).toHaveLength(4);
    expect(readFile("agencies.json").agencies).toHaveLength(8);
    expect(listContentFiles(contentDir).filter((file) => file.startsWith("products/"))).toHaveLength(4);
  });

  it("link only to pages that exist", () => {
    const links = listContentFiles(contentDir)
      .flatMap((file) => JSON.stringify(read(file)).match(/"to":"[^"]*"/g) ?? [])
      .map((match) => (JSON.parse(`{${match}}`) as { to: string }).to)
      .filter((to) => to.startsWith("/"));
    const pages = new Set([
      ...routes,
      ...listContentFiles(contentDir)
        .filter((file) => file.startsWith("products/"))
        .map((file) => `/products/${slugOf(file)}/`),
      ...listContentFiles(contentDir)
        .filter((file) => file.startsWith("pages/"))
        .map((file) => `/${slugOf(file)}/`),
    ]);
    expect(links.length).toBeGreaterThan(20);
    for (const link of links) expect(pages).toContain(link.split(/[?#]/)[0]);
  });

  it("contain no placeholder text", () => {
    const all = listContentFiles(contentDir)
      .map((file) => fs.readFileSync(path.join(contentDir, file), "utf8"))
      .join("\n");
    expect(all).not.toMatch(/lorem|ipsum|TODO|TBD|placeholder text|example\.com/i);
  });
});

describe("content errors an editor can make", () => {
  const problems = (edits: Parameters<typeof editedContentCopy>[0]) =>
    validateContentDir(editedContentCopy(edits), { routes }).map(formatProblem);

  it("flags a misspelt field instead of ignoring it", () => {
    expect(problems([{ file: "company.json", path: ["tagLine"], value: "Uniforms" }])).toEqual([
      'content/company.json › (the whole file): unknown field "tagLine": check the spelling',
    ]);
  });

  it("rejects a logo that is neither a local file nor an https address", () => {
    expect(
      problems([
        { file: "agencies.json", path: ["agencies", 0, "logo"], value: "http://insecure.example/logo.png" },
      ])[0],
    ).toMatch(/agencies\[0\]\.logo: must be an https:\/\/ address or an existing/);
  });

  it("requires the inquiry form's quote type to be one of its types", () => {
    expect(problems([{ file: "inquiry.json", path: ["quoteType"], value: "quotation" }])[0]).toMatch(
      /^content\/inquiry\.json › quoteType: must be one of the inquiryTypes values/,
    );
  });

  it("reports a file that is not valid JSON", () => {
    const dir = editedContentCopy([]);
    fs.writeFileSync(path.join(dir, "company.json"), '{ "name": "Cardinal", }');
    expect(validateContentDir(dir, { routes }).map(formatProblem)[0]).toMatch(
      /^content\/company\.json › \(the whole file\): is not valid JSON/,
    );
  });

  it("reports a JSON file that the site does not know", () => {
    const dir = editedContentCopy([]);
    fs.writeFileSync(path.join(dir, "homepage.json"), "{}");
    expect(validateContentDir(dir, { routes }).map(formatProblem)).toEqual([
      expect.stringMatching(/^content\/homepage\.json › \(the whole file\): is not a known content file/),
    ]);
  });

  it("reports a robots.txt whose sitemap is not on the site's address", () => {
    const dir = editedContentCopy([{ file: "company.json", path: ["siteUrl"], value: "https://www.example.org" }]);
    expect(robotsProblems(dir, path.join(root, "static", "robots.txt")).map(formatProblem)).toEqual([
      'static/robots.txt › Sitemap: must contain the line "Sitemap: https://www.example.org/sitemap-index.xml" (siteUrl in content/company.json)',
    ]);
  });
});
