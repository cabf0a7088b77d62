import fs from "node:fs";
import path from "node:path";
import type { z } from "zod";
import { contentSchemas, type ContentContext } from "./schema";
import { contentTypeNames, isContentFileName } from "./content-files";

/** One thing wrong with one content file, in words an editor can act on. */
export interface ContentProblem {
  file: string;
  field: string;
  message: string;
  found?: string;
}

const describe = (value: unknown): string => {
  if (value === undefined) return "nothing";
  const json = JSON.stringify(value);
  return json.length > 80 ? `${json.slice(0, 77)}...` : json;
};

const fieldPath = (segments: readonly PropertyKey[]): string =>
  segments.reduce<string>((acc, segment) => {
    if (typeof segment === "number") return `${acc}[${segment}]`;
    return acc ? `${acc}.${String(segment)}` : String(segment);
  }, "") || "(the whole file)";

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

/** Validates the parsed JSON of one file; `relativePath` is its path under content/. */
export const validateContentData = (
  relativePath: string,
  data: unknown,
  ctx: ContentContext,
  displayPath = `content/${relativePath}`,
): ContentProblem[] => {
  if (!isContentFileName(relativePath)) {
    return [
      {
        file: displayPath,
        field: "(the whole file)",
        message: `is not a known content file; expected one of ${Object.keys(contentTypeNames).join(", ")}`,
      },
    ];
  }
  const result = contentSchemas(ctx)[relativePath].safeParse(data, { reportInput: true });
  return result.success ? [] : result.error.issues.map((issue) => toProblem(displayPath, issue));
};

/** A context that checks referenced files on disk below `contentDir`. */
export const diskContext = (contentDir: string): ContentContext => ({
  fileExists: (relativePath) => {
    const resolved = path.resolve(contentDir, relativePath);
    return resolved.startsWith(path.resolve(contentDir) + path.sep) && fs.existsSync(resolved) && fs.statSync(resolved).isFile();
  },
});

/** Reads and validates one JSON file from disk. */
export const validateContentFile = (contentDir: string, relativePath: string, displayPath?: string): ContentProblem[] => {
  const shown = displayPath ?? path.join(path.basename(contentDir), relativePath);
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(path.join(contentDir, relativePath), "utf8"));
  } catch (error) {
    return [{ file: shown, field: "(the whole file)", message: `is not valid JSON: ${(error as Error).message}` }];
  }
  return validateContentData(relativePath, data, diskContext(contentDir), shown);
};
