import fs from "node:fs";
import path from "node:path";
import type { z } from "zod";
import { folderSchemas, singleFileSchemas, type ContentContext } from "./schema";
import { contentFileKind, folders, singleFiles } from "./content-files";

/** One thing wrong with the content, in words an editor can act on. */
export interface ContentProblem {
  file: string;
  field: string;
  message: string;
  found?: string;
}

const WHOLE_FILE = "(the whole file)";

const describe = (value: unknown): string => {
  if (value === undefined) return "nothing";
  const json = JSON.stringify(value);
  return json.length > 80 ? `${json.slice(0, 77)}...` : json;
};

const fieldPath = (segments: readonly PropertyKey[]): string =>
  segments.reduce<string>((acc, segment) => {
    if (typeof segment === "number") return `${acc}[${segment}]`;
    return acc ? `${acc}.${String(segment)}` : String(segment);
  }, "") || WHOLE_FILE;

const toProblem = (file: string, issue: z.core.$ZodIssue): ContentProblem => {
  if (issue.code === "invalid_type" && issue.input === undefined) {
    return { file, field: fieldPath(issue.path), message: `missing required field (expected ${issue.expected})` };
  }
  if (issue.code === "unrecognized_keys") {
    return {
      file,
      field: fieldPath(issue.path),
      message: `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `"${k}"`).join(", ")}: check the spelling`,
    };
  }
  const found = "input" in issue ? describe(issue.input) : undefined;
  return { file, field: fieldPath(issue.path), message: issue.message, found };
};

export const formatProblem = (problem: ContentProblem): string =>
  `${problem.file} › ${problem.field}: ${problem.message}${problem.found === undefined ? "" : ` (found ${problem.found})`}`;

/** A context that checks referenced files on disk below `contentDir`. */
const diskContext = (contentDir: string): ContentContext => ({
  fileExists: (relativePath) => {
    const root = path.resolve(contentDir);
    const resolved = path.resolve(root, relativePath);
    return resolved.startsWith(root + path.sep) && fs.existsSync(resolved) && fs.statSync(resolved).isFile();
  },
});

const display = (relativePath: string) => `content/${relativePath}`;

/** Validates the parsed JSON of one file; `relativePath` is its path under content/. */
const validateContentData = (relativePath: string, data: unknown, ctx: ContentContext): ContentProblem[] => {
  const kind = contentFileKind(relativePath);
  if (!kind) {
    const known = [...Object.keys(singleFiles), ...Object.keys(folders).map((folder) => `${folder}/*.json`)];
    return [
      {
        file: display(relativePath),
        field: WHOLE_FILE,
        message: `is not a known content file; expected one of ${known.join(", ")}`,
      },
    ];
  }
  const schema = kind.kind === "single" ? singleFileSchemas(ctx)[kind.name] : folderSchemas(ctx)[kind.name];
  const result = schema.safeParse(data, { reportInput: true });
  return result.success ? [] : result.error.issues.map((issue) => toProblem(display(relativePath), issue));
};

const readJson = (contentDir: string, relativePath: string): { data?: unknown; problem?: ContentProblem } => {
  try {
    return { data: JSON.parse(fs.readFileSync(path.join(contentDir, relativePath), "utf8")) };
  } catch (error) {
    return {
      problem: {
        file: display(relativePath),
        field: WHOLE_FILE,
        message: `is not valid JSON: ${(error as Error).message}`,
      },
    };
  }
};

/** Every JSON file below content/, as paths relative to it. */
export const listContentFiles = (contentDir: string): string[] =>
  fs
    .readdirSync(contentDir, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".json"))
    .map((file) => file.split(path.sep).join("/"))
    .sort();

interface Linked {
  file: string;
  field: string;
  to: string;
}

/** Every {label, to} link anywhere in a file, with where it stands. */
const collectLinks = (file: string, value: unknown, segments: PropertyKey[] = []): Linked[] => {
  if (Array.isArray(value)) return value.flatMap((item, index) => collectLinks(file, item, [...segments, index]));
  if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    const own = typeof record.to === "string" ? [{ file, field: fieldPath([...segments, "to"]), to: record.to }] : [];
    return [...own, ...Object.entries(record).flatMap(([key, item]) => collectLinks(file, item, [...segments, key]))];
  }
  return [];
};

const routeOf = (to: string) => {
  const pathOnly = to.split(/[?#]/)[0] ?? to;
  return pathOnly.endsWith("/") ? pathOnly : `${pathOnly}/`;
};

/** The routes that src/pages answers by itself, from its file names. */
export const fixedRoutes = (pagesDir: string): string[] =>
  fs
    .readdirSync(pagesDir, { recursive: true, encoding: "utf8" })
    .filter((file) => /\.(tsx|ts|jsx|js)$/.test(file) && !path.basename(file).startsWith("404."))
    .map((file) => {
      const route = file
        .replace(/\.(tsx|ts|jsx|js)$/, "")
        .split(path.sep)
        .join("/")
        .replace(/(^|\/)index$/, "");
      return route ? `/${route}/` : "/";
    })
    .sort();

interface Slugged {
  slug: string;
}

/** The page that states how long inquiries are kept (delivery.retention in content/inquiry.json). */
const PRIVACY_PAGE = "pages/privacy.json";

/** The route of every page that content creates, for link checking and createPages alike. */
export const productRoute = (slug: string) => `/products/${slug}/`;
export const contentPageRoute = (slug: string) => `/${slug}/`;

/**
 * Checks that span files: a slug used twice, a compliance mark that is not
 * defined, a link to a page that does not exist.
 */
const crossCheck = (files: Map<string, unknown>, routes: readonly string[]): ContentProblem[] => {
  const problems: ContentProblem[] = [];
  const inFolder = (folder: string) =>
    [...files.entries()].filter(([file]) => file.startsWith(`${folder}/`)) as [
      string,
      Slugged & Record<string, unknown>,
    ][];

  const allRoutes = new Set(routes);
  const claim = (file: string, route: string, what: string) => {
    if (allRoutes.has(route)) {
      problems.push({
        file: display(file),
        field: "slug",
        message: `${what} ${route} is already used by another page; choose a different slug`,
        found: describe(route.split("/").filter(Boolean).pop()),
      });
    }
    allRoutes.add(route);
  };
  for (const [file, product] of inFolder("products")) claim(file, productRoute(product.slug), "the product page");
  for (const [file, page] of inFolder("pages")) claim(file, contentPageRoute(page.slug), "the page");

  const certifications = files.get("certifications.json") as { compliance: { items: { id: string }[] } } | undefined;
  const complianceIds = new Set(certifications?.compliance.items.map((item) => item.id) ?? []);
  for (const [file, product] of inFolder("products")) {
    (product.lines as { compliance: string[] }[]).forEach((line, lineIndex) =>
      line.compliance.forEach((id, index) => {
        if (!complianceIds.has(id)) {
          problems.push({
            file: display(file),
            field: `lines[${lineIndex}].compliance[${index}]`,
            message: `is not a compliance mark defined in content/certifications.json (${[...complianceIds].join(", ")})`,
            found: describe(id),
          });
        }
      }),
    );
  }

  // The privacy page promises how long inquiries are kept; the outbox removes them after the months set in
  // content/inquiry.json. The page states them through the placeholder, so the two cannot disagree.
  const privacy = files.get(PRIVACY_PAGE);
  if (privacy !== undefined && !JSON.stringify(privacy).includes("{inquiryRetentionMonths}")) {
    problems.push({
      file: display(PRIVACY_PAGE),
      field: WHOLE_FILE,
      message:
        "must say how long inquiries are kept with {inquiryRetentionMonths}, the months delivery.retention.deliveredMonths in content/inquiry.json sets",
    });
  }

  for (const [file, data] of files) {
    for (const link of collectLinks(file, data)) {
      if (link.to.startsWith("/") && !allRoutes.has(routeOf(link.to))) {
        problems.push({
          file: display(file),
          field: link.field,
          message: `links to ${routeOf(link.to)}, which no page answers`,
          found: describe(link.to),
        });
      }
    }
  }
  return problems;
};

export interface ContentCheckOptions {
  /** The routes src/pages answers without content (see fixedRoutes). */
  routes: readonly string[];
}

/** Validates every file under content/ and the links and references between them. */
export const validateContentDir = (contentDir: string, options: ContentCheckOptions): ContentProblem[] => {
  const problems: ContentProblem[] = [];
  const files = new Map<string, unknown>();
  const ctx = diskContext(contentDir);
  for (const file of listContentFiles(contentDir)) {
    const { data, problem } = readJson(contentDir, file);
    if (problem) {
      problems.push(problem);
      continue;
    }
    const fileProblems = validateContentData(file, data, ctx);
    problems.push(...fileProblems);
    if (fileProblems.length === 0) files.set(file, data);
  }
  for (const required of Object.keys(singleFiles)) {
    if (!fs.existsSync(path.join(contentDir, required))) {
      problems.push({
        file: display(required),
        field: WHOLE_FILE,
        message: "is missing; the site cannot be built without it",
      });
    }
  }
  return problems.length > 0 ? problems : crossCheck(files, options.routes);
};
