// A stand-in for the deploy's steps (npm ci, the content check, gatsby build), run by the deployer in a
// release's site folder, for tests that need many deploys: the real build takes a minute, this a moment.
// `node fake-site-build.js install|check|build`. What a step does is read from the release's own files,
// so a commit decides it, as it does for the real steps:
// - install fails as npm ci does when the registry cannot be reached, when content/offline.txt exists, and
//   otherwise writes content/module-files.txt files (a number) into node_modules, as a real install writes many;
// - check fails when content/home.json's headline is "BROKEN", as the content check fails on bad content;
// - build writes public/ (index.html with the headline, 404.html, _headers with a policy naming the
//   headline, so a test can tell which release's headers came with which page), after waiting
//   content/build-ms.txt milliseconds when that file exists; it appends its commit's headline to the file
//   BUILD_RECORD names, so a test counts builds; it fails as a full disk makes it when content/disk-full.txt exists.
const fs = require("node:fs");
const path = require("node:path");

const step = process.argv[2];
const home = () => JSON.parse(fs.readFileSync(path.join("content", "home.json"), "utf8"));

if (step === "install") {
  if (fs.existsSync(path.join("content", "offline.txt"))) {
    console.error("npm error code ENOTFOUND");
    console.error(
      "npm error network request to https://registry.example/fastify failed, reason: getaddrinfo ENOTFOUND",
    );
    process.exit(1);
  }
  fs.mkdirSync("node_modules", { recursive: true });
  fs.writeFileSync(path.join("node_modules", "installed.txt"), "yes\n");
  const countFile = path.join("content", "module-files.txt");
  const count = fs.existsSync(countFile) ? Number(fs.readFileSync(countFile, "utf8")) : 0;
  for (let index = 0; index < count; index += 1) {
    const folder = path.join("node_modules", `package-${Math.floor(index / 100)}`);
    if (index % 100 === 0) fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, `file-${index}.js`), "module.exports = 1;\n");
  }
} else if (step === "check") {
  if (home().headline === "BROKEN") {
    console.error("content/home.json: headline: this is not a headline");
    process.exit(1);
  }
} else if (step === "build") {
  const { headline } = home();
  const waitFile = path.join("content", "build-ms.txt");
  const waitMs = fs.existsSync(waitFile) ? Number(fs.readFileSync(waitFile, "utf8")) : 0;
  setTimeout(() => {
    if (fs.existsSync(path.join("content", "disk-full.txt"))) {
      console.error("Error: ENOSPC: no space left on device, write");
      process.exit(1);
    }
    if (process.env.BUILD_RECORD) fs.appendFileSync(process.env.BUILD_RECORD, `${headline}\n`);
    fs.mkdirSync("public", { recursive: true });
    const page = (title) =>
      `<!doctype html><html lang="en"><head><title>${title}</title></head><body><h1>${title}</h1>${"<p>Uniforms and tactical gear.</p>".repeat(60)}</body></html>`;
    fs.writeFileSync(path.join("public", "index.html"), page(headline));
    fs.writeFileSync(path.join("public", "404.html"), page("Page not found"));
    fs.writeFileSync(
      path.join("public", "_headers"),
      `/*\n  X-Content-Type-Options: nosniff\n\n/\n  Content-Security-Policy: default-src 'self'; script-src 'sha256-${headline.replace(/\W/g, "")}'\n`,
    );
  }, waitMs);
} else {
  console.error(`unknown step ${step}`);
  process.exit(2);
}
