// npm 11 runs no dependency install scripts unless allowed (package.json
// "allowScripts" denies them all: gatsby's would reach the web). The native
// modules Gatsby needs ship prebuilt binaries as optional packages instead;
// this fails the install at once if one of them cannot be loaded.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const failures = [];
for (const name of ["sharp", "lmdb", "msgpackr-extract"]) {
  try {
    const loaded = require(name);
    if (name === "msgpackr-extract" && typeof loaded.extractStrings !== "function")
      throw new Error("no native binding");
  } catch (error) {
    failures.push(`${name}: ${error.message.split("\n")[0]}`);
  }
}
if (failures.length > 0) {
  console.error(`Native modules failed to load:\n  ${failures.join("\n  ")}`);
  process.exit(1);
}
console.log("Native modules (sharp, lmdb, msgpackr-extract) load.");
