import fs from "node:fs";
import path from "node:path";
import {
  metaOf,
  metaOfField,
  readSettings,
  settingsPart,
  siteSettings,
  type Environment,
  type SettingMeta,
  type SettingName,
  type SettingValues,
} from "../server/settings/catalog";
import { SETTINGS_TABLES, settingsTableProblem } from "../scripts/settings-doc";
import { readToolSetting, toolCatalogue } from "../testing/tool-settings";

const root = path.join(__dirname, "..");
const CATALOGUE_FILE = "server/settings/catalog.ts";
const catalogue = siteSettings.shape;
const names = Object.keys(catalogue) as SettingName[];
const settingOf = (name: SettingName): SettingMeta => metaOf(name);
/** One setting, read as an entry point reads its part. */
const readSetting = <N extends SettingName>(name: N, env: Environment): SettingValues[N] =>
  readSettings([settingsPart([name])], env)[name];

describe("the catalogue of settings", () => {
  it.each(names)("%s: unset or blank, its default", (name) => {
    expect(readSetting(name, {})).toEqual(settingOf(name).default);
    expect(readSetting(name, { [name]: "  " })).toEqual(settingOf(name).default);
  });

  const withDefault = names.filter((name) => settingOf(name).default !== null);
  it.each(withDefault)("%s: its default, written out, parses to itself", (name) => {
    const fallback = settingOf(name).default;
    expect(readSetting(name, { [name]: String(fallback) })).toEqual(fallback);
  });

  it("refuses a whole number out of its range, by name, for every whole-number setting", () => {
    for (const name of names) {
      const entry = settingOf(name);
      if (entry.min === undefined || entry.max === undefined) continue;
      const outside = [...(entry.min > 0 ? [entry.min - 1] : []), entry.max + 1];
      for (const value of outside) {
        expect(() => readSetting(name, { [name]: String(value) })).toThrow(
          new Error(`${name} must be a whole number from ${entry.min} to ${entry.max}, not ${value}`),
        );
      }
    }
  });

  it.each(["abc", "1.5", "1e3", "0x10", "+5", "-1"])("refuses %s where a whole number goes", (value) => {
    expect(() => readSetting("INQUIRY_ATTEMPT_TIMEOUT_SECONDS", { INQUIRY_ATTEMPT_TIMEOUT_SECONDS: value })).toThrow(
      new Error(`INQUIRY_ATTEMPT_TIMEOUT_SECONDS must be a whole number from 1 to 20, not ${value}`),
    );
  });

  it("refuses a number that is not one, and takes a fraction where one is allowed", () => {
    expect(() => readSetting("INQUIRY_MIN_FILL_SECONDS", { INQUIRY_MIN_FILL_SECONDS: "soon" })).toThrow(
      new Error("INQUIRY_MIN_FILL_SECONDS must be a number from 0 to 60, not soon"),
    );
    expect(readSetting("INQUIRY_MIN_FILL_SECONDS", { INQUIRY_MIN_FILL_SECONDS: "2.5" })).toBe(2.5);
  });

  it("refuses a bad URL or origin, by name", () => {
    expect(() => readSetting("CMS_GITHUB_URL", { CMS_GITHUB_URL: "github.example.com" })).toThrow(
      new Error(
        "CMS_GITHUB_URL must be https://, GitHub's address or a GitHub Enterprise Server's, not github.example.com",
      ),
    );
    expect(() => readSetting("CMS_GITHUB_URL", { CMS_GITHUB_URL: "http://github.example.com" })).toThrow(
      /^CMS_GITHUB_URL must be https:\/\//,
    );
    expect(() => readSetting("CMS_SITE_ORIGIN", { CMS_SITE_ORIGIN: "https://www.example.com/admin" })).toThrow(
      new Error("CMS_SITE_ORIGIN must be an origin like https://www.example.com, not https://www.example.com/admin"),
    );
    expect(readSetting("CMS_SITE_ORIGIN", { CMS_SITE_ORIGIN: "https://www.example.com/" })).toBe(
      "https://www.example.com",
    );
  });

  it("refuses a bad yes or no, by name, rather than reading it as no", () => {
    expect(() => readSetting("HSTS", { HSTS: "maybe" })).toThrow(
      new Error("HSTS must be 1, true, yes, 0, false or no, not maybe"),
    );
    expect(readSetting("HSTS", { HSTS: "YES" })).toBe(true);
    expect(readSetting("CMS_EDITORIAL_WORKFLOW", { CMS_EDITORIAL_WORKFLOW: "0" })).toBe(false);
  });

  it("refuses a word it does not know, and a secret by its length, never its text", () => {
    expect(() => readSetting("INQUIRY_OUTBOX", { INQUIRY_OUTBOX: "file" })).toThrow(
      new Error("INQUIRY_OUTBOX must be sqlite or postgres, not file"),
    );
    expect(readSetting("INQUIRY_OUTBOX", { INQUIRY_OUTBOX: "Postgres" })).toBe("postgres");
    expect(() => readSetting("INQUIRY_RELEASE_SECRET", { INQUIRY_RELEASE_SECRET: "hunter2" })).toThrow(
      new Error("INQUIRY_RELEASE_SECRET must be at least 32 characters (openssl rand -hex 32 makes one), not 7"),
    );
  });

  it("refuses TRUST_PROXY=true, and reads hops and addresses", () => {
    expect(() => readSetting("TRUST_PROXY", { TRUST_PROXY: "true" })).toThrow(/^TRUST_PROXY must be/);
    expect(readSetting("TRUST_PROXY", { TRUST_PROXY: "1" })).toBe(1);
    expect(readSetting("TRUST_PROXY", { TRUST_PROXY: "10.0.0.0/8, 127.0.0.1" })).toEqual(["10.0.0.0/8", "127.0.0.1"]);
  });

  it("describes each setting: what it allows, where it applies and what it means", () => {
    for (const name of names) {
      const setting = settingOf(name);
      expect(setting.allowed).not.toBe("");
      expect(setting.applies.length).toBeGreaterThan(0);
      // One line in the table: a pipe or a line break would break the row.
      expect(setting.meaning).toMatch(/^[^|\n]+$/);
    }
  });
});

describe("an entry point's settings, read once", () => {
  const part = settingsPart(["HSTS", "PORT", "INQUIRY_RELEASE_SECRET", "INQUIRY_RELEASE_ORIGIN"], {
    reads: ["INQUIRY_RELEASE_SECRET", "INQUIRY_RELEASE_ORIGIN"],
    problem: (values) =>
      values.INQUIRY_RELEASE_SECRET !== null && values.INQUIRY_RELEASE_ORIGIN === null
        ? "the secret needs its origin"
        : null,
  });
  const secret = "s".repeat(32);

  it("are frozen values, each its default or its text parsed", () => {
    const settings = readSettings([part], { HSTS: "yes" });
    expect(settings).toEqual({ HSTS: true, PORT: null, INQUIRY_RELEASE_SECRET: null, INQUIRY_RELEASE_ORIGIN: null });
    expect(Object.isFrozen(settings)).toBe(true);
  });

  it("name every value refused and every rule broken, at once", () => {
    expect(() => readSettings([part], { HSTS: "maybe", PORT: "99999", INQUIRY_RELEASE_SECRET: secret })).toThrow(
      new Error(
        "3 settings are wrong:\n" +
          "- HSTS must be 1, true, yes, 0, false or no, not maybe\n" +
          "- PORT must be a whole number from 0 to 65535, not 99999\n" +
          "- the secret needs its origin",
      ),
    );
  });

  it("judge no rule over a value that was refused", () => {
    expect(() => readSettings([part], { INQUIRY_RELEASE_SECRET: "short" })).toThrow(
      new Error("INQUIRY_RELEASE_SECRET must be at least 32 characters (openssl rand -hex 32 makes one), not 5"),
    );
  });

  it("read a setting two parts share once, and keep both parts' rules", () => {
    const other = settingsPart(["PORT"], {
      reads: ["PORT"],
      problem: (values) => (values.PORT === 1 ? "not port 1" : null),
    });
    expect(() => readSettings([part, other], { PORT: "1", INQUIRY_RELEASE_SECRET: secret })).toThrow(
      /2 settings are wrong:\n- the secret needs its origin\n- not port 1/,
    );
  });
});

describe("the tests' and benches' settings (testing/tool-settings.ts)", () => {
  const toolNames = Object.keys(toolCatalogue) as (keyof typeof toolCatalogue)[];

  it.each(toolNames)("%s: unset or blank, its default; out of its range, refused by name", (name) => {
    const setting = metaOfField(name, toolCatalogue[name]);
    expect(readToolSetting(name, {})).toEqual(setting.default);
    expect(readToolSetting(name, { [name]: "  " })).toEqual(setting.default);
    const { min, max } = setting;
    if (min !== undefined && max !== undefined)
      expect(() => readToolSetting(name, { [name]: String(max + 1) })).toThrow(
        `${name} must be a whole number from ${min} to ${max}, not ${max + 1}`,
      );
  });

  it("are none of the site's, so the Netlify functions, which carry its catalogue, carry none of them", () => {
    expect(toolNames.filter((name) => name in catalogue)).toEqual([]);
    expect(
      names.filter((name) => settingOf(name).applies.some((scope) => scope === "bench" || scope === "tests")),
    ).toEqual([]);
  });
});

describe.each(SETTINGS_TABLES)("$doc", (table) => {
  it("holds the table its catalogue generates (npm run docs:settings)", () => {
    expect(settingsTableProblem(table, fs.readFileSync(path.join(root, table.doc), "utf8"))).toBeNull();
  });
});

/** Code files under a folder, recursively. */
const codeFiles = (folder: string): string[] =>
  fs
    .globSync(`${folder}/**/*.{ts,tsx,mts,js,mjs}`, { cwd: root })
    .filter((file) => !file.endsWith(".d.ts"))
    .sort();

/** A comment line mentions the environment; it does not read it. */
const isComment = (line: string) => /^\s*(\/\/|\/\*|\*)/.test(line);

/** Reading the environment: `process.env`, or a passed environment's variable by name (`env.SMTP_URL`, `env["X"]`). */
const READS_ENVIRONMENT = /process\.env|\benv\.[A-Z][A-Z0-9_]+\b|\benv\[/;

/**
 * The lines outside the catalogue that may reach the environment, each with why it is not reading a setting. Each
 * must still match: a stale entry fails too.
 */
const NOT_SETTINGS: readonly { file: string; line: RegExp; why: string }[] = [
  {
    file: "server/releases/deployer.ts",
    line: /env: \{ PATH: process\.env\.PATH \}|const env = \{ PATH: process\.env\.PATH \}|^\s*PATH: process\.env\.PATH,$/,
    why: "git's and npm's search path, handed on to the child processes as it is",
  },
  {
    file: "server/releases/deployer.ts",
    line: /Object\.entries\(process\.env\)\.filter\(/,
    why: "the system's variables (PATH, HOME, LANG...) a release build is given, picked by name and prefix",
  },
  {
    file: "server/releases/build-runner.ts",
    line: /OWN\.flatMap\(\(name\) => \(process\.env\[name\]/,
    why: "the build unit's own PATH, HOME and locale, which a build's programs get whatever the deployer sends",
  },
  {
    file: "server/releases/build-runner.ts",
    line: /process\.env\.LISTEN_FDS === "1" && process\.env\.LISTEN_PID === String\(process\.pid\)/,
    why: "systemd's socket activation (sd_listen_fds): how the build unit is handed its socket",
  },
  {
    file: "server/releases/build-runner.ts",
    line: /const state = process\.env\.STATE_DIRECTORY;/,
    why: "the build unit's StateDirectory=, as systemd names it: where the build folder is",
  },
  {
    file: "server/releases/deployer.ts",
    line: /delete env\.CMS_GITHUB_CLIENT_(SECRET|ID);/,
    why: "takes the sign-in's credentials out of a release build's environment: written, not read",
  },
  {
    file: "scripts/screenshots.ts",
    line: /process\.env\.CMS_GITHUB_REPO \?\?=/,
    why: "sets, for the build it starts, a repository for the editing screen to show: written, not read",
  },
];

describe("reading settings", () => {
  it("happens through the catalogue only, under server/, scripts/ and netlify/", () => {
    const used = new Set<number>();
    const strays: string[] = [];
    for (const file of ["server", "scripts", "netlify"].flatMap(codeFiles)) {
      if (file === CATALOGUE_FILE) continue;
      fs.readFileSync(path.join(root, file), "utf8")
        .split("\n")
        .forEach((line, index) => {
          if (isComment(line) || !READS_ENVIRONMENT.test(line)) return;
          const allowed = NOT_SETTINGS.findIndex((entry) => entry.file === file && entry.line.test(line));
          if (allowed === -1) strays.push(`${file}:${index + 1}: ${line.trim()}`);
          else used.add(allowed);
        });
    }
    expect(strays).toEqual([]);
    expect(NOT_SETTINGS.filter((_, index) => !used.has(index))).toEqual([]);
  });

  it("names only catalogued variables elsewhere (the build, the site's code, the bench)", () => {
    const files = [
      ...["src", "build", "bench"].flatMap(codeFiles),
      ...fs.globSync("gatsby-*.{ts,tsx}", { cwd: root }),
      "lighthouserc.js",
      "testing/memory-limit.ts",
    ];
    const named = (text: string) =>
      [...text.matchAll(/process\.env(?:\.|\[")([A-Z][A-Z0-9_]+)|\bread\("([A-Z][A-Z0-9_]+)"\)/g)].map(
        ([, direct, byReader]) => direct ?? byReader ?? "",
      );
    const unknown = files.flatMap((file) =>
      named(fs.readFileSync(path.join(root, file), "utf8"))
        .filter((name) => !(name in catalogue) && !(name in toolCatalogue))
        .map((name) => `${file}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it("leaves no setting in the catalogue that no code reads", () => {
    const code = ["server", "scripts", "netlify", "src", "build", "bench"]
      .flatMap(codeFiles)
      .concat(fs.globSync("gatsby-*.{ts,tsx}", { cwd: root }), ["lighthouserc.js", "testing/memory-limit.ts"])
      .filter((file) => file !== CATALOGUE_FILE)
      .map((file) => fs.readFileSync(path.join(root, file), "utf8"))
      .join("\n");
    expect(names.filter((name) => !new RegExp(`\\b${name}\\b`).test(code))).toEqual([]);
  });

  it("leaves no setting in the tools' catalogue that no test, bench or tool reads", () => {
    const code = ["bench", "testing", "e2e", "scripts", "__tests__"]
      .flatMap(codeFiles)
      .concat(["lighthouserc.js", "playwright.config.ts"])
      .filter((file) => file !== "testing/tool-settings.ts" && file !== "__tests__/settings-catalog.test.ts")
      .map((file) => fs.readFileSync(path.join(root, file), "utf8"))
      .join("\n");
    expect(Object.keys(toolCatalogue).filter((name) => !new RegExp(`\\b${name}\\b`).test(code))).toEqual([]);
  });
});
