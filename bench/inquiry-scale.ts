// The single server with years of inquiries stored: the production server (server/main.ts, as
// `npm start` runs it) over an empty outbox and over one holding SCALE_DELIVERED delivered and
// SCALE_QUARANTINED quarantined inquiries (100,000 each by default), in the same run. For each: how long the
// server takes to answer its first request, then 20 inquiries arriving 100 ms apart while a visitor
// requests GET / every 20 ms, until the worker has delivered all 20 to a webhook; GET /'s p95 meanwhile and
// the server's memory after. Each server runs under docs/deploy-server.md's unit's memory limit (512 MB, in a memory
// cgroup of its own where the machine allows: testing/memory-limit.ts), and must answer all 20 with 201,
// deliver them, have nothing killed for memory and still answer after. `npm run bench:scale` runs it against
// the existing build and judges the figures by budgets.json's inquiryScale.
import { readSetting } from "../server/settings/catalog";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { processUsage, startSite } from "../testing/site-server";
import { startWebhookReceiver } from "../testing/loopback-servers";
import type { DeliveryAttempt, OutboxRecord } from "../server/inquiries/outbox";
import { openSqliteOutbox } from "../server/inquiries/store/sqlite";
import { emptyInquiry } from "../src/inquiry/values";
import { memoryLimit } from "../testing/memory-limit";
import { p95AllowanceMs } from "./budgets";

export interface ScaleFigures {
  readonly stored: number;
  readonly databaseMb: number;
  /** From starting the process until it answered GET / (tsx compiling the server included). */
  readonly startupSeconds: number;
  readonly homeP95Ms: number;
  readonly homeSamples: number;
  readonly rssMb: number;
  readonly deliveredSeconds: number;
  /** The memory limit it ran under (MEMORY_LIMIT_MB, docs/deploy-server.md's unit's 512 by default), and how it was held. */
  readonly memoryLimit: string;
  /** The most memory its cgroup was charged (null where the limit is not a cgroup's). */
  readonly peakMemoryMb: number | null;
  /** Processes of its cgroup killed for memory (null where the limit is not a cgroup's). */
  readonly oomKills: number | null;
  /** Whether it still answered GET / after the burst was delivered. */
  readonly aliveAfter: boolean;
}

const DELIVERED = readSetting("SCALE_DELIVERED");
const QUARANTINED = readSetting("SCALE_QUARANTINED");
const BURST = 20;
const BURST_GAP_MS = 100;
const HOME_EVERY_MS = 20;
const SEED_BATCH = 5_000;
/** docs/deploy-server.md's systemd unit gives the server MemoryMax=512M. */
const MEMORY_LIMIT_MB = readSetting("MEMORY_LIMIT_MB");

const percentile = (sorted: readonly number[], share: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? 0;

/** An inquiry like those the form sends, received `daysAgo` days before now. */
const storedInquiry = (index: number, daysAgo: number, quarantined: boolean): OutboxRecord => {
  const message = `We need ${index % 90} duty shirts and ${index % 40} jackets before the spring academy; please quote delivery to our county office.`;
  return {
    reference: `SCL-${quarantined ? "Q" : "D"}${String(index).padStart(7, "0")}`,
    receivedAt: new Date(Date.now() - daysAgo * 86_400_000).toISOString(),
    transports: ["webhook"],
    subject: `Website inquiry SCL-${index}: General question`,
    replyTo: { address: `buyer${index % 5_000}@county${index % 97}.example.gov` },
    fields: [
      { name: "fullName", label: "Full name", value: `Buyer ${index}` },
      { name: "organization", label: "Agency or organization", value: `County ${index % 97} Sheriff's Office` },
      { name: "email", label: "Email", value: `buyer${index % 5_000}@county${index % 97}.example.gov` },
      { name: "message", label: "Message", value: message },
    ],
    values: { ...emptyInquiry("general"), fullName: `Buyer ${index}`, message },
    idempotencyKey: `scale-key-${quarantined ? "q" : "d"}-${index}`,
    ...(quarantined ? { quarantine: { reason: "sent too fast" } } : {}),
  };
};

/** A data folder whose database holds the history, written as the server would have (through the outbox). */
const seed = async (dir: string): Promise<void> => {
  const outbox = openSqliteOutbox(dir);
  for (let start = 0; start < DELIVERED; start += SEED_BATCH) {
    const records = Array.from({ length: Math.min(SEED_BATCH, DELIVERED - start) }, (_, offset) =>
      // Spread over the last 23 months: nothing is past its retention, so the server keeps all of it.
      storedInquiry(start + offset, ((start + offset) % 690) + 1, false),
    );
    const attempts: DeliveryAttempt[] = records.map((record) => ({
      reference: record.reference,
      transport: "webhook",
      ok: true,
      at: record.receivedAt,
    }));
    await outbox.absorb({ records, attempts });
  }
  for (let start = 0; start < QUARANTINED; start += SEED_BATCH) {
    const records = Array.from({ length: Math.min(SEED_BATCH, QUARANTINED - start) }, (_, offset) =>
      // Within the last 29 days: unreleased spam is kept 30.
      storedInquiry(start + offset, ((start + offset) % 29) + 0.5, true),
    );
    await outbox.absorb({ records });
  }
};

const measure = async (dir: string, stored: number): Promise<ScaleFigures> => {
  const hook = await startWebhookReceiver(204);
  const limit = memoryLimit(MEMORY_LIMIT_MB, stored === 0 ? "inquiry-scale-empty" : "inquiry-scale-full");
  const started = performance.now();
  const site = await startSite({
    env: { INQUIRY_DATA_DIR: dir, INQUIRY_WEBHOOK_URL: hook.url, ...limit.env },
    launcher: limit.launcher,
  }).catch((error: unknown) => {
    limit.remove();
    throw error;
  });
  const startupSeconds = (performance.now() - started) / 1000;
  try {
    // Warm up the page and the endpoint's code paths (a quarantined post is never delivered).
    for (let index = 0; index < 20; index += 1) await (await fetch(site.url("/"))).arrayBuffer();
    const latencies: number[] = [];
    // An object, so that the loop sees the change made after it started.
    const visiting = { on: true };
    const visitor = (async () => {
      while (visiting.on) {
        const sent = performance.now();
        await (await fetch(site.url("/"))).arrayBuffer();
        latencies.push(performance.now() - sent);
        await sleep(Math.max(0, HOME_EVERY_MS - (performance.now() - sent)));
      }
    })();
    const burstStarted = performance.now();
    const posts: Promise<Response>[] = [];
    for (let index = 0; index < BURST; index += 1) {
      posts.push(
        fetch(site.url("/api/inquiry"), {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({
            fullName: `Scale Buyer ${index}`,
            email: `scale${index}@bench.example.gov`,
            inquiryType: "general",
            message: `Scale bench inquiry ${index}, arriving while years of others are stored.`,
            fill_ms: 20_000,
          }),
        }),
      );
      await sleep(BURST_GAP_MS);
    }
    const statuses = await Promise.all(posts.map(async (post) => (await post).status));
    if (statuses.some((status) => status !== 201)) throw new Error(`the burst was answered ${statuses.join(", ")}`);
    const deadline = Date.now() + 60_000;
    while (hook.received.length < BURST && Date.now() < deadline) await sleep(20);
    if (hook.received.length !== BURST) throw new Error(`${hook.received.length} of ${BURST} inquiries were delivered`);
    const deliveredSeconds = (performance.now() - burstStarted) / 1000;
    visiting.on = false;
    await visitor;
    const aliveAfter = await fetch(site.url("/")).then(
      async (answer) => {
        await answer.arrayBuffer();
        return answer.status === 200;
      },
      () => false,
    );
    const sorted = [...latencies].sort((a, b) => a - b);
    const databaseBytes = fs
      .readdirSync(dir)
      .filter((name) => name.startsWith("inquiries.sqlite"))
      .reduce((sum, name) => sum + fs.statSync(path.join(dir, name)).size, 0);
    return {
      stored,
      databaseMb: databaseBytes / 1024 / 1024,
      startupSeconds,
      homeP95Ms: percentile(sorted, 0.95),
      homeSamples: sorted.length,
      rssMb: processUsage(site.pid).rssMb,
      deliveredSeconds,
      memoryLimit: `${MEMORY_LIMIT_MB} MB, ${limit.how}`,
      peakMemoryMb: limit.peakMb(),
      oomKills: limit.oomKills(),
      aliveAfter,
    };
  } finally {
    await site.stop();
    await hook.close();
    limit.remove();
  }
};

export interface ScaleBudget {
  /** GET /'s p95 during the burst, as a multiple of the empty store's. */
  readonly homeP95Ratio: number;
  /** A floor for that allowance in ms: on a 2-core machine a p95 of a few ms doubles on a scheduler hiccup. */
  readonly homeP95FloorMs: number;
  readonly extraMemoryMb: number;
  /** How much longer than the empty store's the full store's start may take. */
  readonly startupSeconds: number;
}

/** What breaks the budget, in words; empty when nothing does. */
export const overBudget = (empty: ScaleFigures, full: ScaleFigures, budget: ScaleBudget): string[] => {
  const allowedP95 = p95AllowanceMs(empty.homeP95Ms, budget.homeP95Ratio, budget.homeP95FloorMs);
  return [
    // Under the memory limit: no process killed for memory, the server still answering, and (where only
    // V8's heap is limited) its RSS within the limit.
    ...[empty, full].flatMap((figures) => [
      ...(figures.aliveAfter ? [] : [`${figures.stored} stored: the server did not answer GET / after the burst`]),
      ...((figures.oomKills ?? 0) > 0
        ? [`${figures.stored} stored: ${figures.oomKills} process(es) killed for memory`]
        : []),
      ...(figures.peakMemoryMb === null && figures.rssMb > MEMORY_LIMIT_MB
        ? [`${figures.stored} stored: RSS ${figures.rssMb.toFixed(0)} MB over the ${MEMORY_LIMIT_MB} MB limit`]
        : []),
    ]),
    ...(full.homeP95Ms > allowedP95 ? [`GET / p95 ${full.homeP95Ms.toFixed(1)} ms > ${allowedP95.toFixed(1)} ms`] : []),
    ...(full.rssMb - empty.rssMb > budget.extraMemoryMb
      ? [`memory ${(full.rssMb - empty.rssMb).toFixed(1)} MB above the empty store's > ${budget.extraMemoryMb} MB`]
      : []),
    // What the stored inquiries add to the start, over the empty store's in the same run: the server's own
    // start (tsx compiling it, the first request) is not the store's, and read 1.1 to 2.0 s alone here.
    ...(full.startupSeconds - empty.startupSeconds > budget.startupSeconds
      ? [
          `start-up ${full.startupSeconds.toFixed(2)} s, ${(full.startupSeconds - empty.startupSeconds).toFixed(2)} s more than the empty store's > ${budget.startupSeconds} s`,
        ]
      : []),
  ];
};

const row = (figures: ScaleFigures) =>
  `${figures.stored.toLocaleString("en")} stored (${figures.databaseMb.toFixed(0)} MB): start-up ${figures.startupSeconds.toFixed(2)} s, ` +
  `GET / p95 ${figures.homeP95Ms.toFixed(1)} ms (${figures.homeSamples} requests), RSS ${figures.rssMb.toFixed(0)} MB, ` +
  `20 delivered in ${figures.deliveredSeconds.toFixed(2)} s; under ${figures.memoryLimit}: ` +
  `peak ${figures.peakMemoryMb === null ? "not read" : `${figures.peakMemoryMb.toFixed(0)} MB`}, ` +
  `${figures.oomKills ?? "no count of"} killed for memory, ${figures.aliveAfter ? "answering after" : "NOT answering after"}`;

const main = async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "inquiry-scale-"));
  try {
    const emptyDir = path.join(root, "empty");
    const fullDir = path.join(root, "full");
    const seeding = performance.now();
    await seed(fullDir);
    console.log(
      `Seeded ${DELIVERED + QUARANTINED} inquiries in ${((performance.now() - seeding) / 1000).toFixed(1)} s.`,
    );
    // Alternated, so that a slow spell of the machine falls on both.
    const empty = await measure(emptyDir, 0);
    const full = await measure(fullDir, DELIVERED + QUARANTINED);
    console.log(`empty: ${row(empty)}`);
    console.log(`full:  ${row(full)}`);
    const budgets = JSON.parse(fs.readFileSync(path.resolve(__dirname, "../budgets.json"), "utf8")) as {
      inquiryScale: ScaleBudget;
    };
    const problems = overBudget(empty, full, budgets.inquiryScale);
    fs.mkdirSync(path.resolve(__dirname, "../reports"), { recursive: true });
    fs.writeFileSync(
      path.resolve(__dirname, "../reports/inquiry-scale.json"),
      `${JSON.stringify({ empty, full, problems }, null, 2)}\n`,
    );
    for (const problem of problems) console.error(`Over budget: ${problem}`);
    process.exitCode = problems.length > 0 ? 1 : 0;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
};

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
