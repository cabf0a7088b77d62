/**
 * The outbox, for whoever answers inquiries: `npm run inquiries` lists them with where each delivery
 * stands; `-- --retry` delivers the pending ones again through the transports configured now;
 * `-- --show CRS-XXXX-XXXX` prints one in full. Reads the same environment as the server
 * (INQUIRY_DATA_DIR, SMTP_URL, INQUIRY_TO, INQUIRY_FROM, INQUIRY_WEBHOOK_URL).
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { readInquiryConfig } from "../src/inquiry/server/config";
import { readInquiryContent } from "../src/inquiry/server/content-on-disk";
import { deliver } from "../src/inquiry/server/deliver";
import { Outbox, type OutboxEntry } from "../src/inquiry/server/outbox";

// An inquiry accepted this recently and not yet tried may be in the middle of its first delivery.
const IN_FLIGHT_MS = 2 * 60_000;

const { values: options } = parseArgs({
  options: {
    retry: { type: "boolean", default: false },
    pending: { type: "boolean", default: false },
    show: { type: "string" },
  },
});

const describe = (entry: OutboxEntry) => {
  const deliveries = Object.entries(entry.deliveries).map(([transport, state]) => `${transport} ${state}`);
  return [
    entry.record.reference,
    entry.record.receivedAt,
    entry.record.values.inquiryType.padEnd(8),
    deliveries.length ? deliveries.join(", ") : "stored only (no transport was configured)",
  ].join("  ");
};

const main = async (): Promise<number> => {
  const content = readInquiryContent(path.resolve("content"));
  const config = readInquiryConfig(content.form.delivery);
  const outbox = new Outbox(config.dataDir);
  const { entries, damagedLines } = await outbox.entries();
  if (damagedLines > 0) console.warn(`${damagedLines} damaged line(s) in ${config.dataDir} were skipped.`);

  if (options.show) {
    const entry = entries.find((candidate) => candidate.record.reference === options.show);
    if (!entry) {
      console.error(`No inquiry ${options.show} in ${outbox.inquiriesFile}.`);
      return 1;
    }
    console.log(describe(entry));
    for (const field of entry.record.fields) console.log(`${field.label}: ${field.value}`);
    return 0;
  }

  if (!options.retry) {
    const shown = options.pending ? entries.filter((entry) => entry.pending) : entries;
    console.log(
      `${entries.length} inquiries in ${outbox.inquiriesFile}, ${entries.filter((e) => e.pending).length} pending.`,
    );
    for (const entry of shown) console.log(describe(entry));
    return 0;
  }

  if (config.problems.length > 0) {
    console.error(`Cannot retry: ${config.problems.join("; ")}.`);
    return 1;
  }
  const now = Date.now();
  const due = entries.filter(
    (entry) => entry.pending && (entry.attempts > 0 || now - Date.parse(entry.record.receivedAt) > IN_FLIGHT_MS),
  );
  let stillPending = 0;
  for (const entry of due) {
    const transports = entry.record.transports.filter((transport) => entry.deliveries[transport] !== "delivered");
    const results = await deliver(entry.record, transports, config, outbox);
    const failed = results.filter((result) => !result.ok);
    if (failed.length > 0) stillPending += 1;
    console.log(
      `${entry.record.reference}: ${results.map((r) => `${r.transport} ${r.ok ? "delivered" : `failed (${r.detail})`}`).join(", ")}`,
    );
  }
  console.log(
    `Retried ${due.length} pending inquiries: ${due.length - stillPending} delivered, ${stillPending} still pending.`,
  );
  return stillPending > 0 ? 1 : 0;
};

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
