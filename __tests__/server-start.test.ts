/**
 * @jest-environment node
 */
import { spawnSync } from "node:child_process";
import path from "node:path";

const compiledServer = path.resolve("dist/server/main.js");

describe("the compiled server's start", () => {
  it("refuses to start while a setting still holds the environment file sample's change-me, naming it", () => {
    const started = spawnSync(process.execPath, [compiledServer], {
      encoding: "utf8",
      env: { ...process.env, PORT: "0", DEPLOY_WEBHOOK_SECRET: "change-me", SMTP_URL: "smtps://a:change-me@b" },
      timeout: 30_000,
    });
    expect(started.status).toBe(1);
    expect(started.stderr).toBe(
      "The server could not start: DEPLOY_WEBHOOK_SECRET, SMTP_URL still hold the sample's change-me: " +
        "give the real values in the environment file (/etc/cardinal-site.env)\n",
    );
  });

  it("refuses to start with a deploy webhook secret under 32 characters, naming it and its length alone", () => {
    const started = spawnSync(process.execPath, [compiledServer], {
      encoding: "utf8",
      env: { ...process.env, PORT: "0", DEPLOY_WEBHOOK_SECRET: "x".repeat(31) },
      timeout: 30_000,
    });
    expect(started.status).toBe(1);
    expect(started.stderr).toBe(
      "The server could not start: " +
        "DEPLOY_WEBHOOK_SECRET must be at least 32 characters (openssl rand -hex 32 makes one), not 31\n",
    );
  });

  it("names every setting it refuses and every rule between settings broken, at once, before it starts anything", () => {
    const start = (env: NodeJS.ProcessEnv) =>
      spawnSync(process.execPath, [compiledServer], {
        encoding: "utf8",
        env: { ...process.env, PORT: "0", ...env },
        timeout: 30_000,
      });
    const values = start({ HSTS: "maybe", INQUIRY_MAX_ATTEMPTS: "0", INQUIRY_DATA_DIR: "" });
    expect(values.status).toBe(1);
    expect(values.stderr).toBe(
      "The server could not start: 2 settings are wrong:\n" +
        "- HSTS must be 1, true, yes, 0, false or no, not maybe\n" +
        "- INQUIRY_MAX_ATTEMPTS must be a whole number from 1 to 50, not 0\n",
    );
    const rules = start({ INQUIRY_DATABASE_URL: "postgres://db.example.net/site", INQUIRY_OUTBOX: "sqlite" });
    expect(rules.status).toBe(1);
    expect(rules.stderr).toBe(
      "The server could not start: INQUIRY_DATABASE_URL is set but INQUIRY_OUTBOX is sqlite: " +
        "set INQUIRY_OUTBOX=postgres or unset it\n",
    );
    const both = start({
      HSTS: "maybe",
      INQUIRY_RELEASE_SECRET: "r".repeat(32),
      CMS_GITHUB_CLIENT_ID: "Iv1.0123456789abcdef",
    });
    expect(both.status).toBe(1);
    expect(both.stderr).toBe(
      "The server could not start: 3 settings are wrong:\n" +
        "- HSTS must be 1, true, yes, 0, false or no, not maybe\n" +
        "- INQUIRY_RELEASE_SECRET is set but INQUIRY_RELEASE_ORIGIN is not: say where the digest's release links point\n" +
        "- CMS_GITHUB_CLIENT_ID and CMS_GITHUB_CLIENT_SECRET go together: set both, or neither\n",
    );
  });
});
