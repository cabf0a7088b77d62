import fs from "node:fs";
import path from "node:path";
import { toJsonText } from "../../content-contract/tidy-json";
import { readPreviewContent } from "./preview-content";
import { PREVIEW_CONTENT_FILE, PREVIEW_FOLDER } from "./preview-content-types";

/**
 * The editing screen's previews, written under public/admin/preview/ with the rest of the screen: one
 * script that bundles the site's page components, emotion and React 18 (esbuild, which the project
 * already has through tsx), and the repository's content for the parts of a page the edited file does
 * not hold. Nothing here is referenced by the site's pages, which Gatsby bundles on its own.
 */

const sourceDir = path.resolve("src", "admin", "preview");
const PREVIEW_SCRIPT = `${PREVIEW_FOLDER}preview.js`;

/** Writes the preview bundle, its content and the files the content links to into `adminDir`; returns their paths in it. */
export const writePreviews = async (adminDir: string): Promise<string[]> => {
  const script = path.join(adminDir, PREVIEW_SCRIPT);
  // Loaded when the screen is written: esbuild refuses to load under jsdom, where tests import gatsby-node.
  const { build } = await import("esbuild");
  await build({
    entryPoints: [path.join(sourceDir, "register.tsx")],
    outfile: script,
    bundle: true,
    format: "iife",
    minify: true,
    target: "es2021",
    platform: "browser",
    // The emotion JSX runtime, as the site's tsconfig and gatsby-config set it.
    jsx: "automatic",
    jsxImportSource: "@emotion/react",
    // The previews have no Gatsby runtime: gatsby-runtime.tsx gives the site's components what they import.
    alias: { gatsby: path.join(sourceDir, "gatsby-runtime.tsx") },
    define: { "process.env.NODE_ENV": '"production"' },
    legalComments: "linked",
    logLevel: "silent",
  });
  const content = readPreviewContent();
  fs.writeFileSync(path.join(adminDir, PREVIEW_CONTENT_FILE), toJsonText(content));
  for (const file of content.linkedFiles) {
    const target = path.join(adminDir, PREVIEW_FOLDER, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(path.resolve("content", file), target);
  }
  return [PREVIEW_SCRIPT, `${PREVIEW_SCRIPT}.LEGAL.txt`, PREVIEW_CONTENT_FILE, ...content.linkedFiles];
};
