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

/** An object or array in a content file: `path` steps through them by key or index. */
type JsonContainer = Record<string | number, unknown>;

/** A temporary copy of the real content/ with some edits applied, as an editor might make them. */
export const editedContentCopy = (edits: readonly ContentEdit[]): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "content-"));
  fs.cpSync(contentDir, dir, { recursive: true });
  for (const edit of edits) {
    const file = path.join(dir, edit.file);
    const data = JSON.parse(fs.readFileSync(file, "utf8")) as JsonContainer;
    const parent = edit.path.slice(0, -1).reduce((node, key) => node[key] as JsonContainer, data);
    const last = edit.path[edit.path.length - 1]!;
    // The key comes from the edit, so it is a dynamic one; an array element deleted leaves a hole, as with `delete`.
    if (edit.delete) Reflect.deleteProperty(parent, last);
    else parent[last] = edit.value;
    fs.writeFileSync(file, JSON.stringify(data, null, 2));
  }
  return dir;
};
