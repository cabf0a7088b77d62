import fs from "node:fs";
import path from "node:path";
import type { ContentProblem } from "../content-contract/validate";

/**
 * static/robots.txt must name the sitemap at the site's own address, which
 * lives in content/company.json; a domain change has to update both.
 */
export const robotsProblems = (contentDir: string, robotsPath: string): ContentProblem[] => {
  let siteUrl: string;
  try {
    // The shape is the content check's to verify; here only the address matters.
    siteUrl = (JSON.parse(fs.readFileSync(path.join(contentDir, "company.json"), "utf8")) as { siteUrl: string })
      .siteUrl;
  } catch {
    return []; // company.json's own problems are reported by the content check.
  }
  const expected = `Sitemap: ${siteUrl}/sitemap-index.xml`;
  const robots = fs.existsSync(robotsPath) ? fs.readFileSync(robotsPath, "utf8") : "";
  return robots.split(/\r?\n/).includes(expected)
    ? []
    : [
        {
          file: "static/robots.txt",
          field: "Sitemap",
          message: `must contain the line "${expected}" (siteUrl in content/company.json)`,
        },
      ];
};
