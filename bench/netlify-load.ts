// npm run bench:netlify: the inquiry function of the CDN deploy under load, with its outbox in Netlify
// Database. 200 different inquiries, and 20 of them a second time with the same idempotency key (a visitor's
// retry), are sent to the function (createGatsbyFunction, with requests shaped as gatsby-adapter-netlify makes
// them) all at once, against a fresh database on a local Postgres (Debian's, started for the run as the tests
// start it, reached by INQUIRY_DATABASE_URL); then the scheduled delivery runs until nothing is due. Counts
// what was stored and delivered, and adds the figures to reports/bench.json under "netlifyLoad".
import type { IncomingHttpHeaders } from "node:http";
import path from "node:path";
import { enterRunTempRoot } from "../testing/run-temp-root";
import { commonHeaders } from "../server/site/common-headers";
import { callFunction, type FunctionAnswer, type GatsbyFunction } from "../testing/gatsby-function-call";
import { startWebhookReceiver } from "../testing/loopback-servers";
import { startPostgres } from "../testing/postgres";
import { readInquiryConfig, type InquiryConfig } from "../server/inquiries/config";
import type { InquiryContent } from "../server/inquiries/content";
import { readInquiryContent } from "../server/inquiries/content-on-disk";
import { createGatsbyFunction } from "../server/inquiries/netlify/gatsby-function";
import { openOutbox } from "../server/inquiries/store/open-outbox";
import { forgetProcessWide } from "../server/inquiries/process-wide";
import { runScheduledDelivery } from "../server/inquiries/netlify/scheduled-delivery";
import { addToReport, type NetlifyLoadFigures } from "./report";
import pino from "pino";

const root = path.resolve(__dirname, "..");
const percentile = (sorted: readonly number[], share: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? 0;

const inquiry = (index: number, run: string) => ({
  fullName: `Load Test Buyer ${index}`,
  organization: "Benchmark Agency",
  email: `buyer${index}@bench.example.gov`,
  inquiryType: "general",
  message: `Netlify load inquiry number ${index} of run ${run}, sent with the others at once.`,
  fill_ms: 12_000,
  idempotency_key: `netlify-load-${run}-${String(index).padStart(4, "0")}`,
});

const referenceOf = (body: string): string | null => {
  try {
    const { reference } = JSON.parse(body) as { reference?: unknown };
    return typeof reference === "string" ? reference : null;
  } catch {
    return null;
  }
};

interface Sent {
  readonly index: number;
  readonly answer: FunctionAnswer;
  readonly ms: number;
}

/** The inquiries, then the repeats (every tenth inquiry again, with its key), all sent to `fn` at once. */
const sendAtOnce = async (fn: GatsbyFunction, run: string, invocations: number, repeats: number) => {
  const sends = [
    ...Array.from({ length: invocations }, (_, index) => index),
    ...Array.from({ length: repeats }, (_, index) => index * Math.floor(invocations / repeats)),
  ];
  const started = performance.now();
  const answers: Sent[] = await Promise.all(
    sends.map(async (index, send) => {
      const sentAt = performance.now();
      const answer = await callFunction(fn, inquiry(index, run), {
        remoteAddress: `10.1.${Math.floor(send / 250)}.${send % 250}`,
      });
      return { index, answer, ms: performance.now() - sentAt };
    }),
  );
  return { answers, seconds: (performance.now() - started) / 1000 };
};

/** The scheduled delivery, as Netlify runs it (each run within the platform's time limit), until nothing is due. */
const deliverUntilDone = async (
  delivery: InquiryContent["form"]["delivery"],
  config: InquiryConfig,
): Promise<number> => {
  let scheduledRuns = 0;
  for (let pending = Infinity; pending > 0 && scheduledRuns < 10; scheduledRuns += 1) {
    const outcome = await runScheduledDelivery({ config: () => config, log: pino({ level: "silent" }) });
    pending = outcome.ran ? outcome.pending : pending;
  }
  return scheduledRuns;
};

/** The answers' figures: their statuses and latencies, and whether each repeat got its first one's reference. */
const answerFigures = (answers: readonly Sent[], invocations: number) => {
  const latencies = answers.map((sent) => sent.ms).sort((a, b) => a - b);
  const statuses: Record<string, number> = {};
  for (const { answer } of answers) statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
  const firstReferences = answers
    .slice(0, invocations)
    .map((sent) => (sent.answer.status === 201 ? referenceOf(sent.answer.body) : null));
  return {
    answers: statuses,
    p50Ms: Math.round(percentile(latencies, 0.5)),
    p95Ms: Math.round(percentile(latencies, 0.95)),
    maxMs: Math.round(latencies[latencies.length - 1] ?? 0),
    firstReferences,
    repeatsWithFirstReference: answers
      .slice(invocations)
      .filter((sent) => referenceOf(sent.answer.body) === firstReferences[sent.index]).length,
  };
};

/** What the database holds against what was answered, and what the webhook received of it. */
const storeFigures = async (
  config: InquiryConfig,
  firstReferences: readonly (string | null)[],
  received: readonly { readonly headers: IncomingHttpHeaders }[],
) => {
  const { records } = await openOutbox(config).read();
  const stored = new Map<string, number>();
  for (const record of records) stored.set(record.values.email, (stored.get(record.values.email) ?? 0) + 1);
  const references = new Set(records.map((record) => record.reference));
  const deliveries = new Map<string, number>();
  for (const request of received) {
    const reference = String(request.headers["x-inquiry-reference"]);
    deliveries.set(reference, (deliveries.get(reference) ?? 0) + 1);
  }
  return {
    records: records.length,
    uniqueReferences: references.size,
    lost: firstReferences.filter((reference) => reference !== null && !references.has(reference)).length,
    duplicated: [...stored.values()].filter((count) => count > 1).length,
    deliveredExactlyOnce: [...references].filter((reference) => deliveries.get(reference) === 1).length,
  };
};

type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;

/** The run on the function whose outbox `config` names, its webhook `hook`. */
const loadOn = async (
  content: InquiryContent,
  config: InquiryConfig,
  hook: WebhookReceiver,
  invocations: number,
  repeats: number,
): Promise<NetlifyLoadFigures> => {
  const fn = createGatsbyFunction({
    content,
    siteHeaders: commonHeaders,
    config: () => config,
    log: pino({ level: "silent" }),
  });
  const { answers, seconds } = await sendAtOnce(fn, Date.now().toString(36), invocations, repeats);
  const deliveredByInvocations = hook.received.length;
  const scheduledRuns = await deliverUntilDone(content.form.delivery, config);
  const answered = answerFigures(answers, invocations);
  const stored = await storeFigures(config, answered.firstReferences, hook.received);
  return {
    invocations,
    repeats,
    answers: answered.answers,
    seconds: Number(seconds.toFixed(2)),
    p50Ms: answered.p50Ms,
    p95Ms: answered.p95Ms,
    maxMs: answered.maxMs,
    records: stored.records,
    uniqueReferences: stored.uniqueReferences,
    lost: stored.lost,
    duplicated: stored.duplicated,
    repeatsWithFirstReference: answered.repeatsWithFirstReference,
    deliveredByInvocations,
    deliveredByScheduledRuns: hook.received.length - deliveredByInvocations,
    scheduledRuns,
    deliveredExactlyOnce: stored.deliveredExactlyOnce,
    webhookDeliveries: hook.received.length,
  };
};

/**
 * The run, on a fresh database of a Postgres started for it and stopped after. Its Postgres at a server's
 * own priority (`niced: false`), as the bench measures it; a test that only checks the counts asks for it
 * niced, beside whatever else the machine runs.
 */
export const measureNetlifyLoad = async (
  invocations = 200,
  repeats = 20,
  { niced = false }: { readonly niced?: boolean } = {},
): Promise<NetlifyLoadFigures> => {
  const content = readInquiryContent(path.join(root, "content"));
  const postgres = await startPostgres({ niced });
  try {
    const hook = await startWebhookReceiver(204);
    try {
      // What the function reads from its environment on Netlify: the database, named by its connection string.
      const config = readInquiryConfig(content.form.delivery, {
        INQUIRY_OUTBOX: "postgres",
        INQUIRY_DATABASE_URL: await postgres.database(),
        INQUIRY_WEBHOOK_URL: hook.url,
        INQUIRY_RATE_LIMIT_REQUESTS: "100000",
      });
      try {
        return await loadOn(content, config, hook, invocations, repeats);
      } finally {
        // The function's pool on the database, which outlives its invocations in this process, closed with it.
        await openOutbox(config).close();
        forgetProcessWide("inquiry-outbox");
      }
    } finally {
      await hook.close();
    }
  } finally {
    await postgres.stop();
  }
};

export const printNetlifyLoad = (figures: NetlifyLoadFigures) => {
  const answers = Object.entries(figures.answers)
    .map(([status, count]) => `${count}× ${status}`)
    .join(", ");
  console.log(
    [
      `Netlify Database outbox load: ${figures.invocations} inquiries and ${figures.repeats} repeats sent to the inquiry function at once, ` +
        `answered in ${figures.seconds} s (p50 ${figures.p50Ms} ms, p95 ${figures.p95Ms} ms, max ${figures.maxMs} ms): ${answers}`,
      `  database: ${figures.records} records, ${figures.uniqueReferences} unique references, ${figures.lost} lost, ` +
        `${figures.duplicated} stored twice; ${figures.repeatsWithFirstReference} of ${figures.repeats} repeats answered with the first reference`,
      `  webhook: ${figures.webhookDeliveries} deliveries (${figures.deliveredByInvocations} by the invocations, ` +
        `${figures.deliveredByScheduledRuns} by ${figures.scheduledRuns} scheduled run${figures.scheduledRuns === 1 ? "" : "s"}), ` +
        `${figures.deliveredExactlyOnce} inquiries delivered exactly once`,
    ].join("\n"),
  );
};

if (require.main === module) {
  enterRunTempRoot("site-bench-");
  measureNetlifyLoad()
    .then((figures) => {
      printNetlifyLoad(figures);
      const written = addToReport("netlifyLoad", figures);
      console.log(`Figures added to ${path.relative(root, written)} under "netlifyLoad".`);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
