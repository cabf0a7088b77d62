import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const contentDir = path.join(__dirname, "..", "..", "content");

export interface ContentEdit {
  file: string;
  path: (string | number)[];
  value?: unknown;
  delete?: boolean;
}

/** A temporary copy of the real content/ with some edits applied, as an editor might make them. */
export const editedContentCopy = (edits: readonly ContentEdit[]): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "content-"));
  fs.cpSync(contentDir, dir, { recursive: true });
  for (const edit of edits) {
    const file = path.join(dir, edit.file);
    const data = JSON.parse(fs.readFileSync(file, "utf8"));
    const parent = edit.path.slice(0, -1).reduce((node, key) => node[key], data);
    const last = edit.path[edit.path.length - 1]!;
    if (edit.delete) delete parent[last];
    else parent[last] = edit.value;
    fs.writeFileSync(file, JSON.stringify(data, null, 2));
  }
  return dir;
};
