/**
 * One delivery run in a process of its own, for the test of runs at once (inquiry-store.test.ts). Usage:
 * `node --import tsx claim-runner.ts <sqlite|postgres> <folder|connection string> <webhook URL>`. It opens
 * the SQL store, says "ready", waits for a line on its standard input (so that the runs start together),
 * then claims due jobs and delivers each through the webhook until none is left for it, and prints the
 * inquiries' references and the digests' days it delivered, as JSON.
 */
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import path from "node:path";
import { readInquiryConfig } from "../../server/inquiries/config";
import { readInquiryContent } from "../../server/inquiries/content-on-disk";
import { deliver, sendThrough } from "../../server/inquiries/delivery/deliver";
import { openPostgresStore } from "../../server/inquiries/store/postgres";
import { SqlOutbox } from "../../server/inquiries/store/sql-outbox";
import { openSqliteStore } from "../../server/inquiries/store/sqlite";

const run = async ([engine = "", where = "", webhook = ""]: readonly string[]) => {
  const { delivery } = readInquiryContent(path.resolve(__dirname, "../../content")).form;
  const config = readInquiryConfig(delivery, { INQUIRY_WEBHOOK_URL: webhook });
  const database = engine === "sqlite" ? openSqliteStore(where) : openPostgresStore({ connectionString: where });
  const outbox = new SqlOutbox(database);
  await database.ready();
  process.stdout.write("ready\n");
  await once(process.stdin, "data");
  const holder = randomUUID();
  const delivered: string[] = [];
  for (;;) {
    const now = new Date();
    const jobs = await outbox.claim({ holder, now, leaseMs: 60_000, limit: 3, maxAttempts: 8, storedToo: false });
    if (jobs.length === 0) break;
    for (const job of jobs) {
      if (job.kind === "inquiry") {
        await deliver(job.entry.record, ["webhook"], config, outbox);
        delivered.push(job.entry.record.reference);
      } else {
        const { id } = job.entry.digest;
        const message = {
          headers: { "X-Inquiry-Event": "held-digest", "X-Inquiry-Digest": id },
          email: { subject: id, text: id, html: id },
          webhookBody: JSON.stringify({ digest: id }),
        };
        await sendThrough(message, ["webhook"], config, (outcome) =>
          outbox.recordDigestAttempt({ digest: id, ...outcome }),
        );
        delivered.push(id);
      }
    }
    await outbox.unclaim(
      holder,
      jobs.map((job) => job.id),
    );
  }
  await database.close();
  process.stdout.write(`${JSON.stringify(delivered)}\n`);
};

run(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
