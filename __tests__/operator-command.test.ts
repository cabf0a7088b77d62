/**
 * @jest-environment node
 */
// deploy/cardinal-site as root runs it on the server (docs/deploy-server.md, The operator's command), on a scratch
// machine of its own: a throwaway service user, root's copies of the command, a unit and an environment file,
// and a checkout whose releases tool prints what it was given. Root runs the command, so nothing the service, a
// build or a push can write may run as root: the unit is read as data, and files others could change are refused.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(__dirname, "..");
const USER = `cstest-${process.pid}`;

let scratch = "";
let uid = 0;
let userMade = false;
const at = (...parts: string[]) => path.join(scratch, ...parts);
const command = () => at("bin", "cardinal-site");
const unitFile = () => at("cardinal-site.service");
const envFile = () => at("cardinal-site.env");
/** What a command substitution in a unit line would create, were the line ever run as shell. */
const marker = () => at("pwned");

// "${IFS}" is the shell's, not a template's: a value with no space that a shell would still run.
const substitution = () => "$(touch${IFS}" + marker() + ")";

const unitText = (lines: readonly string[] = []) =>
  [
    "[Unit]",
    "Description=a scratch unit for the operator's command",
    "[Service]",
    `User=${USER}`,
    `Group=${USER}`,
    `WorkingDirectory=${at("srv")}`,
    `EnvironmentFile=${envFile()}`,
    `Environment=PATH=${at("bin")}:/usr/bin:/bin`,
    `Environment=HOME=${at("cache")}`,
    `Environment=FROM_UNIT=${substitution()}`,
    "Environment=BOTH=the-unit",
    `Environment=ENV_FILE=${envFile()}`,
    ...lines,
    "ExecStart=/bin/false",
    "",
  ].join("\n");

const ENV_TEXT =
  "# the settings and the secrets\nSECRET='a secret with spaces, <, > and $'\nBOTH=the-environment-file\n";

// The site's releases tool, in the checkout: what it was given, and whether it could read the environment file.
const RELEASES_JS = `const fs = require("node:fs");
let envFileReadable = true;
try { fs.readFileSync(process.env.ENV_FILE); } catch { envFileReadable = false; }
process.stdout.write(JSON.stringify({
  uid: process.getuid(), cwd: process.cwd(), umask: process.umask(), tmpdir: process.env.TMPDIR,
  args: process.argv.slice(2), FROM_UNIT: process.env.FROM_UNIT, BOTH: process.env.BOTH, SECRET: process.env.SECRET,
  envFileReadable,
}));
`;

const run = (args: readonly string[], paths: { readonly command?: string; readonly unit?: string } = {}) =>
  spawnSync(paths.command ?? command(), args, {
    encoding: "utf8",
    env: {
      PATH: "/usr/bin:/bin",
      LANG: "C.UTF-8",
      CARDINAL_SITE_UNIT: paths.unit ?? unitFile(),
      CARDINAL_SITE_ENV: envFile(),
    },
    timeout: 60_000,
  });

/** Root's copy of a file: owned by root, the mode given. */
const writeRoots = (file: string, text: string, mode: number) => {
  fs.writeFileSync(file, text);
  fs.chownSync(file, 0, 0);
  fs.chmodSync(file, mode);
};

beforeAll(() => {
  if (process.getuid?.() !== 0) {
    throw new Error(
      "operator-command.test.ts runs deploy/cardinal-site as root does on the server, with a throwaway user: run jest as root",
    );
  }
  for (const tool of ["setpriv", "useradd", "userdel"]) {
    if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0) throw new Error(`${tool} is missing`);
  }
  // In /tmp itself (sticky, root's), not the run's private temporary folder, which the service user cannot enter.
  scratch = fs.mkdtempSync("/tmp/operator-command-");
  fs.chmodSync(scratch, 0o755);
  execFileSync("useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER]);
  userMade = true;
  uid = Number(execFileSync("id", ["-u", USER], { encoding: "utf8" }));

  fs.mkdirSync(at("bin"), { mode: 0o755 });
  writeRoots(command(), fs.readFileSync(path.join(root, "deploy", "cardinal-site"), "utf8"), 0o755);
  // This Node may sit in root's home, which the service user cannot enter: root's copy of it, as at /usr/local/bin.
  try {
    fs.linkSync(process.execPath, at("bin", "node"));
  } catch {
    fs.copyFileSync(process.execPath, at("bin", "node"));
    fs.chmodSync(at("bin", "node"), 0o755);
  }
  fs.mkdirSync(at("srv", "dist", "scripts"), { recursive: true });
  fs.writeFileSync(at("srv", "dist", "scripts", "releases.js"), RELEASES_JS);
  fs.mkdirSync(at("cache"), { mode: 0o700 });
  execFileSync("chown", ["-R", `${USER}:${USER}`, at("srv"), at("cache")]);
  writeRoots(unitFile(), unitText(), 0o644);
  writeRoots(envFile(), ENV_TEXT, 0o600);
});

// Each test looks for its own marker: one a failed test left would fail the next.
beforeEach(() => fs.rmSync(marker(), { force: true }));

afterAll(() => {
  if (userMade) spawnSync("userdel", [USER]);
  if (scratch !== "") fs.rmSync(scratch, { recursive: true, force: true });
});

describe("the operator's command, cardinal-site, as root runs it", () => {
  it("hands the site's code, run as the service's user, the unit's Environment= values as written, and the environment file's over them", () => {
    const result = run(["releases", "--deploy"]);
    expect([result.status, result.stderr]).toEqual([0, ""]);
    expect(JSON.parse(result.stdout)).toEqual({
      uid,
      cwd: at("srv"),
      umask: 0o077,
      tmpdir: expect.stringMatching(new RegExp(`^${at("cache")}/tmp\\.`)) as unknown,
      args: ["--deploy"],
      FROM_UNIT: substitution(),
      // systemd's order: the environment file's settings override Environment='s.
      BOTH: "the-environment-file",
      SECRET: "a secret with spaces, <, > and $",
      envFileReadable: false,
    });
    expect(fs.existsSync(marker())).toBe(false);
    // The task's own /tmp is gone with it.
    expect(fs.readdirSync(at("cache"))).toEqual([]);
  });

  it("restores as the service's user, so a backup it planted as a link to root's file brings none of it in", () => {
    const data = at("data");
    fs.mkdirSync(data, { mode: 0o700 });
    fs.writeFileSync(path.join(data, "inquiries.sqlite"), "the store");
    const planted = at("cache", "planted.sqlite");
    fs.symlinkSync(envFile(), planted);
    const backup = at("cache", "backup.sqlite");
    fs.writeFileSync(backup, "the backup");
    execFileSync("chown", ["-h", `${USER}:${USER}`, data, path.join(data, "inquiries.sqlite"), planted, backup]);
    const unit = at("restoring.service");
    writeRoots(unit, unitText([`Environment=INQUIRY_DATA_DIR=${data}`]), 0o644);
    const refused = run(["restore", planted], { unit });
    expect([refused.status, refused.stderr]).toEqual([1, expect.stringContaining(`${USER} cannot read ${planted}`)]);
    expect(fs.readFileSync(path.join(data, "inquiries.sqlite"), "utf8")).toBe("the store");
    const restored = run(["restore", backup], { unit });
    expect(restored.status).toBe(0);
    expect(fs.readFileSync(path.join(data, "inquiries.sqlite"), "utf8")).toBe("the backup");
    expect(fs.statSync(path.join(data, "inquiries.sqlite")).uid).toBe(uid);
  });

  it("runs root's own tools, never one from the PATH the unit gives the service's user", () => {
    // A folder of the service user's, as a build could fill it, first in the service's PATH.
    const theirs = at("srv", "bin");
    fs.mkdirSync(theirs);
    for (const tool of ["setpriv", "id", "stat", "readlink", "dirname"]) {
      fs.writeFileSync(path.join(theirs, tool), `#!/bin/sh\ntouch ${marker()}\nexit 1\n`, { mode: 0o755 });
    }
    execFileSync("chown", ["-R", `${USER}:${USER}`, theirs]);
    const servicePath = `Environment=PATH=${at("bin")}`;
    writeRoots(unitFile(), unitText().replace(servicePath, `Environment=PATH=${theirs}:${at("bin")}`), 0o644);
    try {
      const result = run(["releases"]);
      expect([result.status, result.stderr]).toEqual([0, ""]);
      expect(fs.existsSync(marker())).toBe(false);
    } finally {
      writeRoots(unitFile(), unitText(), 0o644);
      fs.rmSync(theirs, { recursive: true });
    }
  });

  // Made in the test, once the scratch folder, and so the marker's path, exists.
  it.each([
    ["quotes, which would end a quoted value early", () => `Environment=FROM_UNIT='; touch ${marker()}; '`],
    ["a space, which systemd would split at", () => `Environment=FROM_UNIT=$(touch ${marker()})`],
  ])("takes no unit line as shell: one with %s is refused, and nothing of it runs", (_, line) => {
    writeRoots(unitFile(), unitText([line()]), 0o644);
    try {
      const result = run(["releases"]);
      expect([result.status, result.stdout]).toEqual([1, ""]);
      expect(result.stderr).toMatch(
        /line 13: systemd reads spaces, quotes, backslashes and % in Environment= its own way/,
      );
      expect(fs.existsSync(marker())).toBe(false);
    } finally {
      writeRoots(unitFile(), unitText(), 0o644);
    }
  });

  interface Refusal {
    readonly when: string;
    /** Breaks the setup, and returns what puts it back. */
    readonly arrange: () => () => void;
    readonly message: RegExp;
    /** The command's and the unit's paths, when not root's copies in the scratch folder. */
    readonly paths?: () => { readonly command?: string; readonly unit?: string };
  }
  const refusals: Refusal[] = [
    {
      when: "the environment file is readable by its group",
      arrange: () => {
        fs.chmodSync(envFile(), 0o640);
        return () => fs.chmodSync(envFile(), 0o600);
      },
      message:
        /others than root may read \S+cardinal-site\.env, which holds the site's secrets: sudo chown root:root \S+ && sudo chmod 600 /,
    },
    {
      when: "the environment file is the service user's",
      arrange: () => {
        fs.chownSync(envFile(), uid, 0);
        return () => fs.chownSync(envFile(), 0, 0);
      },
      message:
        /another user than root may change \S+cardinal-site\.env \(owner uid \d+, mode 600\): sudo chown root:root /,
    },
    {
      when: "the unit is writable by its group",
      arrange: () => {
        fs.chmodSync(unitFile(), 0o664);
        return () => fs.chmodSync(unitFile(), 0o644);
      },
      message:
        /another user than root may change \S+cardinal-site\.service \(owner uid 0, mode 664\): root reads only its own copy of it; install one from deploy\/ as you reviewed it \(docs\/deploy-server\.md, What a push can do\): sudo install -o root -g root -m 644 /,
    },
    {
      when: "the unit is root's file in the service user's checkout",
      arrange: () => {
        writeRoots(at("srv", "cardinal-site.service"), unitText(), 0o644);
        return () => fs.rmSync(at("srv", "cardinal-site.service"));
      },
      message:
        /cardinal-site\.service is in \S+\/srv, which another user than root may change \(owner uid \d+, mode 755\)/,
      paths: () => ({ unit: at("srv", "cardinal-site.service") }),
    },
    {
      when: "the unit runs the service as root",
      arrange: () => {
        writeRoots(unitFile(), unitText().replace(`User=${USER}`, "User=root"), 0o644);
        return () => writeRoots(unitFile(), unitText(), 0o644);
      },
      message: /runs the service as root; the site's code never runs as root/,
    },
    {
      when: "it is run through a link, as the guide once installed it",
      arrange: () => {
        fs.symlinkSync(command(), at("bin", "cardinal-site-link"));
        return () => fs.rmSync(at("bin", "cardinal-site-link"));
      },
      message:
        /cardinal-site-link is a link: root runs only its own copy of it; install one from deploy\/ as you reviewed it \(docs\/deploy-server\.md, What a push can do\): sudo install -o root -g root -m 755 /,
      paths: () => ({ command: at("bin", "cardinal-site-link") }),
    },
    {
      when: "it is root's copy in a folder the service user owns",
      arrange: () => {
        writeRoots(at("srv", "cardinal-site"), fs.readFileSync(command(), "utf8"), 0o755);
        return () => fs.rmSync(at("srv", "cardinal-site"));
      },
      message:
        /\/srv\/cardinal-site is in \S+\/srv, which another user than root may change \(owner uid \d+, mode 755\)/,
      paths: () => ({ command: at("srv", "cardinal-site") }),
    },
  ];

  it.each(refusals)("refuses to run, naming the fix, when $when", ({ arrange, message, paths }) => {
    const undo = arrange();
    try {
      const result = run(["releases"], paths?.());
      expect([result.status, result.stdout]).toEqual([1, ""]);
      expect(result.stderr).toMatch(message);
    } finally {
      undo();
    }
    // Put back, the same setup runs: the refusal was the broken file's.
    expect(run(["releases"]).status).toBe(0);
  });
});
