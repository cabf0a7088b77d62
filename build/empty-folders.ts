import fs from "node:fs";
import path from "node:path";

/**
 * Removes the folders under `dir` left empty: a build that reuses the `public/` of the build before it (the
 * single server's releases build incrementally) deletes a removed page's files but not its folder, and a
 * folder that is there makes a static server answer `/old-page` with a redirect to `/old-page/` before its 404.
 * Returns how many it removed.
 */
export const removeEmptyFolders = (dir: string): number => {
  let removed = 0;
  const visit = (folder: string): boolean => {
    let empty = true;
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      if (entry.isDirectory() && visit(path.join(folder, entry.name))) {
        fs.rmdirSync(path.join(folder, entry.name));
        removed += 1;
      } else {
        empty = false;
      }
    }
    return empty;
  };
  visit(dir);
  return removed;
};
