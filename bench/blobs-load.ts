// npm run bench:blobs: the inquiry function of the CDN deploy under load, with its Netlify Blobs
// outbox. 200 different inquiries, and 20 of them a second time with the same idempotency key (a
// visitor's retry), are sent to the function (createGatsbyFunction, with requests shaped as
// gatsby-adapter-netlify makes them, the store access in each one's Lambda event) all at once, against
// @netlify/blobs' local Blobs server; then the scheduled delivery runs until nothing is due. Counts what
// was stored and delivered, and adds the figures to reports/bench.json under "blobs"; then one scheduled
// run over a store holding years of inquiries (bench/blobs-scale.ts), under "blobsScale".
import path from "node:path";
import { enterRunTempRoot } from "../testing/run-temp-root";
import { commonHeaders } from "../server/site/common-headers";
import { startBlobsServer } from "../testing/blobs-server";
import { callFunction } from "../testing/gatsby-function-call";
import { startWebhookReceiver } from "../testing/loopback-servers";
import { readInquiryConfig } from "../server/inquiries/config";
import { readInquiryContent } from "../server/inquiries/content-on-disk";
import { createGatsbyFunction } from "../server/inquiries/gatsby-function";
import { openOutbox } from "../server/inquiries/open-outbox";
import { runScheduledDelivery } from "../server/inquiries/scheduled-delivery";
import { measureBlobsScale, printBlobsScale } from "./blobs-scale";
import { addToReport, type BlobsLoadFigures } from "./report";
import pino from "pino";

const root = path.resolve(__dirname, "..");
const percentile = (sorted: readonly number[], share: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? 0;

const inquiry = (index: number, run: string) => ({
  fullName: `Load Test Buyer ${index}`,
  organization: "Benchmark Agency",
  email: `buyer${index}@bench.example.gov`,
  inquiryType: "general",
  message: `Blobs load inquiry number ${index} of run ${run}, sent with the others at once.`,
  fill_ms: 12_000,
  idempotency_key: `blobs-load-${run}-${String(index).padStart(4, "0")}`,
});

const referenceOf = (body: string): string | null => {
  try {
    const { reference } = JSON.parse(body) as { reference?: unknown };
    return typeof reference === "string" ? reference : null;
  } catch {
    return null;
  }
};

export const measureBlobsLoad = async (invocations = 200, repeats = 20): Promise<BlobsLoadFigures> => {
  const content = readInquiryContent(path.join(root, "content"));
  const { delivery } = content.form;
  const blobs = await startBlobsServer();
  const hook = await startWebhookReceiver(204);
  try {
    const run = Date.now().toString(36);
    const store = `load-${run}`;
    // What the function reads from its environment on Netlify; its store access comes with each event.
    const functionEnv = {
      INQUIRY_OUTBOX: "blobs",
      INQUIRY_BLOBS_STORE: store,
      INQUIRY_WEBHOOK_URL: hook.url,
      INQUIRY_RATE_LIMIT_REQUESTS: "100000",
    };
    const fn = createGatsbyFunction({
      content,
      siteHeaders: commonHeaders,
      config: () => readInquiryConfig(delivery, functionEnv),
      log: pino({ level: "silent" }),
    });
    const event = blobs.lambdaEvent();
    const sends = [
      ...Array.from({ length: invocations }, (_, index) => index),
      ...Array.from({ length: repeats }, (_, index) => index * Math.floor(invocations / repeats)),
    ];
    const started = performance.now();
    const answers = await Promise.all(
      sends.map(async (index, send) => {
        const sentAt = performance.now();
        const answer = await callFunction(fn, inquiry(index, run), {
          event,
          remoteAddress: `10.1.${Math.floor(send / 250)}.${send % 250}`,
        });
        return { index, answer, ms: performance.now() - sentAt };
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const deliveredByInvocations = hook.received.length;

    const latencies = answers.map((sent) => sent.ms).sort((a, b) => a - b);
    const statuses: Record<string, number> = {};
    for (const { answer } of answers) statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
    const firstReferences = answers
      .slice(0, invocations)
      .map((sent) => (sent.answer.status === 201 ? referenceOf(sent.answer.body) : null));
    const repeatsWithFirstReference = answers
      .slice(invocations)
      .filter((sent) => referenceOf(sent.answer.body) === firstReferences[sent.index]).length;

    // The scheduled delivery, as Netlify runs it (each run within the platform's time limit), until nothing is due.
    const operatorEnv = { ...blobs.env(store), INQUIRY_WEBHOOK_URL: hook.url };
    const config = readInquiryConfig(delivery, operatorEnv);
    let scheduledRuns = 0;
    for (let pending = Infinity; pending > 0 && scheduledRuns < 10; scheduledRuns += 1) {
      const outcome = await runScheduledDelivery(delivery, { config: () => config, log: pino({ level: "silent" }) });
      pending = outcome.ran ? outcome.pending : pending;
    }

    const { records } = await openOutbox(config).read();
    const stored = new Map<string, number>();
    for (const record of records) stored.set(record.values.email, (stored.get(record.values.email) ?? 0) + 1);
    const references = new Set(records.map((record) => record.reference));
    const received = new Map<string, number>();
    for (const request of hook.received) {
      const reference = String(request.headers["x-inquiry-reference"]);
      received.set(reference, (received.get(reference) ?? 0) + 1);
    }
    return {
      invocations,
      repeats,
      answers: statuses,
      seconds: Number(seconds.toFixed(2)),
      p50Ms: Math.round(percentile(latencies, 0.5)),
      p95Ms: Math.round(percentile(latencies, 0.95)),
      maxMs: Math.round(latencies[latencies.length - 1] ?? 0),
      records: records.length,
      uniqueReferences: references.size,
      lost: firstReferences.filter((reference) => reference !== null && !references.has(reference)).length,
      duplicated: [...stored.values()].filter((count) => count > 1).length,
      repeatsWithFirstReference,
      deliveredByInvocations,
      deliveredByScheduledRuns: hook.received.length - deliveredByInvocations,
      scheduledRuns,
      deliveredExactlyOnce: [...references].filter((reference) => received.get(reference) === 1).length,
      webhookDeliveries: hook.received.length,
    };
  } finally {
    await hook.close();
    await blobs.close();
  }
};

export const printBlobsLoad = (figures: BlobsLoadFigures) => {
  const answers = Object.entries(figures.answers)
    .map(([status, count]) => `${count}× ${status}`)
    .join(", ");
  console.log(
    [
      `Blobs outbox load: ${figures.invocations} inquiries and ${figures.repeats} repeats sent to the inquiry function at once, ` +
        `answered in ${figures.seconds} s (p50 ${figures.p50Ms} ms, p95 ${figures.p95Ms} ms, max ${figures.maxMs} ms): ${answers}`,
      `  store: ${figures.records} records, ${figures.uniqueReferences} unique references, ${figures.lost} lost, ` +
        `${figures.duplicated} stored twice; ${figures.repeatsWithFirstReference} of ${figures.repeats} repeats answered with the first reference`,
      `  webhook: ${figures.webhookDeliveries} deliveries (${figures.deliveredByInvocations} by the invocations, ` +
        `${figures.deliveredByScheduledRuns} by ${figures.scheduledRuns} scheduled run${figures.scheduledRuns === 1 ? "" : "s"}), ` +
        `${figures.deliveredExactlyOnce} inquiries delivered exactly once`,
    ].join("\n"),
  );
};

if (require.main === module) {
  enterRunTempRoot("site-bench-");
  measureBlobsLoad()
    .then(async (figures) => {
      printBlobsLoad(figures);
      addToReport("blobs", figures);
      const scale = await measureBlobsScale();
      printBlobsScale(scale);
      const written = addToReport("blobsScale", scale);
      console.log(`Figures added to ${path.relative(root, written)} under "blobs" and "blobsScale".`);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
