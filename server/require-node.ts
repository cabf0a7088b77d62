/**
 * Imported first by every entry point an operator runs (the server, `inquiries`, `releases`): on a Node
 * older than package.json's `engines` names, stop at once with the version to install, before a later
 * import fails on something that Node lacks (node:sqlite) with a stack trace that never says why.
 */
import { requiredNodeMajor } from "./project";

const required = requiredNodeMajor();
const running = Number(process.versions.node.split(".")[0]);
if (running < required) {
  console.error(
    `This is Node ${process.versions.node}; the site needs Node ${required} or later (package.json "engines"). ` +
      `Install Node ${required} (docs/deploy-server.md, "What the machine needs") and start it again.`,
  );
  process.exit(1);
}
