/**
 * @jest-environment node
 */
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import express from "express";
import { serveEditingScreen, writeEditingScreen } from "../src/admin/editing-screen";
import { readEditingBackend } from "../src/admin/editing-backend";
import { CMS_CONFIG_PATH } from "../src/content-contract/cms-config";

const root = path.join(__dirname, "..");
const publicDir = fs.mkdtempSync(path.join(os.tmpdir(), "public-"));
const adminDir = path.join(publicDir, "admin");
const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), "preview-cache-"));
let written = 0;
beforeAll(async () => {
  written = await writeEditingScreen(publicDir, cacheDir);
});

describe("the editing screen in public/admin/", () => {
  it("has its page, its scripts, the configuration the contract generates, Decap's own bundle and the previews", () => {
    expect(fs.readdirSync(adminDir).sort()).toEqual([
      "admin.js",
      "config.json",
      "decap",
      "index.html",
      "preview",
      "tidy-json.js",
    ]);
    // The contract's configuration, after the backend the build's environment chose (editing-backend.ts).
    const config = JSON.parse(fs.readFileSync(path.join(adminDir, "config.json"), "utf8")) as Record<string, unknown>;
    const fromContract = JSON.parse(fs.readFileSync(path.join(root, CMS_CONFIG_PATH), "utf8")) as Record<
      string,
      unknown
    >;
    const { connectOrigins, scriptOrigins, ...backend } = readEditingBackend();
    expect(config).toEqual({ ...backend, ...fromContract });
    expect(Object.keys(config)[0]).toBe("backend");
    const bundle = fs.readdirSync(path.join(adminDir, "decap"));
    expect(bundle).toContain("decap-cms.js");
    // The chunks Decap loads next to its entry, without the 25 MB of source maps.
    expect(bundle.filter((file) => /^\d+\.decap-cms\.js$/.test(file)).length).toBeGreaterThan(10);
    expect(bundle.filter((file) => file.endsWith(".map"))).toEqual([]);
    // The previews: the site's pages bundled with their React and emotion, the repository's content, and
    // copies of the files it links to (the hero, the product pictures, the agency logos).
    const previewDir = path.join(adminDir, "preview");
    expect(fs.readdirSync(previewDir).sort()).toEqual(["content.json", "images", "preview.js", "preview.js.LEGAL.txt"]);
    const { linkedFiles } = JSON.parse(fs.readFileSync(path.join(previewDir, "content.json"), "utf8")) as {
      linkedFiles: string[];
    };
    expect(linkedFiles).toEqual(expect.arrayContaining(["images/hero.jpg", "images/agencies/dhs.png"]));
    for (const file of linkedFiles) {
      expect(fs.readFileSync(path.join(previewDir, file))).toEqual(fs.readFileSync(path.join(root, "content", file)));
    }
    const previewFiles = 3 + linkedFiles.length;
    expect(written).toBe(fs.readdirSync(adminDir).length - 2 + bundle.length + previewFiles);
  });

  it("asks search engines to keep out, and loads nothing but its own files", () => {
    const html = fs.readFileSync(path.join(adminDir, "index.html"), "utf8");
    expect(html).toContain('<meta name="robots" content="noindex, nofollow" />');
    expect([...html.matchAll(/<script[^>]*src="([^"]+)"/g)].map((match) => match[1])).toEqual([
      "tidy-json.js",
      "admin.js",
    ]);
    expect(html).not.toMatch(/<script(?![^>]*src=)[^>]*>/);
  });

  it("is written afresh, so a previous Decap version's chunks do not linger", async () => {
    fs.writeFileSync(path.join(adminDir, "decap", "1.decap-cms.js"), "old");
    await writeEditingScreen(publicDir, cacheDir);
    expect(fs.existsSync(path.join(adminDir, "decap", "1.decap-cms.js"))).toBe(false);
  });

  // Four writes of the screen, two of them bundling: seconds on a loaded machine, and not a timing under test.
  it("bundles the previews again only when a file they were bundled from changed, or the last bundle was cut short", async () => {
    const cachedScript = path.join(cacheDir, "preview-bundle", "preview.js");
    const keyFile = path.join(cacheDir, "preview-bundle", "key.json");
    const previewScript = () => fs.readFileSync(path.join(adminDir, "preview", "preview.js"), "utf8");
    // A mark in the kept bundle: a build that keeps it copies the mark, one that bundles again does not.
    const mark = () => fs.appendFileSync(cachedScript, "\n/* kept */");
    const key = JSON.parse(fs.readFileSync(keyFile, "utf8")) as { inputs: string[]; key: string };
    expect(key.inputs).toEqual(expect.arrayContaining(["src/admin/preview/register.tsx"]));
    expect(key.inputs.some((input) => input.startsWith("src/components/"))).toBe(true);

    mark();
    await writeEditingScreen(publicDir, cacheDir);
    expect(previewScript()).toMatch(/\/\* kept \*\/$/);

    // A file it was bundled from, changed: its content no longer gives the key.
    fs.writeFileSync(keyFile, JSON.stringify({ ...key, key: "0".repeat(64) }));
    await writeEditingScreen(publicDir, cacheDir);
    expect(previewScript()).not.toContain("/* kept */");

    // A file it was bundled from, gone.
    mark();
    fs.writeFileSync(keyFile, JSON.stringify({ ...key, inputs: [...key.inputs, "src/admin/preview/gone.tsx"] }));
    await writeEditingScreen(publicDir, cacheDir);
    expect(previewScript()).not.toContain("/* kept */");

    // A bundle cut short, with no key written after it.
    mark();
    fs.rmSync(keyFile);
    await writeEditingScreen(publicDir, cacheDir);
    expect(previewScript()).not.toContain("/* kept */");
    expect(JSON.parse(fs.readFileSync(keyFile, "utf8"))).toEqual(key);
  }, 30_000);
});

it("is answered by gatsby develop's server at /admin/, which otherwise never serves a folder's index.html, with the headers given", async () => {
  const app = express();
  serveEditingScreen(app, publicDir, { "Content-Security-Policy": "default-src 'self'" });
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/admin/`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(response.headers.get("content-security-policy")).toBe("default-src 'self'");
    expect(await response.text()).toBe(fs.readFileSync(path.join(adminDir, "index.html"), "utf8"));
  } finally {
    server.close();
  }
});

describe("the live editing screen's backend", () => {
  const from = (values: Record<string, string>) => readEditingBackend(values);
  it("is GitHub, signed in through the site's own /api/auth, with review before publishing unless turned off", () => {
    expect(from({ CMS_GITHUB_REPO: "cardinal/site" })).toEqual({
      backend: {
        name: "github",
        repo: "cardinal/site",
        branch: "main",
        api_root: "https://api.github.com",
        auth_endpoint: "api/auth",
        auth_scope: "repo",
        use_graphql: false,
      },
      publish_mode: "editorial_workflow",
      connectOrigins: ["https://api.github.com"],
      scriptOrigins: [],
    });
    expect(from({ CMS_EDITORIAL_WORKFLOW: "0" }).publish_mode).toBeUndefined();
    expect(from({ CMS_GITHUB_URL: "https://github.example.com", CMS_GITHUB_BRANCH: "live" }).backend).toMatchObject({
      api_root: "https://github.example.com/api/v3",
      branch: "live",
    });
  });

  it("is Netlify's deprecated Git Gateway only when asked for, and refuses what it does not know", () => {
    expect(from({ CMS_BACKEND: "git-gateway" }).backend).toEqual({ name: "git-gateway", branch: "main" });
    expect(() => from({ CMS_BACKEND: "gitlab" })).toThrow(/github or git-gateway/);
    expect(() => from({ CMS_GITHUB_REPO: "not a repo" })).toThrow(/owner\/name/);
  });
});
