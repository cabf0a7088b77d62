// The inquiry function under load, through the production server (gatsby serve, as `npm start`
// runs it): 200 concurrent valid submissions with the rate limit raised, then a flood from one
// client at the configured limit. Part of `npm run bench`; `npm run bench:inquiries` runs it alone
// against the existing build. npm run check:budgets judges the figures.
import fs from "node:fs";
import path from "node:path";
import { readContent, startSite } from "../e2e/support/server";
import { startWebhookReceiver } from "../__tests__/support/loopback-servers";
import { Outbox } from "../src/inquiry/server/outbox";

export interface InquiryLoadFigures {
  concurrent: {
    submissions: number;
    accepted: number;
    seconds: number;
    requestsPerSecond: number;
    p50Ms: number;
    p95Ms: number;
    maxMs: number;
    /** Whole records in the outbox, lines that are not valid JSON, and submissions found in it exactly once. */
    recordsStored: number;
    damagedLines: number;
    storedExactlyOnce: number;
    uniqueReferences: number;
    webhookDeliveries: number;
  };
  flood: {
    limit: number;
    windowSeconds: number;
    submissions: number;
    accepted: number;
    refused: number;
    retryAfterSeconds: number;
    recordsStored: number;
  };
}

const CONCURRENT = Number(process.env.LOAD_SUBMISSIONS ?? 200);
const FLOOD = 30;

const percentile = (sorted: number[], share: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? 0;

const submission = (index: number) => ({
  fullName: `Load Test Buyer ${index}`,
  organization: "Benchmark Agency",
  email: `buyer${index}@bench.example.gov`,
  inquiryType: "general",
  message: `Load test inquiry number ${index}, sent with the others at once.`,
  fill_ms: 20_000,
});

const post = async (url: string, body: unknown) => {
  const started = performance.now();
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started, retryAfter: response.headers.get("retry-after") };
};

const concurrentRun = async (): Promise<InquiryLoadFigures["concurrent"]> => {
  const hook = await startWebhookReceiver(204);
  const site = await startSite({ env: { INQUIRY_WEBHOOK_URL: hook.url } });
  try {
    const url = site.url("/api/inquiry");
    await post(url, { ...submission(-1), company_website: "warm-up: discarded as automated" });
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: CONCURRENT }, (_, index) => post(url, submission(index))));
    const seconds = (performance.now() - started) / 1000;
    const latencies = results.map((result) => result.ms).sort((a, b) => a - b);
    const { records, damagedLines } = await new Outbox(site.dataDir).read();
    const counts = new Map<string, number>();
    for (const record of records) counts.set(record.values.message, (counts.get(record.values.message) ?? 0) + 1);
    const exactlyOnce = Array.from({ length: CONCURRENT }, (_, index) => submission(index).message).filter(
      (message) => counts.get(message) === 1,
    ).length;
    return {
      submissions: CONCURRENT,
      accepted: results.filter((result) => result.status === 201).length,
      seconds: Number(seconds.toFixed(2)),
      requestsPerSecond: Number((CONCURRENT / seconds).toFixed(1)),
      p50Ms: Math.round(percentile(latencies, 0.5)),
      p95Ms: Math.round(percentile(latencies, 0.95)),
      maxMs: Math.round(latencies.at(-1) ?? 0),
      recordsStored: records.length,
      damagedLines,
      storedExactlyOnce: exactlyOnce,
      uniqueReferences: new Set(records.map((record) => record.reference)).size,
      webhookDeliveries: hook.received.length,
    };
  } finally {
    await site.stop();
    await hook.close();
  }
};

const floodRun = async (): Promise<InquiryLoadFigures["flood"]> => {
  const { rateLimit } = readContent<{ delivery: { rateLimit: { requests: number; windowSeconds: number } } }>(
    "inquiry.json",
  ).delivery;
  const site = await startSite({
    env: {
      INQUIRY_RATE_LIMIT_REQUESTS: String(rateLimit.requests),
      INQUIRY_RATE_LIMIT_WINDOW_SECONDS: String(rateLimit.windowSeconds),
    },
  });
  try {
    const url = site.url("/api/inquiry");
    const results = [];
    for (let index = 0; index < FLOOD; index += 1) results.push(await post(url, submission(index)));
    const refused = results.filter((result) => result.status === 429);
    return {
      limit: rateLimit.requests,
      windowSeconds: rateLimit.windowSeconds,
      submissions: FLOOD,
      accepted: results.filter((result) => result.status === 201).length,
      refused: refused.length,
      retryAfterSeconds: Number(refused[0]?.retryAfter ?? 0),
      recordsStored: (await new Outbox(site.dataDir).read()).records.length,
    };
  } finally {
    await site.stop();
  }
};

export const measureInquiryLoad = async (): Promise<InquiryLoadFigures> => {
  const concurrent = await concurrentRun();
  const flood = await floodRun();
  return { concurrent, flood };
};

export const printInquiryLoad = ({ concurrent, flood }: InquiryLoadFigures) => {
  console.log(
    [
      `Inquiry load: ${concurrent.submissions} concurrent submissions in ${concurrent.seconds} s ` +
        `(${concurrent.requestsPerSecond} req/s), latency p50 ${concurrent.p50Ms} ms, p95 ${concurrent.p95Ms} ms, max ${concurrent.maxMs} ms`,
      `  ${concurrent.accepted} accepted; outbox ${concurrent.recordsStored} records, ${concurrent.damagedLines} damaged, ` +
        `${concurrent.storedExactlyOnce} submissions stored exactly once, ${concurrent.uniqueReferences} unique references; ` +
        `${concurrent.webhookDeliveries} webhook deliveries`,
      `Rate limit flood: ${flood.submissions} from one client at ${flood.limit} per ${flood.windowSeconds} s: ` +
        `${flood.accepted} accepted, ${flood.refused} refused with 429 (Retry-After ${flood.retryAfterSeconds} s), ` +
        `${flood.recordsStored} stored`,
    ].join("\n"),
  );
};

if (require.main === module) {
  const reportPath = path.resolve(__dirname, "..", "reports", "inquiry-load.json");
  measureInquiryLoad()
    .then((figures) => {
      printInquiryLoad(figures);
      fs.mkdirSync(path.dirname(reportPath), { recursive: true });
      fs.writeFileSync(reportPath, `${JSON.stringify(figures, null, 2)}\n`);
    })
    .catch((error) => {
      console.error(error);
      process.exit(1);
    });
}
