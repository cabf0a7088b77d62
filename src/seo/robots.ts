import fs from "node:fs";
import path from "node:path";
import type { ContentProblem } from "../content-contract/validate";

/** The editing screen (Decap CMS) is for the company's editors, never for a search engine. */
const ROBOTS_ADMIN_RULE = "Disallow: /admin/";

/**
 * static/robots.txt must name the sitemap at the site's own address, which
 * lives in content/company.json; a domain change has to update both. It must
 * also keep crawlers out of the editing screen.
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
  const lines = robots.split(/\r?\n/);
  return [
    ...(lines.includes(expected)
      ? []
      : [
          {
            file: "static/robots.txt",
            field: "Sitemap",
            message: `must contain the line "${expected}" (siteUrl in content/company.json)`,
          },
        ]),
    ...(lines.includes(ROBOTS_ADMIN_RULE)
      ? []
      : [
          {
            file: "static/robots.txt",
            field: "Disallow",
            message: `must contain the line "${ROBOTS_ADMIN_RULE}" so that the editing screen is not crawled`,
          },
        ]),
  ];
};
