/**
 * @jest-environment node
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ADMIN_PATH, writeEditingScreen } from "../src/admin/editing-screen";
import { formatProblem } from "../src/content-contract/validate";
import { robotsProblems } from "../src/seo/robots";
import { adminPolicy, LOCAL_BACKEND } from "../build/admin-headers";
import { readEditingBackend } from "../src/admin/editing-backend";
import {
  headerRulesFor,
  inlineScriptHashes,
  pagePolicy,
  policyAllowingEach,
  writeHeadersFile,
} from "../build/security-headers";
import { formatHeaderRules, parseHeaderRules } from "../server/site/headers-file";

const root = path.join(__dirname, "..");
const publicDir = fs.mkdtempSync(path.join(os.tmpdir(), "public-"));
beforeAll(() => writeEditingScreen(publicDir, fs.mkdtempSync(path.join(os.tmpdir(), "preview-cache-"))));
// A site page beside it, with an inline script and a script file as the pages that run the app have.
const sitePage = '<!doctype html><html><head><script>window.a=1</script><script src="/app.js"></script></head></html>';
fs.writeFileSync(path.join(publicDir, "index.html"), sitePage);

describe("the editing screen's headers", () => {
  let rules: ReturnType<typeof headerRulesFor>;
  beforeAll(() => {
    rules = headerRulesFor(publicDir);
  });

  it("give /admin/ Decap's own policy and keep every site page's hash policy", () => {
    const live = adminPolicy();
    expect(rules.get(ADMIN_PATH)?.["Content-Security-Policy"]).toBe(live);
    expect(rules.get("/")).toEqual({ "Content-Security-Policy": pagePolicy(inlineScriptHashes(sitePage)) });
    expect(live).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    expect(live).toMatch(/frame-ancestors 'none'/);
  });

  it("allow GitHub's API for the github backend; Netlify Identity only when Git Gateway is chosen", () => {
    const github = adminPolicy(readEditingBackend({}));
    expect(github).toMatch(/connect-src 'self' blob: https:\/\/api\.github\.com;/);
    expect(github).toMatch(/script-src 'self' 'unsafe-eval';/);
    expect(github).not.toMatch(/identity\.netlify\.com/);
    const enterprise = adminPolicy(readEditingBackend({ CMS_GITHUB_URL: "https://github.example.com" }));
    expect(enterprise).toMatch(/connect-src 'self' blob: https:\/\/github\.example\.com;/);
    const gateway = adminPolicy(readEditingBackend({ CMS_BACKEND: "git-gateway" }));
    expect(gateway).toMatch(/script-src 'self' 'unsafe-eval' https:\/\/identity\.netlify\.com;/);
  });

  it("name no http: source in the policy the build writes; decap-server's address only on an editor's machine", () => {
    const built = rules.get(ADMIN_PATH)?.["Content-Security-Policy"] ?? "";
    const sources = built.split(";").flatMap((directive) => directive.trim().split(/\s+/).slice(1));
    expect(sources.filter((source) => /^http:|^\*$/.test(source))).toEqual([]);
    for (const env of [{}, { CMS_BACKEND: "git-gateway" }, { CMS_GITHUB_URL: "https://github.example.com" }]) {
      const backend = readEditingBackend(env);
      expect(adminPolicy(backend)).not.toContain("http:");
    }
    expect(() => readEditingBackend({ CMS_GITHUB_URL: "http://github.example.com" })).toThrow(
      /CMS_GITHUB_URL must be https/,
    );
    const editorsMachine = adminPolicy(readEditingBackend({}), "editors-machine");
    expect(editorsMachine).toMatch(/connect-src 'self' blob: https:\/\/api\.github\.com http:\/\/localhost:8081;/);
    expect(LOCAL_BACKEND).toBe("http://localhost:8081");
  });

  it("cut /admin/ off from a window of another site that opened it, but not from the sign-in popup it opens", () => {
    expect(rules.get(ADMIN_PATH)?.["Cross-Origin-Opener-Policy"]).toBe("same-origin-allow-popups");
    // Netlify's rule for /admin/ does not match /admin/index.html, which serves the same screen.
    expect(rules.get(`${ADMIN_PATH}index.html`)).toEqual(rules.get(ADMIN_PATH));
    expect(rules.get("/*")?.["Cross-Origin-Opener-Policy"]).toBeUndefined();
  });

  it("give the paths no page answers (the CDN's 404) a policy that allows what each page's does, and no inline script but by hash", () => {
    const anyPage = rules.get("/*")?.["Content-Security-Policy"] ?? "";
    const sitePolicy = pagePolicy(inlineScriptHashes(sitePage));
    expect(anyPage).toBe(policyAllowingEach([adminPolicy(), sitePolicy]));
    expect(anyPage).toContain(`script-src 'self' 'unsafe-eval' '${inlineScriptHashes(sitePage)[0]}';`);
    expect(anyPage).toMatch(/object-src 'none'/);
    expect(anyPage).toMatch(/frame-ancestors 'none'/);
    expect(anyPage).toMatch(/manifest-src 'self'/);
    // The editing screen's policy has no manifest-src: its default-src, 'self', stands for it.
    expect(policyAllowingEach(["default-src 'self'", "default-src 'self'; img-src https:"])).toBe(
      "default-src 'self'; img-src 'self' https:",
    );
    // A directive one policy leaves unrestricted is unrestricted in the union.
    expect(policyAllowingEach(["default-src 'self'; base-uri 'self'", "default-src 'self'"])).toBe(
      "default-src 'self'",
    );
    expect(() => policyAllowingEach(["script-src 'unsafe-inline'", "script-src 'sha256-x'"])).toThrow(/script-src/);
  });

  it("keep everything under /admin/ out of search engines' indexes", () => {
    expect(rules.get("/admin/*")).toEqual({ "X-Robots-Tag": "noindex, nofollow" });
    expect(parseHeaderRules(formatHeaderRules(rules))).toEqual(rules);
  });

  it("count pages, not the rules for whole folders", () => {
    expect(writeHeadersFile(publicDir)).toBe(2);
  });

  it("come with a robots.txt rule, which the content check insists on", () => {
    const robots = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "robots-")), "robots.txt");
    fs.writeFileSync(
      robots,
      fs.readFileSync(path.join(root, "static", "robots.txt"), "utf8").replace("Disallow: /admin/\n", ""),
    );
    expect(robotsProblems(path.join(root, "content"), robots).map(formatProblem)).toEqual([
      'static/robots.txt › Disallow: must contain the line "Disallow: /admin/" so that the editing screen is not crawled',
    ]);
    expect(robotsProblems(path.join(root, "content"), path.join(root, "static", "robots.txt"))).toEqual([]);
  });
});
