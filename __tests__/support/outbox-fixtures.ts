import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import type { OutboxRecord } from "../../src/inquiry/server/outbox";
import { emptyInquiry } from "../../src/inquiry/values";

/** An accepted inquiry as the outbox stores it, for tests that put one there directly. */
export const sampleRecord = (
  reference: string,
  transports: OutboxRecord["transports"] = ["webhook"],
): OutboxRecord => ({
  reference,
  receivedAt: "2026-11-22T10:00:00.000Z",
  transports,
  subject: `Website inquiry ${reference}`,
  replyTo: { address: "pat@example.gov" },
  fields: [{ name: "fullName", label: "Full name", value: "Pat Buyer" }],
  values: { ...emptyInquiry("general"), fullName: "Pat Buyer", email: "pat@example.gov" },
});

const run = promisify(execFile);
const root = path.resolve(__dirname, "../..");

/** `npm run inquiries -- <args>`, as cron or an operator runs it, with `env` over the test's environment. */
export const runInquiries = async (args: readonly string[], env: NodeJS.ProcessEnv) => {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ["--import", "tsx", path.join(root, "scripts/inquiries.ts"), ...args],
      { cwd: root, env: { ...process.env, ...env } },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
};
