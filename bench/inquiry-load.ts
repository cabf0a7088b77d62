// The inquiry endpoint under load, through the production server (server/main.ts, as `npm start`
// runs it): 200 concurrent valid submissions with email and webhook delivery configured; 2,000
// requests that must be refused (GETs and invalid posts) while a visitor loads the home page; then
// a flood from one client at the configured rate limit. Part of `npm run bench`;
// `npm run bench:inquiries` runs it alone against the existing build. npm run check:budgets judges
// the figures.
import { readSettings, settingsPart } from "../server/settings/catalog";
import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { enterRunTempRoot } from "../testing/run-temp-root";
import { processUsage, startSite, type RunningSite } from "../testing/site-server";
import { startMailServer, startWebhookReceiver } from "../testing/loopback-servers";
import { openSqliteOutbox } from "../server/inquiries/store/sqlite";
import { readToolSetting } from "../testing/tool-settings";
import { readBudgets } from "./budgets";
import type { InquiryLoadFigures } from "./report";

// The counts budgets.json's inquiryLoad holds, which its budgets were set for. LOAD_SUBMISSIONS and
// LOAD_REFUSED send others for a quick look; npm run check:budgets fails a run made with them.
const { inquiryLoad: counts } = readBudgets();
const CONCURRENT = readToolSetting("LOAD_SUBMISSIONS") ?? counts.submissions;
const REFUSED = readToolSetting("LOAD_REFUSED") ?? counts.refusedRequests;
const REFUSED_CONCURRENCY = 20;
const FLOOD = 30;
const DELIVERY_TIMEOUT_MS = 120_000;

/** NaN (null in the report, "not measured" to npm run check:budgets) when nothing was timed. */
const percentile = (sorted: number[], share: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? Number.NaN;

/**
 * The server's memory and CPU from /proc. processUsage reads 0 for a line /proc did not give; a running
 * server always holds memory and has used CPU, so such a 0 is written as not measured (NaN, null in the
 * report) instead of a figure under every budget.
 */
const serverUsage = (pid: number) => {
  const { rssMb, cpuMs } = processUsage(pid);
  return { rssMb: rssMb > 0 ? rssMb : Number.NaN, cpuMs: cpuMs > 0 ? cpuMs : Number.NaN };
};

const submission = (index: number) => ({
  fullName: `Load Test Buyer ${index}`,
  organization: "Benchmark Agency",
  email: `buyer${index}@bench.example.gov`,
  inquiryType: "general",
  message: `Load test inquiry number ${index}, sent with the others at once.`,
  fill_ms: 20_000,
});

const request = async (url: string, init: RequestInit = {}) => {
  const started = performance.now();
  const response = await fetch(url, init);
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started, retryAfter: response.headers.get("retry-after") };
};
const post = (url: string, body: unknown) =>
  request(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

const concurrentRun = async (): Promise<InquiryLoadFigures["concurrent"]> => {
  const [hook, mail] = await Promise.all([startWebhookReceiver(204), startMailServer()]);
  const site = await startSite({
    env: {
      INQUIRY_WEBHOOK_URL: hook.url,
      SMTP_URL: mail.url,
      SMTP_ALLOW_PLAIN: "1",
      INQUIRY_TO: "sales@bench.example",
      INQUIRY_FROM: "website@bench.example",
    },
  });
  try {
    const url = site.url("/api/inquiry");
    // Warms the server up; it looks automated, so it stays in quarantine and is never delivered.
    await post(url, { ...submission(-1), company_website: "warm-up" });
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: CONCURRENT }, (_, index) => post(url, submission(index))));
    const seconds = (performance.now() - started) / 1000;
    const deadline = Date.now() + DELIVERY_TIMEOUT_MS;
    while (hook.received.length + mail.received.length < 2 * CONCURRENT && Date.now() < deadline) await sleep(50);
    const allDeliveredSeconds = (performance.now() - started) / 1000;
    const latencies = results.map((result) => result.ms).sort((a, b) => a - b);
    const { records } = await openSqliteOutbox(site.dataDir).read();
    const delivered = records.filter((record) => !record.quarantine);
    const counts = new Map<string, number>();
    for (const record of delivered) counts.set(record.values.message, (counts.get(record.values.message) ?? 0) + 1);
    const exactlyOnce = Array.from({ length: CONCURRENT }, (_, index) => submission(index).message).filter(
      (message) => counts.get(message) === 1,
    ).length;
    const tally = (references: string[]) => {
      const seen = new Map<string, number>();
      for (const reference of references) seen.set(reference, (seen.get(reference) ?? 0) + 1);
      return seen;
    };
    const hooked = tally(hook.received.map((call) => String(call.headers["x-inquiry-reference"])));
    const mailed = tally(mail.received.map((message) => /^X-Inquiry-Reference: (\S+)/m.exec(message.raw)?.[1] ?? ""));
    const deliveredOnceBoth = delivered.filter(
      (record) => hooked.get(record.reference) === 1 && mailed.get(record.reference) === 1,
    ).length;
    return {
      submissions: CONCURRENT,
      accepted: results.filter((result) => result.status === 201).length,
      seconds: Number(seconds.toFixed(2)),
      requestsPerSecond: Number((CONCURRENT / seconds).toFixed(1)),
      p50Ms: Math.round(percentile(latencies, 0.5)),
      p95Ms: Math.round(percentile(latencies, 0.95)),
      maxMs: Math.round(latencies.at(-1) ?? Number.NaN),
      recordsStored: delivered.length,
      storedExactlyOnce: exactlyOnce,
      uniqueReferences: new Set(delivered.map((record) => record.reference)).size,
      webhookDeliveries: hook.received.length,
      emailDeliveries: mail.received.length,
      deliveredOnceBoth,
      allDeliveredSeconds: Number(allDeliveredSeconds.toFixed(2)),
    };
  } finally {
    await site.stop();
    await Promise.all([hook.close(), mail.close()]);
  }
};

/** The requests an attacker can send for free: each must be refused cheaply, and leave nothing behind. */
const refusedRequests = (url: string): (() => Promise<{ status: number }>)[] => {
  const kinds = [
    () => request(url),
    () => post(url, { email: "not-an-address", message: "" }),
    () => request(url, { method: "POST", headers: { "Content-Type": "text/plain" }, body: "hello" }),
    () => request(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{not json" }),
  ];
  // The kinds in turn, REFUSED in all.
  return Array.from({ length: Math.ceil(REFUSED / kinds.length) }, () => kinds)
    .flat()
    .slice(0, REFUSED);
};

const LIVE_MEMORY_PROBE = path.join(__dirname, "server-live-memory.ts");

/** Asks the server (started with LIVE_MEMORY_PROBE) to collect its garbage, and reads what it still holds. */
const liveMemoryMb = async (site: RunningSite): Promise<number> => {
  const answer = await site.ask("live-memory-mb").catch(() => Number.NaN);
  return typeof answer === "number" ? Number(answer.toFixed(2)) : Number.NaN;
};

const refusedRun = async (): Promise<InquiryLoadFigures["refused"]> => {
  const site: RunningSite = await startSite({
    node: { flags: ["--expose-gc"], preload: [LIVE_MEMORY_PROBE] },
    channel: true,
  });
  try {
    const url = site.url("/api/inquiry");
    // Warm up every path once, so the figures are the steady state, not the first load.
    for (const send of refusedRequests(url).slice(0, 8)) await send();
    await request(site.url("/"));
    await sleep(500);
    const statuses: Record<string, number> = {};
    const homeTimes: number[] = [];
    const burst = async () => {
      const queue = refusedRequests(url);
      let burstDone = false;
      // A named function, not an inline one: the loop reads burstDone as the burst below sets it.
      const visitHome = async () => {
        while (!burstDone) {
          homeTimes.push((await request(site.url("/"), { headers: { "Accept-Encoding": "br, gzip" } })).ms);
          await sleep(25);
        }
      };
      const visitor = visitHome();
      await Promise.all(
        Array.from({ length: REFUSED_CONCURRENCY }, async () => {
          for (let next = queue.shift(); next; next = queue.shift()) {
            const { status } = await next();
            statuses[status] = (statuses[status] ?? 0) + 1;
          }
        }),
      );
      burstDone = true;
      await visitor;
    };
    // Resident memory is read before the collection that reading the live memory makes.
    const before = serverUsage(site.pid);
    const liveBefore = await liveMemoryMb(site);
    const cpuBefore = serverUsage(site.pid).cpuMs;
    await burst();
    const during = serverUsage(site.pid);
    // The CPU of the first round covers its refused requests and the home pages loaded meanwhile.
    const firstRoundRequests = REFUSED + homeTimes.length;
    await sleep(1_000);
    const afterFirst = serverUsage(site.pid);
    const liveAfterFirst = await liveMemoryMb(site);
    await burst();
    await sleep(1_000);
    const after = serverUsage(site.pid);
    const liveAfter = await liveMemoryMb(site);
    const sortedHome = [...homeTimes].sort((a, b) => a - b);
    return {
      requests: REFUSED,
      statuses,
      rssBeforeMb: Number(before.rssMb.toFixed(1)),
      rssAfterFirstMb: Number(afterFirst.rssMb.toFixed(1)),
      rssAfterMb: Number(after.rssMb.toFixed(1)),
      liveBeforeMb: liveBefore,
      liveAfterFirstMb: liveAfterFirst,
      liveAfterMb: liveAfter,
      liveGrowthMb: Number((liveAfter - liveAfterFirst).toFixed(2)),
      cpuMsPerRequest: Number(((during.cpuMs - cpuBefore) / firstRoundRequests).toFixed(2)),
      homeDuringBurstP50Ms: Number(percentile(sortedHome, 0.5).toFixed(1)),
      homeDuringBurstSamples: homeTimes.length,
      recordsStored: (await openSqliteOutbox(site.dataDir).read()).records.length,
    };
  } finally {
    await site.stop();
  }
};

const floodRun = async (): Promise<InquiryLoadFigures["flood"]> => {
  // The limit a deploy runs with unless its operator sets another (startSite raises it for the other runs).
  const defaults = readSettings(
    [settingsPart(["INQUIRY_RATE_LIMIT_REQUESTS", "INQUIRY_RATE_LIMIT_WINDOW_SECONDS"])],
    {},
  );
  const rateLimit = {
    requests: defaults.INQUIRY_RATE_LIMIT_REQUESTS,
    windowSeconds: defaults.INQUIRY_RATE_LIMIT_WINDOW_SECONDS,
  };
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
      recordsStored: (await openSqliteOutbox(site.dataDir).read()).records.length,
    };
  } finally {
    await site.stop();
  }
};

export const measureInquiryLoad = async (): Promise<InquiryLoadFigures> => {
  const concurrent = await concurrentRun();
  const refused = await refusedRun();
  const flood = await floodRun();
  return { concurrent, refused, flood };
};

export const printInquiryLoad = ({ concurrent, refused, flood }: InquiryLoadFigures) => {
  console.log(
    [
      `Inquiry load: ${concurrent.submissions} concurrent submissions in ${concurrent.seconds} s ` +
        `(${concurrent.requestsPerSecond} req/s), latency p50 ${concurrent.p50Ms} ms, p95 ${concurrent.p95Ms} ms, max ${concurrent.maxMs} ms`,
      `  ${concurrent.accepted} accepted; outbox ${concurrent.recordsStored} records, ` +
        `${concurrent.storedExactlyOnce} submissions stored exactly once, ${concurrent.uniqueReferences} unique references; ` +
        `${concurrent.emailDeliveries} emails and ${concurrent.webhookDeliveries} webhook calls, ` +
        `${concurrent.deliveredOnceBoth} inquiries delivered exactly once by both, all within ${concurrent.allDeliveredSeconds} s`,
      `Refused requests: 2 rounds of ${refused.requests} (${Object.entries(refused.statuses)
        .map(([status, count]) => `${count}× ${status}`)
        .join(", ")}): server memory held after a full collection ${refused.liveBeforeMb} → ` +
        `${refused.liveAfterFirstMb} → ${refused.liveAfterMb} MB ` +
        `(second round ${refused.liveGrowthMb >= 0 ? "+" : ""}${refused.liveGrowthMb} MB), ` +
        `RSS ${refused.rssBeforeMb} → ${refused.rssAfterFirstMb} → ${refused.rssAfterMb} MB, ` +
        `${refused.cpuMsPerRequest} ms CPU per request; GET / p50 during the burst ${refused.homeDuringBurstP50Ms} ms ` +
        `(${refused.homeDuringBurstSamples} samples); ${refused.recordsStored} stored`,
      `Rate limit flood: ${flood.submissions} from one client at ${flood.limit} per ${flood.windowSeconds} s: ` +
        `${flood.accepted} accepted, ${flood.refused} refused with 429 (Retry-After ${flood.retryAfterSeconds} s), ` +
        `${flood.recordsStored} stored`,
    ].join("\n"),
  );
};

if (require.main === module) {
  enterRunTempRoot("site-bench-");
  const reportPath = path.resolve(__dirname, "..", "reports", "inquiry-load.json");
  measureInquiryLoad()
    .then((figures) => {
      printInquiryLoad(figures);
      fs.mkdirSync(path.dirname(reportPath), { recursive: true });
      fs.writeFileSync(reportPath, `${JSON.stringify(figures, null, 2)}\n`);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
