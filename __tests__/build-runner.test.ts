/**
 * @jest-environment node
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { Frame, frame, socketBuildHost, type Job } from "../server/releases/build-host";
import { serveBuilds } from "../server/releases/build-runner";
import { Deployer } from "../server/releases/deployer";
import { buildDirOf, listReleases, liveReleaseId, siteDirOf } from "../server/releases/release-store";
import { deploySettingsFor, fakeSteps, homeJson, makeSourceRepository } from "./support/deploy-repository";
import { isRunning } from "./support/processes";
import { waitUntil } from "./support/wait-until";

jest.setTimeout(60_000);

const work = fs.mkdtempSync(path.join(os.tmpdir(), "build-runner-"));
const socket = path.join(work, "build.sock");
const buildDir = path.join(work, "build");
const server = net.createServer();

beforeAll(async () => {
  serveBuilds(server, { buildDir, log: pino({ level: "silent" }) });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(work, { recursive: true, force: true });
});

const host = socketBuildHost(socket);

const collect = async (job: Job) => {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  job.stdout.on("data", (chunk: Buffer) => out.push(chunk));
  job.stderr.on("data", (chunk: Buffer) => err.push(chunk));
  const ended = await job.ended;
  return { ...ended, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
};

describe("the build unit's process", () => {
  it("runs a command in its build folder, with its output, its exit code and its own PATH and HOME", async () => {
    const job = host.start(["sh", "-c", 'pwd; echo "$HOME $BUILD_SETTING $PATH"; echo oops >&2; exit 4'], {
      PATH: "/the/deployer/path",
      HOME: "/the/deployer/home",
      BUILD_SETTING: "sent",
    });
    job.stdin.end();
    const result = await collect(job);
    expect(result).toMatchObject({ code: 4, signal: null, stderr: "oops\n" });
    expect(result.stdout).toBe(`${fs.realpathSync(buildDir)}\n${process.env.HOME} sent ${process.env.PATH}\n`);
  });

  it("carries a large stream in and out, as the tar streams of a release are", async () => {
    const size = 20 * 1024 * 1024;
    const job = host.start(["sh", "-c", "cat > received && wc -c < received && cat received"], {});
    const sent = Buffer.alloc(size, "abc");
    job.stdin.end(sent);
    const result = await collect(job);
    expect(result.code).toBe(0);
    expect(result.stdout.length).toBe(String(size).length + 1 + size);
    expect(result.stdout.slice(0, String(size).length)).toBe(String(size));
  });

  it("ends a command that leaves its input unread at once, however much the deployer still sends", async () => {
    const job = host.start(["sh", "-c", "exit 3"], {});
    const sending = new Promise<void>((resolve) => job.stdin.end(Buffer.alloc(50 * 1024 * 1024, "x"), resolve));
    const began = Date.now();
    expect(await job.ended).toEqual({ code: 3, signal: null });
    await sending;
    expect(Date.now() - began).toBeLessThan(5_000);
  });

  it("passes SIGTERM to the whole group, and kills it when the deployer's connection closes", async () => {
    const term = host.start(
      ["sh", "-c", "trap 'echo stopping; exit 7' TERM; echo ready; while :; do sleep 0.1; done"],
      {},
    );
    term.stdin.end();
    const termed = collect(term);
    await new Promise((resolve) => term.stdout.once("data", resolve));
    term.signal("SIGTERM");
    expect(await termed).toMatchObject({ code: 7, stdout: "ready\nstopping\n" });

    const killed = host.start(["sh", "-c", "sleep 60 & echo $!; wait"], {});
    killed.stdin.end();
    const pid = Number(
      await new Promise<string>((resolve) => killed.stdout.once("data", (data: Buffer) => resolve(data.toString()))),
    );
    expect(isRunning(pid)).toBe(true);
    killed.signal("SIGKILL");
    expect(await killed.ended).toEqual({ code: null, signal: "SIGKILL" });
    await waitUntil(() => !isRunning(pid));
  });

  it("refuses a connection that does not speak its protocol, and keeps serving", async () => {
    for (const bytes of [
      frame(Frame.request, JSON.stringify({ protocol: 2, command: ["true"], env: {} })),
      frame(Frame.stdin, "no request first"),
      Buffer.from("GET / HTTP/1.1\r\n\r\n"),
    ]) {
      const answer = await new Promise<string>((resolve) => {
        const connection = net.createConnection(socket, () => connection.end(bytes));
        const chunks: Buffer[] = [];
        connection.on("data", (chunk: Buffer) => chunks.push(chunk));
        connection.on("close", () => resolve(Buffer.concat(chunks).subarray(5).toString()));
      });
      expect(JSON.parse(answer || "{}")).toHaveProperty("error");
    }
    const job = host.start(["true"], {});
    job.stdin.end();
    expect(await job.ended).toEqual({ code: 0, signal: null });
  });

  it("gives up on a build unit that takes no command (one that failed to start leaves connections queued)", async () => {
    const silent = net.createServer(() => undefined);
    const silentSocket = path.join(work, "silent.sock");
    await new Promise<void>((resolve) => silent.listen(silentSocket, resolve));
    try {
      const job = socketBuildHost(silentSocket, 300).start(["true"], {});
      job.stdin.end();
      await expect(job.ended).rejects.toThrow("the build unit did not take the command within 0.3 s");
      const missing = socketBuildHost(path.join(work, "missing.sock")).start(["true"], {});
      missing.stdin.end();
      await expect(missing.ended).rejects.toThrow(/ENOENT/);
    } finally {
      silent.close();
    }
  });

  it("builds a release for the deployer, which copies it out and leaves nothing of it in its own build folder", async () => {
    const repository = makeSourceRepository({ "content/home.json": homeJson("Built elsewhere") });
    const settings = deploySettingsFor(repository);
    const deployer = new Deployer({ settings, log: () => undefined, steps: fakeSteps(), buildHost: host });
    const release = await deployer.deployOnce();
    expect(release).toMatchObject({ state: "good" });
    expect(liveReleaseId(settings.dir)).toBe(release?.id);
    expect(
      fs.readFileSync(path.join(siteDirOf(settings.dir, release?.id ?? ""), "public", "index.html"), "utf8"),
    ).toContain("Built elsewhere");
    // Built, and its server checked, in the build unit's folder, never in the deployer's.
    expect(fs.existsSync(path.join(buildDir, "public", "started.txt"))).toBe(true);
    expect(fs.existsSync(buildDirOf(settings.dir))).toBe(false);
    expect(listReleases(settings.dir)).toHaveLength(1);
  });
});
