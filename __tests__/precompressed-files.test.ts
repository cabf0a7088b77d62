/**
 * @jest-environment node
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { precompressFiles, removePrecompressedCopies } from "../build/precompressed-files";

let dir: string;
const text = (size: number) => "const value = 'uniform';\n".repeat(Math.ceil(size / 25)).slice(0, size);
const write = (relative: string, content: string | Buffer) => {
  mkdirSync(path.dirname(path.join(dir, relative)), { recursive: true });
  writeFileSync(path.join(dir, relative), content);
};
const exists = (relative: string) => existsSync(path.join(dir, relative));

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "precompressed-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it("writes a brotli and a gzip copy of each compressible file that decompress to the file, in every folder", async () => {
  write("app-0123456789abcdef.js", text(5000));
  write("contact/index.html", `<!doctype html>${text(3000)}`);
  write("page-data/index/page-data.json", JSON.stringify({ words: text(2000) }));

  const result = await precompressFiles(dir);

  expect(result.files).toBe(3);
  for (const relative of ["app-0123456789abcdef.js", "contact/index.html", "page-data/index/page-data.json"]) {
    const original = readFileSync(path.join(dir, relative));
    const brotli = readFileSync(path.join(dir, `${relative}.br`));
    expect(zlib.brotliDecompressSync(brotli).equals(original)).toBe(true);
    expect(zlib.gunzipSync(readFileSync(path.join(dir, `${relative}.gz`))).equals(original)).toBe(true);
    expect(brotli.length).toBeLessThan(original.length / 4);
  }
  expect(result.brotliBytes).toBeLessThan(result.bytes / 4);
});

it("leaves alone files under 1 KB, source maps, images and what it is told to skip", async () => {
  write("small.css", "a{color:red}");
  write("app.js.map", text(5000));
  write("static/hero.png", Buffer.alloc(5000, 7));
  write("admin/decap.js", text(5000));

  const result = await precompressFiles(dir, { skip: (relative) => relative.startsWith("admin/") });

  expect(result.files).toBe(0);
  for (const relative of ["small.css", "app.js.map", "static/hero.png", "admin/decap.js"])
    expect([relative, exists(`${relative}.br`), exists(`${relative}.gz`)]).toEqual([relative, false, false]);
});

it("removes the copies of an earlier build, and no other compressed file", async () => {
  write("old-0123456789abcdef.js.br", "stale");
  write("old-0123456789abcdef.js.gz", "stale");
  write("small.css", "a{color:red}");
  write("small.css.br", "from when it was larger");
  write("downloads/catalog.tar.gz", "an archive the site offers");

  await precompressFiles(dir);

  expect(exists("old-0123456789abcdef.js.br")).toBe(false);
  expect(exists("old-0123456789abcdef.js.gz")).toBe(false);
  expect(exists("small.css.br")).toBe(false);
  expect(exists("downloads/catalog.tar.gz")).toBe(true);
});

it("writes again only the copies of a file that changed since they were written, even with its times set back", async () => {
  write("unchanged.js", text(5000));
  write("rewritten/index.html", `<!doctype html>${text(3000)}`);
  write("set-back.css", text(4000));
  // Past the clock tick the files were written in: a copy made within it has their time, not a later one.
  await new Promise((resolve) => setTimeout(resolve, 50));
  await precompressFiles(dir);
  const copyTimes = (relative: string) =>
    [".br", ".gz"].map((suffix) => statSync(path.join(dir, `${relative}${suffix}`), { bigint: true }).mtimeNs);
  const before = { unchanged: copyTimes("unchanged.js"), setBack: copyTimes("set-back.css") };

  write("rewritten/index.html", `<!doctype html>${text(2000)} a new headline`);
  // A file replaced by one whose times are older than its copies (an archive unpacked, a copy that keeps times).
  const setBack = path.join(dir, "set-back.css");
  const { atime, mtime } = statSync(setBack);
  write("set-back.css", `${text(3000)} .hero{color:navy}`);
  utimesSync(setBack, atime, mtime);
  const result = await precompressFiles(dir);

  expect([result.files, result.written]).toEqual([3, 2]);
  expect(copyTimes("unchanged.js")).toEqual(before.unchanged);
  expect(copyTimes("set-back.css")).not.toEqual(before.setBack);
  for (const relative of ["unchanged.js", "rewritten/index.html", "set-back.css"]) {
    const original = readFileSync(path.join(dir, relative));
    expect(zlib.brotliDecompressSync(readFileSync(path.join(dir, `${relative}.br`))).equals(original)).toBe(true);
    expect(zlib.gunzipSync(readFileSync(path.join(dir, `${relative}.gz`))).equals(original)).toBe(true);
  }
});

it("writes a copy beside and renames it over the old one, and removes what an interrupted build left", async () => {
  write("app-0123456789abcdef.js", text(5000));
  await precompressFiles(dir);
  const inodeOf = (relative: string) => statSync(path.join(dir, relative)).ino;
  const before = inodeOf("app-0123456789abcdef.js.br");
  write("app-0123456789abcdef.js", text(6000));
  write("page-data/app-data.json.gz.partial", "cut short");

  await precompressFiles(dir);

  // A reader holding the old copy open reads it whole; a copy cut short never takes its name.
  expect(inodeOf("app-0123456789abcdef.js.br")).not.toBe(before);
  expect(exists("page-data/app-data.json.gz.partial")).toBe(false);
  expect(exists("app-0123456789abcdef.js.br.partial")).toBe(false);
});

it("removes the copies of a file that is gone, or that it is now told to skip", async () => {
  write("gone.js", text(5000));
  write("admin/decap.js", text(5000));
  await precompressFiles(dir);
  rmSync(path.join(dir, "gone.js"));

  await precompressFiles(dir, { skip: (relative) => relative.startsWith("admin/") });

  for (const relative of ["gone.js.br", "gone.js.gz", "admin/decap.js.br", "admin/decap.js.gz"])
    expect([relative, exists(relative)]).toEqual([relative, false]);
});

it("removes every copy for a build whose host compresses by itself, and nothing else", async () => {
  write("app-0123456789abcdef.js", text(5000));
  await precompressFiles(dir);
  expect(exists("app-0123456789abcdef.js.br")).toBe(true);

  await removePrecompressedCopies(dir);

  expect([exists("app-0123456789abcdef.js.br"), exists("app-0123456789abcdef.js.gz")]).toEqual([false, false]);
  expect(exists("app-0123456789abcdef.js")).toBe(true);
});
