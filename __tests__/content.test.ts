import fs from "node:fs";
import path from "node:path";
import { contentTypeNames } from "../src/content/content-files";
import { diskContext, formatProblem, validateContentData, validateContentFile } from "../src/content/validate";

const contentDir = path.join(__dirname, "..", "content");
const read = (file: string) => JSON.parse(fs.readFileSync(path.join(contentDir, file), "utf8"));
const check = (file: string, data: unknown) => validateContentData(file, data, diskContext(contentDir)).map(formatProblem);

describe("the real content/ files", () => {
  it.each(Object.keys(contentTypeNames))("%s matches the content schema", (file) => {
    expect(validateContentFile(contentDir, file).map(formatProblem)).toEqual([]);
  });

  it("has no JSON file the schema does not know", () => {
    const files = fs.readdirSync(contentDir).filter((name) => name.endsWith(".json"));
    expect(files.sort()).toEqual(Object.keys(contentTypeNames).sort());
  });

  it("has four solution cards and eight agencies, as the specification asks", () => {
    expect(read("home.json").solutions.cards).toHaveLength(4);
    expect(read("agencies.json").agencies).toHaveLength(8);
  });

  it("contains no placeholder text", () => {
    const all = fs
      .readdirSync(contentDir)
      .filter((name) => name.endsWith(".json"))
      .map((name) => fs.readFileSync(path.join(contentDir, name), "utf8"))
      .join("\n");
    expect(all).not.toMatch(/lorem|ipsum|TODO|TBD|placeholder text|example\.com/i);
  });
});

describe("content errors an editor can make", () => {
  it("names a missing required field", () => {
    const home = read("home.json");
    delete home.hero.headline;
    expect(check("home.json", home)).toEqual(["content/home.json › hero.headline: missing required field (expected string)"]);
  });

  it("names a value of the wrong type with what was found", () => {
    const agencies = read("agencies.json");
    agencies.agencies[2].showLogo = "yes";
    expect(check("agencies.json", agencies)).toEqual([
      'content/agencies.json › agencies[2].showLogo: Invalid input: expected boolean, received string (found "yes")',
    ]);
  });

  it("rejects an icon name that has no icon", () => {
    const home = read("home.json");
    home.solutions.cards[1].icon = "rocket";
    const [problem] = check("home.json", home);
    expect(problem).toMatch(/^content\/home\.json › solutions\.cards\[1\]\.icon: must be one of the icon names: uniform, tactical/);
    expect(problem).toMatch(/\(found "rocket"\)$/);
  });

  it("rejects an image file that does not exist", () => {
    const home = read("home.json");
    home.hero.image = "images/hero-new.jpg";
    expect(check("home.json", home)).toEqual([
      'content/home.json › hero.image: names an image file that does not exist under content/ (found "images/hero-new.jpg")',
    ]);
  });

  it("rejects a logo that is neither a local file nor an https address", () => {
    const agencies = read("agencies.json");
    agencies.agencies[0].logo = "http://insecure.example/logo.png";
    expect(check("agencies.json", agencies)[0]).toMatch(/agencies\[0\]\.logo: must be an https:\/\/ address or an existing/);
  });

  it("flags a misspelt field instead of ignoring it", () => {
    const company = read("company.json");
    company.tagLine = company.tagline;
    expect(check("company.json", company)).toEqual(['content/company.json › (the whole file): unknown field "tagLine": check the spelling']);
  });

  it("requires the inquiry form's default type to be one of its types", () => {
    const inquiry = read("inquiry.json");
    inquiry.quoteType = "quotation";
    expect(check("inquiry.json", inquiry)[0]).toMatch(/^content\/inquiry\.json › quoteType: must be one of the inquiryTypes values/);
  });

  it("reports a file that is not valid JSON", () => {
    const dir = fs.mkdtempSync(path.join(require("node:os").tmpdir(), "content-"));
    fs.writeFileSync(path.join(dir, "company.json"), '{ "name": "Cardinal", }');
    expect(validateContentFile(dir, "company.json", "content/company.json").map(formatProblem)[0]).toMatch(
      /^content\/company\.json › \(the whole file\): is not valid JSON/,
    );
  });
});
