// The single server with years of inquiries stored: the production server (server/main.ts, as
// `npm start` runs it) over an empty store and over one holding SCALE_DELIVERED delivered and
// SCALE_QUARANTINED quarantined inquiries (100,000 each by default), in the same run, on each engine the
// store runs on: SQLite in the data folder, and a local Postgres by INQUIRY_DATABASE_URL (Debian's, started
// for the run as the tests start it; `-- --engine sqlite` or `postgres` runs one alone). For each: how long the
// server takes to answer its first request, then 20 inquiries arriving 100 ms apart while a visitor
// requests GET / every 20 ms, until the worker has delivered all 20 to a webhook; GET /'s p95 meanwhile and
// the server's memory after; then 200 sent at once, and how many a second it stores and delivers. Each server runs under docs/deploy-server.md's unit's memory limit (512 MB, in a memory
// cgroup of its own where the machine allows: testing/memory-limit.ts), and must answer all 20 with 201,
// deliver them, have nothing killed for memory and still answer after. `npm run bench:scale` runs it against
// the existing build and judges the figures by budgets.json's inquiryScale.
import { readToolSetting } from "../testing/tool-settings";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { processUsage, startSite } from "../testing/site-server";
import { startWebhookReceiver } from "../testing/loopback-servers";
import type { DeliveryAttempt, OutboxRecord } from "../server/inquiries/store/outbox";
import { openPostgresStore } from "../server/inquiries/store/postgres";
import type { Engine } from "../server/inquiries/store/schema";
import { InquiryOutbox } from "../server/inquiries/store/sql-outbox";
import { DATABASE_FILE, openSqliteOutbox } from "../server/inquiries/store/sqlite";
import { onPostgres, startPostgres } from "../testing/postgres";
import { emptyInquiry } from "../src/inquiry/values";
import { memoryLimit } from "../testing/memory-limit";
import { p95AllowanceMs } from "./budgets";

export interface ScaleFigures {
  readonly engine: Engine;
  readonly stored: number;
  readonly databaseMb: number;
  /** From starting the process until it answered GET / (tsx compiling the server included). */
  readonly startupSeconds: number;
  readonly homeP95Ms: number;
  readonly homeSamples: number;
  readonly rssMb: number;
  readonly deliveredSeconds: number;
  /** THROUGHPUT_BATCH inquiries sent at once, over the seconds from sending them until the webhook had them all. */
  readonly deliveriesPerSecond: number;
  /** The memory limit it ran under (MEMORY_LIMIT_MB, docs/deploy-server.md's unit's 512 by default), and how it was held. */
  readonly memoryLimit: string;
  /** The most memory its cgroup was charged (null where the limit is not a cgroup's). */
  readonly peakMemoryMb: number | null;
  /** Processes of its cgroup killed for memory (null where the limit is not a cgroup's). */
  readonly oomKills: number | null;
  /** Whether it still answered GET / after the burst was delivered. */
  readonly aliveAfter: boolean;
}

const DELIVERED = readToolSetting("SCALE_DELIVERED");
const QUARANTINED = readToolSetting("SCALE_QUARANTINED");
const BURST = 20;
const BURST_GAP_MS = 100;
/** Inquiries sent at once after the burst, to read how many the server stores and delivers a second. */
const THROUGHPUT_BATCH = 200;
const HOME_EVERY_MS = 20;
const SEED_BATCH = 5_000;
/** docs/deploy-server.md's systemd unit gives the server MemoryMax=512M. */
const MEMORY_LIMIT_MB = readToolSetting("MEMORY_LIMIT_MB");

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

/** The store holds the history, written as the server would have (through the outbox). */
const seed = async (outbox: InquiryOutbox): Promise<void> => {
  let taken = 0;
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
    taken += (await outbox.absorb({ records, attempts })).inquiries;
  }
  for (let start = 0; start < QUARANTINED; start += SEED_BATCH) {
    const records = Array.from({ length: Math.min(SEED_BATCH, QUARANTINED - start) }, (_, offset) =>
      // Within the last 29 days: unreleased spam is kept 30.
      storedInquiry(start + offset, ((start + offset) % 29) + 0.5, true),
    );
    taken += (await outbox.absorb({ records })).inquiries;
  }
  if (taken !== DELIVERED + QUARANTINED)
    throw new Error(`the store took ${taken} of ${DELIVERED + QUARANTINED} inquiries`);
};

/** A store of the engine under test: the server's settings for it, an outbox on it, and its size. */
interface StoreUnderTest {
  readonly env: Record<string, string>;
  readonly outbox: InquiryOutbox;
  readonly sizeMb: () => Promise<number>;
  /** After the seeding: brings the store to the state its history would have left it in. */
  readonly settle: () => Promise<void>;
}

/** How the bench makes empty stores on an engine, and puts away what it started for them. */
interface EngineUnderTest {
  readonly store: (name: string) => Promise<StoreUnderTest>;
  readonly stop: () => Promise<void>;
}

const sqliteEngine = (root: string): EngineUnderTest => ({
  store: (name) => {
    const dir = path.join(root, name);
    const sizeMb = () =>
      Promise.resolve(
        fs
          .readdirSync(dir)
          .filter((file) => file.startsWith(DATABASE_FILE))
          .reduce((sum, file) => sum + fs.statSync(path.join(dir, file)).size, 0) /
          1024 /
          1024,
      );
    return Promise.resolve({
      env: { INQUIRY_DATA_DIR: dir },
      outbox: openSqliteOutbox(dir),
      sizeMb,
      settle: () => Promise.resolve(),
    });
  },
  stop: () => Promise.resolve(),
});

const postgresEngine = async (root: string): Promise<EngineUnderTest> => {
  // At the priority a database server of its own would have: the bench measures it.
  const server = await startPostgres({ niced: false });
  return {
    store: async (name) => {
      const url = await server.database();
      const outbox = new InquiryOutbox(openPostgresStore({ connectionString: url }));
      const sizeMb = async () => {
        const [size] = await onPostgres<{ bytes: string }>(url, "SELECT pg_database_size(current_database()) AS bytes");
        return Number(size?.bytes ?? 0) / 1024 / 1024;
      };
      // A store with years of history was vacuumed and analysed by autovacuum long before; one loaded a
      // moment ago was not, and autovacuum would do it in the middle of the measurement.
      const settle = async () => {
        await onPostgres(url, "VACUUM ANALYZE");
      };
      return {
        env: { INQUIRY_DATA_DIR: path.join(root, name), INQUIRY_OUTBOX: "postgres", INQUIRY_DATABASE_URL: url },
        outbox,
        sizeMb,
        settle,
      };
    },
    stop: () => server.stop(),
  };
};

const measure = async (engine: Engine, store: StoreUnderTest, stored: number): Promise<ScaleFigures> => {
  const hook = await startWebhookReceiver(204);
  const limit = memoryLimit(MEMORY_LIMIT_MB, `inquiry-scale-${engine}-${stored === 0 ? "empty" : "full"}`);
  const started = performance.now();
  const site = await startSite({
    env: { ...store.env, INQUIRY_WEBHOOK_URL: hook.url, ...limit.env },
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
    const send = (index: number) =>
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
      });
    const deliveredUpTo = async (count: number) => {
      const deadline = Date.now() + 60_000;
      while (hook.received.length < count && Date.now() < deadline) await sleep(20);
      if (hook.received.length !== count)
        throw new Error(`${hook.received.length} of ${count} inquiries were delivered`);
    };
    const burstStarted = performance.now();
    const posts: Promise<Response>[] = [];
    for (let index = 0; index < BURST; index += 1) {
      posts.push(send(index));
      await sleep(BURST_GAP_MS);
    }
    const statuses = await Promise.all(posts.map(async (post) => (await post).status));
    if (statuses.some((status) => status !== 201)) throw new Error(`the burst was answered ${statuses.join(", ")}`);
    await deliveredUpTo(BURST);
    const deliveredSeconds = (performance.now() - burstStarted) / 1000;
    visiting.on = false;
    await visitor;
    // Then as many as THROUGHPUT_BATCH at once, with nothing else asked of the server.
    const batchSent = performance.now();
    const batch = await Promise.all(
      Array.from({ length: THROUGHPUT_BATCH }, async (_, index) => (await send(BURST + index)).status),
    );
    if (batch.some((status) => status !== 201)) throw new Error(`the batch was answered ${batch.join(", ")}`);
    await deliveredUpTo(BURST + THROUGHPUT_BATCH);
    const deliveriesPerSecond = THROUGHPUT_BATCH / ((performance.now() - batchSent) / 1000);
    const aliveAfter = await fetch(site.url("/")).then(
      async (answer) => {
        await answer.arrayBuffer();
        return answer.status === 200;
      },
      () => false,
    );
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      engine,
      stored,
      databaseMb: await store.sizeMb(),
      startupSeconds,
      homeP95Ms: percentile(sorted, 0.95),
      homeSamples: sorted.length,
      rssMb: processUsage(site.pid).rssMb,
      deliveredSeconds,
      deliveriesPerSecond,
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
  const problems = [
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
  return problems.map((problem) => `${full.engine}: ${problem}`);
};

const row = (figures: ScaleFigures) =>
  `${figures.engine} ${figures.stored === 0 ? "empty" : "full "}: ${figures.stored.toLocaleString("en")} stored (${figures.databaseMb.toFixed(0)} MB): start-up ${figures.startupSeconds.toFixed(2)} s, ` +
  `GET / p95 ${figures.homeP95Ms.toFixed(1)} ms (${figures.homeSamples} requests), RSS ${figures.rssMb.toFixed(0)} MB, ` +
  `20 delivered in ${figures.deliveredSeconds.toFixed(2)} s, ${THROUGHPUT_BATCH} at once at ${figures.deliveriesPerSecond.toFixed(0)} a second; under ${figures.memoryLimit}: ` +
  `peak ${figures.peakMemoryMb === null ? "not read" : `${figures.peakMemoryMb.toFixed(0)} MB`}, ` +
  `${figures.oomKills ?? "no count of"} killed for memory, ${figures.aliveAfter ? "answering after" : "NOT answering after"}`;

/** The engines `--engine <name>` names, or both. */
const enginesAsked = (args: readonly string[]): Engine[] => {
  const at = args.indexOf("--engine");
  if (at < 0) return ["sqlite", "postgres"];
  const named = args[at + 1];
  if (named !== "sqlite" && named !== "postgres") throw new Error("--engine takes sqlite or postgres");
  return [named];
};

/** Both stores of one engine measured, the full one seeded first; empty and full alternate in the same run. */
const measureEngine = async (engine: Engine, root: string): Promise<{ empty: ScaleFigures; full: ScaleFigures }> => {
  const opened =
    engine === "sqlite" ? sqliteEngine(path.join(root, engine)) : await postgresEngine(path.join(root, engine));
  try {
    const emptyStore = await opened.store("empty");
    const fullStore = await opened.store("full");
    const seeding = performance.now();
    await seed(fullStore.outbox);
    // The server opens the stores itself; the bench's own connections would only be in its way.
    await Promise.all([emptyStore.outbox.close(), fullStore.outbox.close()]);
    await fullStore.settle();
    console.log(
      `${engine}: seeded ${DELIVERED + QUARANTINED} inquiries in ${((performance.now() - seeding) / 1000).toFixed(1)} s.`,
    );
    const empty = await measure(engine, emptyStore, 0);
    const full = await measure(engine, fullStore, DELIVERED + QUARANTINED);
    console.log(row(empty));
    console.log(row(full));
    return { empty, full };
  } finally {
    await opened.stop();
  }
};

const main = async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "inquiry-scale-"));
  try {
    const budgets = JSON.parse(fs.readFileSync(path.resolve(__dirname, "../budgets.json"), "utf8")) as {
      inquiryScale: ScaleBudget;
    };
    const report: Partial<Record<Engine, { empty: ScaleFigures; full: ScaleFigures }>> = {};
    const problems: string[] = [];
    for (const engine of enginesAsked(process.argv.slice(2))) {
      const { empty, full } = await measureEngine(engine, root);
      report[engine] = { empty, full };
      problems.push(...overBudget(empty, full, budgets.inquiryScale));
    }
    fs.mkdirSync(path.resolve(__dirname, "../reports"), { recursive: true });
    fs.writeFileSync(
      path.resolve(__dirname, "../reports/inquiry-scale.json"),
      `${JSON.stringify({ ...report, problems }, null, 2)}\n`,
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
