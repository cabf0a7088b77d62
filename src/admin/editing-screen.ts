import fs from "node:fs";
import path from "node:path";
import type { Application } from "express";
import { cmsConfig } from "../content-contract/cms-config";
import { toJsonText } from "../content-contract/tidy-json";
import { readEditingBackend } from "./editing-backend";
import { writePreviews } from "./preview/build-preview";

/**
 * The editing screen at /admin/, written into public/ by the build and by `gatsby develop` before
 * Gatsby starts (onPreBootstrap): the page and its script from src/admin/, the content format's script (src/content-contract/tidy-json.js), the configuration
 * generated from the content contract, Decap CMS's own prebuilt bundle from node_modules, and the
 * previews that draw the site's own pages (src/admin/preview/). The site's pages never reference any of it.
 */

export const ADMIN_PATH = "/admin/";

const sourceDir = path.resolve("src", "admin");
const PAGE_FILES = ["index.html", "admin.js"] as const;
/** The format saves write content files in; the content contract's, since its projections write it too. */
const tidyJsonFile = path.resolve("src", "content-contract", "tidy-json.js");

/** Decap's bundle: the entry, the chunks it loads beside itself, their WebAssembly and the licences. */
const isDecapFile = (name: string) =>
  name === "decap-cms.js" ||
  /^\d+\.decap-cms\.js$/.test(name) ||
  name.endsWith(".wasm") ||
  name === "decap-cms.js.LICENSE.txt";

// From the project folder, where Gatsby runs, as the other paths here; gatsby-node is bundled by Gatsby,
// so require.resolve would be resolved at bundle time rather than where the build runs.
const decapDist = path.resolve("node_modules", "decap-cms", "dist");

/** Writes public/admin/, the previews' bundle kept in `cacheDir` between builds; returns the number of files written. */
export const writeEditingScreen = async (publicDir: string, cacheDir: string): Promise<number> => {
  const target = path.join(publicDir, ADMIN_PATH);
  const decapTarget = path.join(target, "decap");
  // A previous Decap version's chunks would otherwise stay next to the new ones.
  fs.rmSync(target, { recursive: true, force: true });
  fs.mkdirSync(decapTarget, { recursive: true });
  for (const file of PAGE_FILES) fs.copyFileSync(path.join(sourceDir, file), path.join(target, file));
  fs.copyFileSync(tidyJsonFile, path.join(target, path.basename(tidyJsonFile)));
  // The backend first, as Decap's documentation writes it; the origins are for the policy, not for Decap.
  const { connectOrigins, scriptOrigins, ...backend } = readEditingBackend();
  fs.writeFileSync(path.join(target, "config.json"), toJsonText({ ...backend, ...cmsConfig() }));
  const decapFiles = fs.readdirSync(decapDist).filter(isDecapFile);
  for (const file of decapFiles) fs.copyFileSync(path.join(decapDist, file), path.join(decapTarget, file));
  const previewFiles = await writePreviews(target, cacheDir);
  return PAGE_FILES.length + 2 + decapFiles.length + previewFiles.length;
};

/**
 * `gatsby develop` serves public/ but never a folder's index.html (it renders its own pages instead),
 * so the editing screen's page is answered here, with the headers the screen has on an editor's
 * machine (a policy that lets it reach decap-server); its scripts and configuration come from public/.
 */
export const serveEditingScreen = (app: Application, publicDir: string, headers: Readonly<Record<string, string>>) => {
  app.get(ADMIN_PATH, (_request, response) => {
    response.set(headers);
    response.sendFile(path.join(publicDir, ADMIN_PATH, "index.html"));
  });
};
