/**
 * @jest-environment node
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Fastify, { type FastifyInstance } from "fastify";
import type { WorkerStatus } from "../server/inquiries/delivery/delivery-worker";
import { InquiryOutbox } from "../server/inquiries/store/sql-outbox";
import { openSqliteOutbox, openSqliteStore } from "../server/inquiries/store/sqlite";
import { createHealthCheck, type HealthAnswer } from "../server/health/health-check";
import { health } from "../server/health/plugin";
import { healthProbe, READING_MAX_AGE_MS, type HealthReading } from "../server/health/probe";
import type { DeployStatus, ListedRelease } from "../server/releases/release-store";
import { TEST_HEALTH_TOKEN as TOKEN } from "../testing/site-server";
import { heldRecord } from "./support/held-inquiries";
import { shifted } from "./support/test-clock";

/**
 * /healthz's core: the probe, reused for a second whatever the number of requests, and the answer, the status
 * to anyone and the details to the holder of the token; then the plugin, as Fastify serves it.
 */

/** The tests' clock: the first release starts at START, the held inquiry comes a day later, and it is now two after. */
const START = "2025-03-01T12:00:00.000Z";
const HELD_AT = shifted(START, { days: 1 });
const NOW = shifted(START, { days: 3 });

const bearer = (token: string) => `Bearer ${token}`;

/** The real store, counting the probe's writes; with `gate`, each write waits for it. */
class CountingOutbox extends InquiryOutbox {
  writes = 0;
  gate: Promise<void> | null = null;

  override async probe(): Promise<void> {
    this.writes += 1;
    await this.gate;
    return super.probe();
  }
}

const storeDir = () => mkdtempSync(path.join(tmpdir(), "health-"));

/** A data folder that is a file: no database can be made in it, as with a full disk. */
const unwritableDir = () => {
  const file = path.join(storeDir(), "not-a-folder");
  writeFileSync(file, "");
  return file;
};

const release = (overrides: Partial<ListedRelease>): ListedRelease => ({
  id: "20250301-120000-aaaaaaaaaaaa",
  commit: "a".repeat(40),
  branch: "main",
  startedAt: START,
  state: "good",
  live: true,
  ...overrides,
});

const good = release({});
/** No deploy runs, and the newest release is the live one. */
const settled: DeployStatus = { running: false, queued: null, live: good, last: good };
const failedAfter = release({
  id: "20250302-120000-bbbbbbbbbbbb",
  commit: "b".repeat(40),
  startedAt: shifted(START, { days: 1 }),
  finishedAt: shifted(START, { days: 1, minutes: 3 }),
  state: "failed",
  live: false,
  failedStep: "check",
  reason: "content/home.json: headline: this is not a headline\nand the rest of the build's output",
});

/** The deploys as the primary would tell them, counting the questions. */
const deploys = (status: DeployStatus) => {
  const asked = { count: 0 };
  const releases = {
    status: () => {
      asked.count += 1;
      return Promise.resolve(status);
    },
  };
  return { asked, releases };
};

const workerStatus: WorkerStatus = {
  lastPassAt: shifted(START, { days: 1 }),
  lastPassFailed: false,
  pending: 1,
  dead: 0,
  quarantined: 2,
  digests: { pending: 0, dead: 0 },
};

/** A clock the test moves. */
const manualClock = () => {
  const clock = { ms: 0, now: () => clock.ms };
  return clock;
};

describe("the probe", () => {
  it("writes to the store and asks for the deploys once however many ask within a second", async () => {
    const outbox = new CountingOutbox(openSqliteStore(storeDir()));
    const { asked, releases } = deploys(settled);
    const clock = manualClock();
    const read = healthProbe({ openOutbox: () => outbox, releases, clock: clock.now });
    const readings: HealthReading[] = [];
    for (let request = 0; request < 100; request += 1) {
      readings.push(await read());
      clock.ms += (READING_MAX_AGE_MS - 1) / 100;
    }
    expect([outbox.writes, asked.count]).toEqual([1, 1]);
    expect(new Set(readings).size).toBe(1);
    expect(readings[0]).toEqual({
      outboxWritable: true,
      deploys: settled,
    });
    clock.ms = READING_MAX_AGE_MS + 1;
    await read();
    expect([outbox.writes, asked.count]).toEqual([2, 2]);
  });

  it("shares one probe among the requests that come while it is under way, however long it takes", async () => {
    const outbox = new CountingOutbox(openSqliteStore(storeDir()));
    let open: () => void = () => undefined;
    outbox.gate = new Promise((resolve) => (open = resolve));
    const clock = manualClock();
    const read = healthProbe({ openOutbox: () => outbox, releases: null, clock: clock.now });
    const waiting = Array.from({ length: 50 }, () => read());
    // A slow store: the probe outlasts its second, and still no second probe starts.
    clock.ms = 5 * READING_MAX_AGE_MS;
    waiting.push(read());
    open();
    expect(await Promise.all(waiting)).toEqual(Array(51).fill({ outboxWritable: true, deploys: null }));
    expect(outbox.writes).toBe(1);
    // Its age counts from when it settled.
    clock.ms += READING_MAX_AGE_MS - 1;
    await read();
    expect(outbox.writes).toBe(1);
  });

  it("reads a store that cannot take a write as not writable", async () => {
    const read = healthProbe({ openOutbox: () => openSqliteOutbox(unwritableDir()), releases: null });
    expect(await read()).toEqual({ outboxWritable: false, deploys: null });
  });

  it("fails when the settings cannot be read, and reuses that failure for its second too", async () => {
    let opened = 0;
    const clock = manualClock();
    const read = healthProbe({
      openOutbox: () => {
        opened += 1;
        throw new Error("INQUIRY_OUTBOX must be sqlite or postgres, not file");
      },
      releases: null,
      clock: clock.now,
    });
    await expect(read()).rejects.toThrow(/INQUIRY_OUTBOX/);
    await expect(read()).rejects.toThrow(/INQUIRY_OUTBOX/);
    expect(opened).toBe(1);
    clock.ms = READING_MAX_AGE_MS;
    await expect(read()).rejects.toThrow(/INQUIRY_OUTBOX/);
    expect(opened).toBe(2);
  });
});

describe("the answer", () => {
  /** The answer of a server whose probe read `reading`, whose deploys are `current` now, and whose store is `dir`. */
  const check = (
    reading: HealthReading,
    {
      token = TOKEN,
      current = reading.deploys,
      dir = storeDir(),
    }: { token?: string | null; current?: DeployStatus | null; dir?: string } = {},
  ) =>
    createHealthCheck({
      reading: () => Promise.resolve(reading),
      openOutbox: () => openSqliteOutbox(dir),
      releases: current ? { status: () => Promise.resolve(current) } : null,
      delivery: () => workerStatus,
      served: good.id,
      token,
      now: () => new Date(NOW),
    });
  const healthy: HealthReading = {
    outboxWritable: true,
    deploys: settled,
  };

  it.each([
    ["no Authorization header", undefined],
    ["another token", bearer(`${TOKEN}x`)],
    ["a token of another length", bearer("short")],
    ["the token under another scheme", `Basic ${TOKEN}`],
    ["the token alone", TOKEN],
    ["the scheme alone", "Bearer "],
  ])("gives the status alone to a request with %s", async (_what, authorization) => {
    expect(await check(healthy)(authorization)).toEqual({ statusCode: 200, body: { status: "ok" } });
  });

  it("gives the status alone to everyone when no token is set", async () => {
    expect(await check(healthy, { token: null })(bearer(TOKEN))).toEqual({ statusCode: 200, body: { status: "ok" } });
  });

  it("says degraded, still 200, and 503 when the store cannot take a write, to anyone", async () => {
    const degraded = { ...healthy, deploys: { running: false, queued: null, live: good, last: failedAfter } };
    expect(await check(degraded)(undefined)).toEqual({
      statusCode: 200,
      body: { status: "degraded: the newest push failed to deploy" },
    });
    expect(await check({ ...degraded, outboxWritable: false })(undefined)).toEqual({
      statusCode: 503,
      body: { status: "outbox not writable" },
    });
    // A release the primary rolled back for failing in service says so.
    const rolledBack = { ...failedAfter, failedStep: "service" as const };
    expect(
      await check({ ...healthy, deploys: { running: false, queued: null, live: good, last: rolledBack } })(undefined),
    ).toEqual({
      statusCode: 200,
      body: { status: "degraded: the newest release failed in service and was rolled back" },
    });
  });

  it("gives the details to the holder of the token: delivery, the held inquiries and the releases", async () => {
    const dir = storeDir();
    await openSqliteOutbox(dir).add(heldRecord("CRS-7K4M-2Q9D", HELD_AT, "honeypot filled"));
    const current: DeployStatus = { running: true, queued: "c".repeat(40), live: good, last: failedAfter };
    const answer: HealthAnswer = await check(healthy, { current, dir })(`bearer  ${TOKEN} `);
    expect(answer).toEqual({
      statusCode: 200,
      body: {
        // The releases as they are now, not as the reading of this second had them.
        status: "degraded: the newest push failed to deploy",
        outboxWritable: true,
        delivery: workerStatus,
        held: { count: 1, oldestReceivedAt: HELD_AT, oldestAgeSeconds: 2 * 86_400 },
        site: {
          degraded: true,
          liveCommit: good.commit,
          liveRelease: good.id,
          servedRelease: good.id,
          deploying: true,
          queuedCommit: "c".repeat(40),
          lastDeploy: {
            commit: failedAfter.commit,
            state: "failed",
            finishedAt: failedAfter.finishedAt,
            failedStep: "check",
            reason: "content/home.json: headline: this is not a headline",
          },
        },
      },
    });
  });

  it("gives details without a site where there are no releases, and 503 with them too when the store cannot take a write", async () => {
    const answer = await check({ outboxWritable: false, deploys: null })(bearer(TOKEN));
    expect(answer.statusCode).toBe(503);
    expect(answer.body).toEqual({
      status: "outbox not writable",
      outboxWritable: false,
      delivery: workerStatus,
      held: { count: 0, oldestReceivedAt: null, oldestAgeSeconds: null },
    });
  });
});

describe("GET /healthz", () => {
  let app: FastifyInstance | null = null;
  afterEach(async () => {
    await app?.close();
    app = null;
  });

  const serve = async (outbox: InquiryOutbox, status: DeployStatus) => {
    const { asked, releases } = deploys(status);
    app = Fastify();
    await app.register(health, {
      openOutbox: () => outbox,
      worker: { status: () => workerStatus },
      releases,
      served: good.id,
      token: TOKEN,
      // Frozen: however slow the machine, the requests below come within one second.
      clock: () => 0,
    });
    const served = app;
    const get = (authorization?: string) =>
      served.inject({ method: "GET", url: "/healthz", headers: authorization ? { authorization } : {} });
    return { asked, get };
  };

  it("costs one write and one question for 100 requests, and gives each the status alone, never cached", async () => {
    const outbox = new CountingOutbox(openSqliteStore(storeDir()));
    const { asked, get } = await serve(outbox, settled);
    const answers = [
      ...(await Promise.all(Array.from({ length: 50 }, () => get()))),
      ...(await Promise.all(Array.from({ length: 50 }, () => get(bearer("a guess at the token"))))),
    ];
    expect([outbox.writes, asked.count]).toEqual([1, 1]);
    for (const answer of answers) {
      expect([answer.statusCode, answer.json(), answer.headers["cache-control"]]).toEqual([
        200,
        { status: "ok" },
        "no-store",
      ]);
    }
  });

  it("gives the details with the token, from the same probe", async () => {
    const outbox = new CountingOutbox(openSqliteStore(storeDir()));
    const { get } = await serve(outbox, settled);
    await get();
    const answer = await get(bearer(TOKEN));
    expect(outbox.writes).toBe(1);
    expect([answer.statusCode, answer.headers["cache-control"]]).toEqual([200, "no-store"]);
    expect(answer.json()).toMatchObject({
      status: "ok",
      outboxWritable: true,
      delivery: workerStatus,
      held: { count: 0 },
      site: { servedRelease: good.id, liveRelease: good.id, deploying: false, lastDeploy: { state: "good" } },
    });
  });

  it("answers 503 to anyone when the store cannot take a write", async () => {
    const { get } = await serve(new CountingOutbox(openSqliteStore(unwritableDir())), {
      running: false,
      queued: null,
      live: good,
      last: good,
    });
    const answer = await get();
    expect([answer.statusCode, answer.json(), answer.headers["cache-control"]]).toEqual([
      503,
      { status: "outbox not writable" },
      "no-store",
    ]);
  });
});
