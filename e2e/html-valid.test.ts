import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import * as z from "zod";
import { expect, test } from "./support/fixtures";
import { sitePaths } from "../testing/site-server";

// The Nu Html Checker (the W3C's validator, from the vnu-jar package) over every page of the build, errors
// only: no page may hold markup or inline CSS that the HTML standard calls an error. It needs Java 11 or
// later on PATH (docs/development.md, "Browser tests"); vnu-jar's own download of a Java is
// not run (allowScripts in package.json).

const publicDir = path.resolve(__dirname, "..", "public");
const vnuJar = require.resolve("vnu-jar/build/dist/vnu.jar");

/**
 * The one message ignored, and only on the link it is about: the checker lags the HTML standard here.
 * The standard allows `blocking` on a link whose rel is "stylesheet" or "expect" ("It is used by link
 * types stylesheet and expect", https://html.spec.whatwg.org/multipage/semantics.html#attr-link-blocking),
 * while the checker still allows it with "stylesheet" only.
 * The expect link is gatsby-ssr.tsx's, on every page.
 */
const CHECKER_LAG_ON_EXPECT_LINK =
  "A “link” element with a “blocking” attribute must have a “rel” attribute whose value is “stylesheet”.";

/** The checker's JSON output (`--format json`), as far as this test reads it. */
const checkerOutput = z.object({
  messages: z.array(
    z.object({
      // "error" for the document's errors, "non-document-error" when a file could not be read or parsed.
      type: z.string(),
      url: z.string().optional(),
      firstLine: z.number().optional(),
      lastLine: z.number().optional(),
      firstColumn: z.number().optional(),
      lastColumn: z.number().optional(),
      message: z.string(),
      extract: z.string().optional(),
    }),
  ),
});
type CheckerMessage = z.infer<typeof checkerOutput>["messages"][number];

/**
 * Every HTML file the build wrote, but Gatsby's slices (`_gatsby/slices/`): fragments it stitches into the
 * pages while building, never served as a page.
 */
const builtPages = (): string[] =>
  fs
    .readdirSync(publicDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".html"))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => !path.relative(publicDir, file).startsWith(`_gatsby${path.sep}`))
    .sort();

const isCheckerLag = (message: CheckerMessage): boolean =>
  message.message === CHECKER_LAG_ON_EXPECT_LINK && (message.extract ?? "").includes('<link rel="expect"');

/** One line per error: the file under public/, line and column, the message, and the markup it is about. */
const errorLine = (message: CheckerMessage): string => {
  const file = message.url ? path.relative(publicDir, new URL(message.url).pathname) : "(no file)";
  const where = `${file}:${message.firstLine ?? message.lastLine ?? "?"}:${message.firstColumn ?? message.lastColumn ?? "?"}`;
  return `${where}: ${message.message}${message.extract ? ` — ${JSON.stringify(message.extract)}` : ""}`;
};

test("every built page is valid HTML to the Nu Html Checker", async () => {
  // One Java process for every page: the checker's start-up is most of its time (about 10 s here).
  test.setTimeout(120_000);
  const pages = builtPages();
  // A check of no page would pass: every page of the sitemap and the 404 page must be among those checked.
  const checked = new Set(pages.map((file) => path.relative(publicDir, file)));
  for (const pathname of sitePaths()) expect(checked).toContain(path.join(pathname.slice(1), "index.html"));
  expect(checked).toContain("404.html");

  // The report is written to stderr; --exit-zero-always keeps the exit code for the checker's own failures.
  const { stderr } = await promisify(execFile)(
    "java",
    ["-jar", vnuJar, "--errors-only", "--format", "json", "--exit-zero-always", ...pages],
    { maxBuffer: 64 * 1024 * 1024 },
  ).catch((error: unknown) => {
    const noJava = error instanceof Error && (error as NodeJS.ErrnoException).code === "ENOENT";
    throw noJava ? new Error("The Nu Html Checker needs Java 11 or later on PATH.", { cause: error }) : error;
  });
  const errors = checkerOutput
    .parse(JSON.parse(stderr))
    .messages.filter((message) => !isCheckerLag(message))
    .map(errorLine);
  expect(errors, `${errors.length} errors:\n${errors.join("\n")}`).toEqual([]);
});
