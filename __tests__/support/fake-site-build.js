// A stand-in for the deploy's steps (npm ci, the content check, gatsby build), run by the deployer in its
// build folder, for tests that need many deploys: the real build takes a minute, this a moment.
// `node fake-site-build.js install|check|build`. What a step does is read from the commit's own files,
// so a commit decides it, as it does for the real steps:
// - install fails as npm ci does when the registry cannot be reached, when content/offline.txt exists, and
//   otherwise writes content/module-files.txt files (a number) into node_modules, as a real install writes many;
// - check fails when content/home.json's headline is "BROKEN", as the content check fails on bad content;
// - build writes public/ (index.html with the headline, 404.html, _headers with a policy naming the
//   headline, so a test can tell which release's headers came with which page), after waiting
//   content/build-ms.txt milliseconds when that file exists; it appends its commit's headline to the file
//   BUILD_RECORD names, so a test counts builds; it fails as a full disk makes it when content/disk-full.txt exists.
//   It also writes the release's own server, dist/server/main.js (a stand-in for the compiled server): it
//   listens on PORT and HOST (run by a primary as a cluster worker, it takes the primary's connections instead,
//   through the project's own compiled worker-link.js), answers /healthz
//   with the status alone (as the real server answers a request without the token) and the files of public/,
//   and names itself in an X-Release-Server header with content/server.txt (or "standard"); with
//   content/server-fails.txt it ends at start with that file's text, as a server that
//   cannot start does; with content/server-ms.txt it waits that long before it listens. It counts itself
//   in public/started.txt and prints its pid, so a test sees how often a release's server was started,
//   and whether that process still runs. With content/answer-ms.txt it takes that long over every answer
//   (requests in flight while it is stopped); run by a primary with content/server-ends-ms.txt, it ends by
//   itself (exit code 3) that long after it is ready, as a bug that shows only in service; with content/server-env.txt (variable names, one a line) it
//   writes those variables, as it got them, to public/server-env.json at start.
//   The build appends its headline to public/built.txt: an incremental build adds to what the build before
//   left there, a full one (which starts without public/) begins the file again.
const fs = require("node:fs");
const path = require("node:path");

const step = process.argv[2];
/** The project's compiled link between a release's server and the primary (npm run build:server). */
const WORKER_LINK = path.resolve(__dirname, "..", "..", "dist", "server", "releases", "worker-link.js");

/** The source of a release's stand-in server (see the header). */
const releaseServer = (name) => `// Written by fake-site-build.js: a release's stand-in server.
const fs = require("node:fs");
const http = require("node:http");
const path = require("node:path");
const failFile = path.join("content", "server-fails.txt");
if (fs.existsSync(failFile)) {
  console.error(fs.readFileSync(failFile, "utf8").trim());
  process.exit(1);
}
fs.appendFileSync(path.join("public", "started.txt"), process.pid + "\\n");
console.log("started as pid " + process.pid);
const envFile = path.join("content", "server-env.txt");
if (fs.existsSync(envFile)) {
  const names = fs.readFileSync(envFile, "utf8").split("\\n").filter(Boolean);
  const seen = Object.fromEntries(names.filter((name) => name in process.env).map((name) => [name, process.env[name]]));
  fs.writeFileSync(path.join("public", "server-env.json"), JSON.stringify(seen));
}
const msOf = (file) => (fs.existsSync(file) ? Number(fs.readFileSync(file, "utf8")) : 0);
const waitMs = msOf(path.join("content", "server-ms.txt"));
const answerMs = msOf(path.join("content", "answer-ms.txt"));
const server = http.createServer((request, response) => setTimeout(() => answer(request, response), answerMs));
const answer = (request, response) => {
  response.setHeader("X-Release-Server", ${JSON.stringify(name)});
  response.setHeader("X-Release-Pid", String(process.pid));
  const url = request.url.split("?")[0];
  if (url === "/healthz") {
    response.setHeader("Content-Type", "application/json");
    response.end(JSON.stringify({ status: "ok" }));
    return;
  }
  const file = path.join("public", url === "/" ? "index.html" : url);
  fs.readFile(file, (error, body) => {
    if (error) {
      response.statusCode = 404;
      response.end(fs.readFileSync(path.join("public", "404.html")));
      return;
    }
    response.end(body);
  });
};
server.keepAliveTimeout = 1000;
process.on("SIGTERM", () => server.close(() => process.exit(0)));
if (require("node:cluster").isWorker) {
  // Run by a primary, as main.ts is: the project's own worker end (compiled by jest's global setup) takes the
  // primary's connections and its stop, which waits for the answers under way on them.
  const { workerEnd } = require(${JSON.stringify(WORKER_LINK)});
  const end = workerEnd({
    log: (_level, _fields, line) => console.error(line),
    onStop: () => {
      server.close();
      end.drained().then(() => process.exit(0));
    },
  });
  setTimeout(() => server.listen({ path: "\\0fake-release-" + process.pid, exclusive: true }, () => {
    end.takeConnections(server);
    console.log("serving as a worker");
    end.ready();
    // A bug that shows only in service: it ends by itself a while after it began to serve.
    const endsMs = msOf(path.join("content", "server-ends-ms.txt"));
    if (endsMs > 0) setTimeout(() => {
      console.error("a bug that shows only in service");
      process.exit(3);
    }, endsMs);
  }), waitMs);
} else {
  setTimeout(() => server.listen(Number(process.env.PORT), process.env.HOST || "127.0.0.1", () => {
    console.log("serving on " + server.address().port);
  }), waitMs);
}
`;
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
    fs.appendFileSync(path.join("public", "built.txt"), `${headline}\n`);
    const page = (title) =>
      `<!doctype html><html lang="en"><head><title>${title}</title></head><body><h1>${title}</h1>${"<p>Uniforms and tactical gear.</p>".repeat(60)}</body></html>`;
    fs.writeFileSync(path.join("public", "index.html"), page(headline));
    fs.writeFileSync(path.join("public", "404.html"), page("Page not found"));
    const serverFile = path.join("content", "server.txt");
    const serverName = fs.existsSync(serverFile) ? fs.readFileSync(serverFile, "utf8").trim() : "standard";
    fs.mkdirSync(path.join("dist", "server"), { recursive: true });
    fs.writeFileSync(path.join("dist", "server", "main.js"), releaseServer(serverName));
    // What the primary looks for before it runs a release's server: one that takes connections from it.
    fs.mkdirSync(path.join("dist", "server", "releases"), { recursive: true });
    fs.writeFileSync(
      path.join("dist", "server", "releases", "handoff.js"),
      "// the stand-in server takes the primary's connections\n",
    );
    fs.writeFileSync(
      path.join("public", "_headers"),
      `/*\n  X-Content-Type-Options: nosniff\n\n/\n  Content-Security-Policy: default-src 'self'; script-src 'sha256-${headline.replace(/\W/g, "")}'\n`,
    );
  }, waitMs);
} else {
  console.error(`unknown step ${step}`);
  process.exit(2);
}
