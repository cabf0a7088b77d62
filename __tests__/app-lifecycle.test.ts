/**
 * @jest-environment node
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildApp } from "../server/app";
import { readInquiryConfig } from "../server/inquiries/config";
import { readInquiryContent } from "../server/inquiries/content-on-disk";
import { makePublicDir } from "./support/inquiry-app";

const content = readInquiryContent(path.resolve("content"));

const start = async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "lifecycle-"));
  const logLines: string[] = [];
  const server = await buildApp({
    publicDir: makePublicDir(),
    content,
    inquiryConfig: () => readInquiryConfig(content.form.delivery, { INQUIRY_DATA_DIR: dataDir }),
    trustProxy: false,
    hsts: false,
    requestsPerMinute: 0,
    logStream: { write: (line: string) => void logLines.push(line) },
  });
  return { server, logLines, dataDir };
};

describe("the app's lifecycle and its errors", () => {
  it("stops the delivery worker with app.close() alone", async () => {
    const { server, dataDir } = await start();
    await server.app.ready();
    const stop = jest.spyOn(server.worker, "stop");
    await server.app.close();
    expect(stop).toHaveBeenCalledTimes(1);
    await expect(stop.mock.results[0]?.value).resolves.toBeUndefined();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("logs a 5xx with the error itself (type, message, stack), and never the request's query or cookies", async () => {
    const { server, logLines, dataDir } = await start();
    // A route that fails as a bug would, answered by the app's error handler.
    server.app.get("/fails", () => {
      throw new TypeError("a bug's own message");
    });
    const answer = await server.app.inject({
      method: "GET",
      url: "/fails?email=pat@example.gov",
      headers: { cookie: "session=secret-cookie" },
    });
    expect([answer.statusCode, answer.json()]).toEqual([500, { error: "Something went wrong." }]);
    const line = logLines
      .map((text) => JSON.parse(text) as { err?: { type: string; message: string; stack: string } })
      .find((entry) => entry.err);
    expect(line).toMatchObject({
      level: 50,
      msg: "error GET /fails",
      err: { type: "TypeError", message: "a bug's own message" },
      req: { method: "GET", path: "/fails" },
    });
    expect(line?.err?.stack).toMatch(/^TypeError: a bug's own message\n\s+at /);
    expect(logLines.join("")).not.toMatch(/secret-cookie|pat@example\.gov/);
    await server.app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
});
