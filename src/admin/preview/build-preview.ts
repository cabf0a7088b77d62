import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { BuildOptions } from "esbuild";
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

/**
 * Files esbuild reads besides those it bundles: the TypeScript settings it takes from tsconfig.json, and the
 * packages' manifests it resolves through, which change with the lockfile.
 */
const SETTINGS_FILES = ["tsconfig.json", "package.json", "package-lock.json"];

/**
 * The bundle's key: esbuild's version, its options, the settings files, and for every file bundled its path, its
 * content and the names beside it in its folder (a file added there may be what an import resolves to now).
 * Throws when one of them is gone.
 */
const keyOf = (version: string, options: object, inputs: readonly string[]): string => {
  const hash = createHash("sha256").update(version).update(JSON.stringify(options));
  for (const input of [...SETTINGS_FILES, ...inputs]) hash.update(`\0${input}\0`).update(fs.readFileSync(input));
  const folders = new Set(
    inputs.filter((input) => !input.startsWith("node_modules/")).map((input) => path.dirname(input)),
  );
  for (const folder of [...folders].sort()) hash.update(`\0${folder}/\0${fs.readdirSync(folder).sort().join("\0")}`);
  return hash.digest("hex");
};

/** The inputs and key the cached bundle was built from, if it is there whole. */
const readCachedKey = (keyFile: string): { readonly inputs: string[]; readonly key: string } | null => {
  try {
    return JSON.parse(fs.readFileSync(keyFile, "utf8")) as { inputs: string[]; key: string };
  } catch {
    return null;
  }
};

/**
 * The preview script in `cacheDir`, bundled again only when a file it was bundled from, or a settings file,
 * changed: on a content push, the bundle esbuild would make is the last build's, so that one is kept. Its key is
 * written last, and not at all when a file it was bundled from changed while esbuild ran: a bundle cut short or
 * made from a file half saved is made again by the next build.
 */
const bundlePreviews = async (cacheDir: string): Promise<string> => {
  // Loaded when the screen is written: esbuild refuses to load under jsdom, where tests import gatsby-node.
  const { build, version } = await import("esbuild");
  const options = {
    entryPoints: [path.join(sourceDir, "register.tsx")],
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
  } satisfies BuildOptions;
  const script = path.join(cacheDir, path.basename(PREVIEW_SCRIPT));
  const keyFile = path.join(cacheDir, "key.json");
  const cached = readCachedKey(keyFile);
  const stillCurrent = (found: NonNullable<typeof cached>) => {
    try {
      return keyOf(version, options, found.inputs) === found.key;
    } catch {
      return false;
    }
  };
  if (cached && fs.existsSync(script) && stillCurrent(cached)) return script;
  fs.rmSync(cacheDir, { recursive: true, force: true });
  const startedAt = Date.now();
  const { metafile } = await build({ ...options, outfile: script, metafile: true });
  const inputs = Object.keys(metafile.inputs).sort();
  const key = keyOf(version, options, inputs);
  const unchanged = [...SETTINGS_FILES, ...inputs].every((input) => fs.statSync(input).mtimeMs < startedAt);
  if (unchanged) fs.writeFileSync(keyFile, JSON.stringify({ inputs, key }));
  return script;
};

/**
 * Writes the preview bundle, its content and the files the content links to into `adminDir`; returns their paths
 * in it. The bundle is kept in a folder of its own under `cacheDir` between builds (Gatsby's cache folder for the
 * site's plugin, which a release's build keeps from one push to the next and a full build starts without).
 */
export const writePreviews = async (adminDir: string, cacheDir: string): Promise<string[]> => {
  const script = await bundlePreviews(path.join(cacheDir, "preview-bundle"));
  const target = path.join(adminDir, PREVIEW_SCRIPT);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.copyFileSync(script, target);
  fs.copyFileSync(`${script}.LEGAL.txt`, `${target}.LEGAL.txt`);
  const content = readPreviewContent();
  fs.writeFileSync(path.join(adminDir, PREVIEW_CONTENT_FILE), toJsonText(content));
  for (const file of content.linkedFiles) {
    const target = path.join(adminDir, PREVIEW_FOLDER, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(path.resolve("content", file), target);
  }
  return [PREVIEW_SCRIPT, `${PREVIEW_SCRIPT}.LEGAL.txt`, PREVIEW_CONTENT_FILE, ...content.linkedFiles];
};
