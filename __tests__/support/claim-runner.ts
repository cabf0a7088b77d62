/**
 * One delivery run in a process of its own, for the test of runs at once (inquiry-store.test.ts). Usage:
 * `node --import tsx claim-runner.ts <sqlite|postgres> <folder|connection string> <webhook URL>`. It opens
 * the SQL store, says "ready", waits for a line on its standard input (so that the runs start together),
 * then runs the delivery worker's own loop over the queue (runQueue) through the webhook until nothing due is left
 * to it, and prints the inquiries' references and the digests' days it delivered, as JSON.
 */
import { once } from "node:events";
import path from "node:path";
import { readInquiryConfig } from "../../server/inquiries/config";
import { readInquiryContent } from "../../server/inquiries/content-on-disk";
import { runQueue } from "../../server/inquiries/delivery/delivery-worker";
import { lineLog } from "../../server/inquiries/operational-log";
import { openPostgresStore } from "../../server/inquiries/store/postgres";
import { InquiryOutbox } from "../../server/inquiries/store/sql-outbox";
import { openSqliteStore } from "../../server/inquiries/store/sqlite";

const run = async ([engine = "", where = "", webhook = ""]: readonly string[]) => {
  const content = readInquiryContent(path.resolve(__dirname, "../../content"));
  const config = readInquiryConfig(content.form.delivery, { INQUIRY_WEBHOOK_URL: webhook });
  const database = engine === "sqlite" ? openSqliteStore(where) : openPostgresStore({ connectionString: where });
  const outbox = new InquiryOutbox(database);
  await database.ready();
  process.stdout.write("ready\n");
  await once(process.stdin, "data");
  // What each delivery's log line names: an inquiry's reference, or `digest <day> of …`.
  const delivered: string[] = [];
  const log = lineLog((line, level) => {
    if (level !== "info") throw new Error(`a delivery failed: ${line}`);
    const [first = "", second = ""] = line.split(" ");
    delivered.push(first === "digest" ? second : first);
  });
  await runQueue(outbox, config, log, () => new Date(), { content });
  await database.close();
  process.stdout.write(`${JSON.stringify(delivered)}\n`);
};

run(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
