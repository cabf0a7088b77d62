import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { promisify } from "node:util";
import type { OutboxRecord } from "../../server/inquiries/store/outbox";
import { DATABASE_FILE } from "../../server/inquiries/store/sqlite";
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

/**
 * The compiled inquiries tool (dist/scripts/inquiries.js, as `cardinal-site inquiries` runs it on the server),
 * with `env` over the test's environment, from the project's folder or from `cwd`, with `input` typed on its
 * standard input (then closed).
 */
export const runInquiries = async (
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  { cwd = root, input = "" }: { readonly cwd?: string; readonly input?: string } = {},
) => {
  try {
    const running = run(process.execPath, [path.join(root, "dist/scripts/inquiries.js"), ...args], {
      cwd,
      env: { ...process.env, ...env },
    });
    running.child.stdin?.end(input);
    const { stdout, stderr } = await running;
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
};

/**
 * The inquiries the single server's database in `dataDir` holds, oldest first, read as another process
 * would (none when it was never created).
 */
export const storedRecordsIn = (dataDir: string): OutboxRecord[] => {
  const file = path.join(dataDir, DATABASE_FILE);
  if (!existsSync(file)) return [];
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const rows = db.prepare("SELECT record FROM inquiries ORDER BY rowid").all() as unknown as { record: string }[];
    return rows.map((row) => JSON.parse(row.record) as OutboxRecord);
  } finally {
    db.close();
  }
};
