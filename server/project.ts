import fs from "node:fs";
import path from "node:path";

/**
 * The project's folder: the nearest one above this file that holds package.json. The server and the
 * operator's tools run from their TypeScript sources in development and compiled into dist/ in production,
 * so a fixed number of `..` would be right in only one of the two.
 */
export const projectRoot = (from: string = __dirname): string => {
  for (let folder = from; ; folder = path.dirname(folder)) {
    if (fs.existsSync(path.join(folder, "package.json"))) return folder;
    if (path.dirname(folder) === folder) throw new Error(`No package.json above ${from}`);
  }
};

/** The Node major the project needs: package.json's `engines.node` (">=24"). */
export const requiredNodeMajor = (root: string = projectRoot()): number => {
  const { engines } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
    engines?: { node?: string };
  };
  const major = /^>=\s*(\d+)/.exec(engines?.node ?? "")?.[1];
  if (major === undefined) throw new Error('package.json "engines.node" is not of the form ">=N"');
  return Number(major);
};
