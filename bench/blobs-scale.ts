// The CDN deploy's scheduled delivery over years of inquiries: a Netlify Blobs store holding
// BLOBS_SCALE_STORED delivered inquiries (budgets.json's blobsScale.stored by default), as the outbox leaves
// them (the inquiry, its idempotency claim, its attempt, its received/, expiry/ and senders/ keys), spread over
// the last 24 months and a day, and one pending inquiry stored through the outbox; then a scheduled run as
// Netlify runs it every five minutes (retention done for the day), and the day's run with retention due.
// Counted for each: the requests it made to the store, the keys its listings returned, its seconds; and when
// the pending inquiry reached the webhook. A run's cost must be that of the open work (and of one day's
// retention), not of the history.
//
// The history is written straight into the local Blobs server's folder, in the server's own layout (one
// file per key, under entries/<site>/<store>/): through its HTTP API, hundreds of thousands of keys take
// many minutes to write.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { startBlobsServer } from "../testing/blobs-server";
import { startWebhookReceiver } from "../testing/loopback-servers";
import { deliveredBlobsOf, RETENTION_RUN } from "../server/inquiries/blobs-outbox";
import { BlobsStore } from "../server/inquiries/blobs-store";
import { readInquiryConfig } from "../server/inquiries/config";
import { readInquiryContent } from "../server/inquiries/content-on-disk";
import { openOutbox } from "../server/inquiries/open-outbox";
import type { OutboxRecord } from "../server/inquiries/outbox";
import { runScheduledDelivery } from "../server/inquiries/scheduled-delivery";
import { emptyInquiry } from "../src/inquiry/values";
import { readBudgets } from "./budgets";
import type { BlobsScaleFigures } from "./report";
import { lineLog } from "../server/inquiries/operational-log";

const root = path.resolve(__dirname, "..");
const DAY_MS = 86_400_000;
/** Days the history is spread over: 24 months and a day, so that about one day's worth has run out. */
const HISTORY_DAYS = 732;
const WRITE_CONCURRENCY = 64;

const historyRecord = (index: number, now: number): OutboxRecord => {
  const message = `We need ${index % 90} duty shirts and ${index % 40} jackets before the spring academy; please quote delivery to our county office.`;
  const address = `buyer${index % 5_000}@county${index % 97}.example.gov`;
  return {
    reference: `SCL-D${String(index).padStart(7, "0")}`,
    receivedAt: new Date(now - (index % HISTORY_DAYS) * DAY_MS - (index % 600) * 60_000).toISOString(),
    transports: ["webhook"],
    subject: `Website inquiry SCL-${index}: General question`,
    replyTo: { address },
    fields: [
      { name: "fullName", label: "Full name", value: `Buyer ${index}` },
      { name: "email", label: "Email", value: address },
      { name: "message", label: "Message", value: message },
    ],
    values: { ...emptyInquiry("general"), fullName: `Buyer ${index}`, email: address, message },
    idempotencyKey: `scale-key-d-${index}`,
  };
};

/** Writes `stored` delivered inquiries into the store's folder of the local Blobs server. */
const seed = async (storeFolder: string, stored: number, now: number): Promise<void> => {
  // Each folder made once; writers into it wait for that.
  const folders = new Map<string, Promise<unknown>>();
  const write = async (key: string, value: unknown) => {
    const file = path.join(storeFolder, key);
    const folder = path.dirname(file);
    let made = folders.get(folder);
    if (!made) {
      made = mkdir(folder, { recursive: true });
      folders.set(folder, made);
    }
    await made;
    await writeFile(file, JSON.stringify(value));
  };
  let next = 0;
  await Promise.all(
    Array.from({ length: WRITE_CONCURRENCY }, async () => {
      while (next < stored) {
        const record = historyRecord(next, now);
        next += 1;
        const attempt = { reference: record.reference, transport: "webhook" as const, ok: true, at: record.receivedAt };
        for (const { key, value } of deliveredBlobsOf(record, [attempt])) await write(key, value);
      }
    }),
  );
};

/**
 * Counts the requests made through `fetch` while `work` runs, and the keys and folders that list
 * responses carried (a JSON body with `blobs` or `directories`).
 */
const counted = async <T>(work: () => Promise<T>): Promise<{ value: T; requests: number; keysListed: number }> => {
  const original = globalThis.fetch;
  const counts = { requests: 0, keysListed: 0 };
  globalThis.fetch = async (input, init) => {
    counts.requests += 1;
    const response = await original(input, init);
    if (response.headers.get("content-type")?.includes("application/json")) {
      const body = (await response.clone().json()) as { blobs?: unknown[]; directories?: unknown[] };
      counts.keysListed += (body.blobs?.length ?? 0) + (body.directories?.length ?? 0);
    }
    return response;
  };
  try {
    return { value: await work(), ...counts };
  } finally {
    globalThis.fetch = original;
  }
};

/** budgets.json's count (what CI runs) unless BLOBS_SCALE_STORED says otherwise (fewer for a quick look: check:budgets fails it). */
export const measureBlobsScale = async (
  stored = Number(process.env.BLOBS_SCALE_STORED ?? readBudgets().blobsScale.stored),
): Promise<BlobsScaleFigures> => {
  const { delivery } = readInquiryContent(path.join(root, "content")).form;
  const blobs = await startBlobsServer();
  const hook = await startWebhookReceiver(204);
  try {
    const store = "scale";
    const now = Date.now();
    const seeding = performance.now();
    // A named store lives in the folder "site:<name>".
    await seed(path.join(blobs.directory, "entries", blobs.siteID, `site:${store}`), stored, now);
    const seedSeconds = (performance.now() - seeding) / 1000;
    const config = readInquiryConfig(delivery, { ...blobs.env(store), INQUIRY_WEBHOOK_URL: hook.url });
    await openOutbox(config).add({
      ...historyRecord(stored, now),
      reference: "SCL-PENDING-0001",
      receivedAt: new Date(now).toISOString(),
      idempotencyKey: "scale-key-pending",
    });

    // Today's retention already done: this run is one of the 287 a day that only deliver.
    const blobsStore = new BlobsStore(config.blobs);
    await blobsStore.write(RETENTION_RUN, { at: new Date(now).toISOString() });
    const lines: string[] = [];
    // An object: the interval's callback sets it.
    const reached: { at: number | null } = { at: null };
    const watching = setInterval(() => {
      if (reached.at === null && hook.received.length > 0) reached.at = performance.now();
    }, 5);
    const scheduledRun = () =>
      counted(() => runScheduledDelivery(delivery, { config: () => config, log: lineLog((line) => lines.push(line)) }));
    const started = performance.now();
    const run = await scheduledRun();
    const runSeconds = (performance.now() - started) / 1000;
    clearInterval(watching);
    if (reached.at === null && hook.received.length > 0) reached.at = performance.now();
    if (!run.value.ran || run.value.delivered !== 1) throw new Error(`the run delivered: ${lines.join("; ")}`);

    // The day's run: retention due.
    await blobsStore.delete(RETENTION_RUN);
    const retentionStarted = performance.now();
    const retentionRun = await scheduledRun();
    const retentionRunSeconds = (performance.now() - retentionStarted) / 1000;
    const retention = lines.find((line) => line.startsWith("retention:")) ?? "";
    return {
      stored,
      seedSeconds: Number(seedSeconds.toFixed(1)),
      runSeconds: Number(runSeconds.toFixed(2)),
      requests: run.requests,
      keysListed: run.keysListed,
      deliveredAfterSeconds: reached.at === null ? null : Number(((reached.at - started) / 1000).toFixed(2)),
      retentionRunSeconds: Number(retentionRunSeconds.toFixed(2)),
      retentionRequests: retentionRun.requests,
      retentionKeysListed: retentionRun.keysListed,
      removedByRetention: Number(/removed (\d+) inquiries/.exec(retention)?.[1] ?? Number.NaN),
      retentionComplete: retention !== "" && !retention.includes("the rest at the next run"),
    };
  } finally {
    await hook.close();
    await blobs.close();
  }
};

export const printBlobsScale = (figures: BlobsScaleFigures) => {
  console.log(
    [
      `Blobs outbox at scale: ${figures.stored.toLocaleString("en")} delivered inquiries stored (seeded in ${figures.seedSeconds} s)`,
      `  a scheduled run: ${figures.runSeconds} s, ${figures.requests} requests, ${figures.keysListed} keys listed; ` +
        `the pending inquiry delivered after ${figures.deliveredAfterSeconds ?? "never"} s`,
      `  the day's run with retention: ${figures.retentionRunSeconds} s, ${figures.retentionRequests} requests, ` +
        `${figures.retentionKeysListed} keys listed; removed ${figures.removedByRetention}` +
        (figures.retentionComplete ? "" : " (its time ran out: the next run goes on)"),
    ].join("\n"),
  );
};

if (require.main === module) {
  measureBlobsScale()
    .then(printBlobsScale)
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
