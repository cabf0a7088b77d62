/**
 * @jest-environment node
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { removeEmptyFolders } from "../build/empty-folders";

describe("removeEmptyFolders", () => {
  it("removes the folders a removed page left empty, nested ones included, and keeps every folder with a file", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "public-"));
    fs.mkdirSync(path.join(dir, "terms"));
    fs.mkdirSync(path.join(dir, "page-data", "terms"), { recursive: true });
    fs.mkdirSync(path.join(dir, "page-data", "about"), { recursive: true });
    fs.writeFileSync(path.join(dir, "page-data", "about", "page-data.json"), "{}");
    fs.mkdirSync(path.join(dir, "about"));
    fs.writeFileSync(path.join(dir, "about", "index.html"), "<h1>About</h1>");
    expect(removeEmptyFolders(dir)).toBe(2);
    expect(fs.readdirSync(dir).sort()).toEqual(["about", "page-data"]);
    expect(fs.readdirSync(path.join(dir, "page-data"))).toEqual(["about"]);
    fs.rmSync(dir, { recursive: true });
  });
});
