/**
 * @jest-environment node
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { readInquiryConfig, type DeliveryPolicy, type InquiryConfig } from "../server/inquiries/config";
import { readInquiryContent } from "../server/inquiries/content-on-disk";
import { backoffMs } from "../server/inquiries/delivery/deliver";
import { DeliveryWorker } from "../server/inquiries/delivery/delivery-worker";
import type { OutboxRecord } from "../server/inquiries/store/outbox";
import type { InquiryOutbox } from "../server/inquiries/store/sql-outbox";
import { openSqliteOutbox } from "../server/inquiries/store/sqlite";
import { startMailServer } from "../testing/loopback-servers";
import { checkPagedListing, checkPersonalDataCommands, type InquiriesCommand } from "./support/inquiries-command";
import { runInquiries, sampleRecord } from "./support/outbox-fixtures";
import { SQL_POSTGRES, SQL_SQLITE, useSqlStores } from "./support/sql-stores";
import { shifted, type Offset } from "./support/test-clock";
import { lineLog } from "../server/inquiries/operational-log";
import { keepInquiry } from "../server/inquiries/privacy/requests";

const content = readInquiryContent(path.resolve("content"));

const record = sampleRecord;
/** The tests' clock starts when the sample records arrive. */
const START = record("CRS-TIME-0000").receivedAt;
/** The instant `offset` from START (before it, where negative). */
const at = (offset: Offset) => shifted(START, offset);

interface HeldRequest {
  readonly reference: string;
  readonly answer: (status: number) => void;
}

/**
 * A webhook receiver the test steers: each request waits until `policy` says how to answer it
 * (a status, or null to hold it until the test answers it). Counts requests in flight at once.
 */
const startReceiver = async (policy: (reference: string, index: number) => number | null = () => 204) => {
  const received: string[] = [];
  const held: HeldRequest[] = [];
  const aborted: string[] = [];
  const state = { inFlight: 0, maxInFlight: 0 };
  const server = http.createServer((req, res) => {
    const reference = String(req.headers["x-inquiry-reference"]);
    const index = received.length;
    received.push(reference);
    state.inFlight += 1;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    let done = false;
    const answer = (status: number) => {
      if (done) return;
      done = true;
      state.inFlight -= 1;
      res.statusCode = status;
      res.end();
    };
    res.on("close", () => {
      if (!done) {
        done = true;
        state.inFlight -= 1;
        aborted.push(reference);
      }
    });
    req.resume();
    req.on("end", () => {
      const status = policy(reference, index);
      if (status === null) held.push({ reference, answer });
      else answer(status);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    held,
    aborted,
    state,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

const waitUntil = async (condition: () => boolean, what: string, timeoutMs = 4_000) => {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > timeoutMs) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

let dir: string;
let logs: string[];
let receiver: Receiver | null;
let worker: DeliveryWorker | null;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "delivery-worker-"));
  logs = [];
  receiver = null;
  worker = null;
});
afterEach(async () => {
  // The receiver first: it ends any call a failed test left held, so the worker's pass can end.
  await receiver?.close();
  await worker?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const configWith = (env: NodeJS.ProcessEnv, delivery: Partial<DeliveryPolicy> = {}): (() => InquiryConfig) => {
  const base = readInquiryConfig(content.form.delivery, { INQUIRY_DATA_DIR: dir, ...env });
  const config = { ...base, delivery: { ...base.delivery, ...delivery } };
  return () => config;
};

/** Each store the worker delivers from: the single server's, and the SQL store on each engine. */
const sqlStores = useSqlStores();
type Store = InquiryOutbox;
const kinds: [string, () => Store][] = [
  [SQL_SQLITE, () => sqlStores.outbox(SQL_SQLITE, dir)],
  [SQL_POSTGRES, () => sqlStores.outbox(SQL_POSTGRES, dir)],
];
/** The running suite's store, opened afresh as another process would open it: the single server's outside those suites. */
const singleServers = () => openSqliteOutbox(dir);
let open: () => Store = singleServers;

/** A worker on a clock the test moves; each pass runs when the test notifies it. */
const startWorker = (config: () => InquiryConfig, clock: { now: Date }, outbox: InquiryOutbox = open()) => {
  worker = new DeliveryWorker({
    outbox,
    config,
    // Each line with its level: `warn CRS-… webhook failed`.
    log: lineLog((line, level) => logs.push(`${level} ${line}`)),
    now: () => clock.now,
  });
  worker.start();
  return worker;
};

const pass = async (running: DeliveryWorker) => {
  running.notify();
  await running.idle();
};

const entryOf = async (reference: string, maxAttempts: number) =>
  (await open().entries(maxAttempts)).find((entry) => entry.record.reference === reference);

const seconds = (clock: { now: Date }, count: number) => {
  clock.now = new Date(clock.now.getTime() + count * 1000);
};

describe.each(kinds)("DeliveryWorker on the %s store", (kind, openKind) => {
  sqlStores.databasePerTest(kind);
  beforeEach(() => {
    open = openKind;
  });
  afterEach(() => {
    open = singleServers;
  });

  it("retries a failed webhook after its backoff, not before, and delivers it once", async () => {
    const clock = { now: new Date(START) };
    let status = 500;
    receiver = await startReceiver(() => status);
    await open().add(record("CRS-RTRY-0001"));
    const running = startWorker(configWith({ INQUIRY_WEBHOOK_URL: receiver.url }), clock);
    await running.idle();
    expect(receiver.received).toEqual(["CRS-RTRY-0001"]);

    // First delay 60 s (content), with jitter in [0.5, 1]: due 30 to 60 s after the failure.
    const failed = await entryOf("CRS-RTRY-0001", 8);
    expect(failed?.state).toBe("pending");
    const dueIn = Date.parse(failed?.dueAt ?? "") - clock.now.getTime();
    expect(dueIn).toBeGreaterThanOrEqual(30_000);
    expect(dueIn).toBeLessThanOrEqual(60_000);

    seconds(clock, 29);
    await pass(running);
    expect(receiver.received).toHaveLength(1);

    status = 204;
    clock.now = new Date(Date.parse(failed?.dueAt ?? ""));
    await pass(running);
    expect(receiver.received).toEqual(["CRS-RTRY-0001", "CRS-RTRY-0001"]);
    expect((await entryOf("CRS-RTRY-0001", 8))?.state).toBe("delivered");

    seconds(clock, 3600);
    await pass(running);
    expect(receiver.received).toHaveLength(2);
    // The failure, to be tried again, at warn; the delivery at info.
    expect(logs.filter((line) => line.includes("CRS-RTRY-0001")).map((line) => line.replace(/ .*/, ""))).toEqual([
      "warn",
      "info",
    ]);
  });

  it("sets an inquiry aside as dead after the last allowed attempt and does not try it again", async () => {
    const clock = { now: new Date(START) };
    receiver = await startReceiver(() => 503);
    await open().add(record("CRS-DEAD-0001"));
    const running = startWorker(configWith({ INQUIRY_WEBHOOK_URL: receiver.url, INQUIRY_MAX_ATTEMPTS: "3" }), clock);
    await running.idle();
    for (let hour = 0; hour < 5; hour += 1) {
      seconds(clock, 7200);
      await pass(running);
    }
    expect(receiver.received).toHaveLength(3);
    const entry = await entryOf("CRS-DEAD-0001", 3);
    expect([entry?.state, entry?.deliveries, entry?.dueAt]).toEqual(["dead", { webhook: "dead" }, null]);
    expect(running.status()).toMatchObject({ dead: 1, pending: 0 });
  });

  it("does not try a dead transport again while another transport of the same inquiry is still due", async () => {
    const clock = { now: new Date(at({ hours: 2 })) };
    const mail = await startMailServer();
    receiver = await startReceiver(() => 204);
    const outbox = open();
    await outbox.add(record("CRS-HALF-0001", ["email", "webhook"]));
    for (const when of [START, at({ minutes: 1 })]) {
      await outbox.recordAttempt({
        reference: "CRS-HALF-0001",
        transport: "email",
        ok: false,
        at: when,
        retryAt: when,
      });
    }
    await outbox.recordAttempt({
      reference: "CRS-HALF-0001",
      transport: "webhook",
      ok: false,
      at: START,
      retryAt: at({ minutes: 2 }),
    });
    try {
      const config = configWith({
        INQUIRY_MAX_ATTEMPTS: "2",
        INQUIRY_WEBHOOK_URL: receiver.url,
        SMTP_URL: mail.url,
        SMTP_ALLOW_PLAIN: "1",
        INQUIRY_TO: "sales@example.com",
        INQUIRY_FROM: "website@example.com",
      });
      const running = startWorker(config, clock);
      await running.idle();
      expect(receiver.received).toEqual(["CRS-HALF-0001"]);
      // Two attempts were allowed and made: the mail server must not hear about it from the worker.
      expect(mail.received).toHaveLength(0);
      const entry = await entryOf("CRS-HALF-0001", 2);
      expect([entry?.state, entry?.deliveries, entry?.attemptsByTransport]).toEqual([
        "dead",
        { email: "dead", webhook: "delivered" },
        { email: 2, webhook: 2 },
      ]);
    } finally {
      await mail.close();
    }
  });

  it("has at most the configured number of deliveries under way at once", async () => {
    const clock = { now: new Date(START) };
    receiver = await startReceiver(() => null);
    const outbox = open();
    const references = Array.from({ length: 6 }, (_, index) => `CRS-CONC-000${index}`);
    for (const reference of references) await outbox.add(record(reference));
    startWorker(configWith({ INQUIRY_WEBHOOK_URL: receiver.url }, { concurrency: 2 }), clock);
    const current = receiver;
    let answered = 0;
    while (answered < references.length) {
      const expected = Math.min(2, references.length - answered);
      await waitUntil(() => current.held.length === expected, `${expected} deliveries are under way`);
      // Time for a third to arrive, if the bound did not hold.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(current.state.inFlight).toBe(expected);
      for (const request of current.held.splice(0)) {
        request.answer(204);
        answered += 1;
      }
    }
    await worker?.idle();
    expect(current.state.maxInFlight).toBe(2);
    expect([...current.received].sort()).toEqual(references);
    const entries = await outbox.entries(8);
    expect(entries.map((entry) => entry.state)).toEqual(references.map(() => "delivered"));
  });

  it("when stopped, finishes the deliveries under way and starts no more", async () => {
    const clock = { now: new Date(START) };
    receiver = await startReceiver(() => null);
    const outbox = open();
    const references = ["CRS-STOP-0001", "CRS-STOP-0002", "CRS-STOP-0003", "CRS-STOP-0004"];
    for (const reference of references) await outbox.add(record(reference));
    const current = receiver;
    const running = startWorker(configWith({ INQUIRY_WEBHOOK_URL: receiver.url }, { concurrency: 1 }), clock);
    await waitUntil(() => current.held.length === 1, "the first delivery is under way");
    const stopped = running.stop();
    current.held[0]?.answer(204);
    await stopped;
    expect(current.received).toEqual(["CRS-STOP-0001"]);
    const states = (await outbox.entries(8)).map((entry) => entry.state);
    expect(states).toEqual(["delivered", "pending", "pending", "pending"]);
  });

  it("cuts a webhook call that hangs at the attempt deadline and records the failure", async () => {
    const clock = { now: new Date(START) };
    receiver = await startReceiver(() => null);
    await open().add(record("CRS-HANG-0001"));
    const running = startWorker(configWith({ INQUIRY_WEBHOOK_URL: receiver.url }, { attemptTimeoutMs: 300 }), clock);
    await running.idle();
    const current = receiver;
    await waitUntil(() => current.aborted.length === 1, "the receiver sees the call given up");
    const entry = await entryOf("CRS-HANG-0001", 8);
    expect([entry?.state, entry?.deliveries]).toEqual(["pending", { webhook: "failed" }]);
    const { attempts } = await open().read();
    expect(attempts.map((attempt) => [attempt.ok, typeof attempt.detail])).toEqual([[false, "string"]]);
  });

  it("cuts an SMTP server that never greets at the attempt deadline", async () => {
    const clock = { now: new Date(START) };
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      await open().add(record("CRS-HANG-0002", ["email"]));
      const { port } = silent.address() as net.AddressInfo;
      const config = configWith(
        {
          SMTP_URL: `smtp://127.0.0.1:${port}`,
          SMTP_ALLOW_PLAIN: "1",
          INQUIRY_TO: "sales@example.com",
          INQUIRY_FROM: "website@example.com",
        },
        { attemptTimeoutMs: 300 },
      );
      const running = startWorker(config, clock);
      await running.idle();
      expect(sockets.length).toBeGreaterThanOrEqual(1);
      const entry = await entryOf("CRS-HANG-0002", 8);
      expect([entry?.state, entry?.deliveries]).toEqual(["pending", { email: "failed" }]);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it("delivers through a transport set up right while another's setting is wrong, which stays pending", async () => {
    const clock = { now: new Date(START) };
    receiver = await startReceiver();
    await open().add(record("CRS-HALF-0001", ["email", "webhook"]));
    const env = {
      SMTP_URL: "https://mail.example.com",
      INQUIRY_TO: "sales@example.com",
      INQUIRY_FROM: "website@example.com",
      INQUIRY_WEBHOOK_URL: receiver.url,
    };
    const running = startWorker(configWith(env), clock);
    await running.idle();
    expect(receiver.received).toEqual(["CRS-HALF-0001"]);
    const entry = await entryOf("CRS-HALF-0001", 8);
    expect([entry?.state, entry?.deliveries]).toEqual(["pending", { email: "failed", webhook: "delivered" }]);
    expect(logs.filter((line) => line.includes("CRS-HALF-0001")).join("\n")).toContain(
      "settings: SMTP_URL must be an smtp:// or smtps:// URL",
    );
  });

  it("refuses SMTP without STARTTLS unless plain SMTP is allowed", async () => {
    const clock = { now: new Date(START) };
    const mail = await startMailServer();
    try {
      const env = { SMTP_URL: mail.url, INQUIRY_TO: "sales@example.com", INQUIRY_FROM: "website@example.com" };
      await open().add(record("CRS-TLS0-0001", ["email"]));
      const strict = startWorker(configWith(env), clock);
      await strict.idle();
      await strict.stop();
      expect(mail.received).toHaveLength(0);
      expect((await entryOf("CRS-TLS0-0001", 8))?.deliveries).toEqual({ email: "failed" });

      seconds(clock, 3600);
      const relaxed = startWorker(configWith({ ...env, SMTP_ALLOW_PLAIN: "1" }), clock);
      await relaxed.idle();
      expect(mail.received).toHaveLength(1);
      expect((await entryOf("CRS-TLS0-0001", 8))?.state).toBe("delivered");
    } finally {
      await mail.close();
    }
  });

  it("waits for every delivery under way before it lets go of the lock, even when recording one fails", async () => {
    const clock = { now: new Date(START) };
    const outbox = open();
    await outbox.add(record("CRS-DISK-0001"));
    await outbox.add(record("CRS-DISK-0002"));
    // The first outcome cannot be written to the deliveries log: the disk is full.
    const recording = jest
      .spyOn(outbox, "recordAttempt")
      .mockRejectedValueOnce(Object.assign(new Error("no space left on device"), { code: "ENOSPC" }));
    try {
      receiver = await startReceiver(() => null);
      const current = receiver;
      const running = startWorker(configWith({ INQUIRY_WEBHOOK_URL: receiver.url }), clock, outbox);
      await waitUntil(() => current.held.length === 2, "both deliveries are under way");
      current.held[0]?.answer(204);
      setTimeout(() => current.held[1]?.answer(204), 300);
      await running.idle();
      // Had the pass ended with the first failure, the second delivery would still be going on
      // outside the lock, where a --retry run could deliver the same inquiry at the same time.
      expect(current.state.inFlight).toBe(0);
      expect(logs.join("\n")).toMatch(/^error delivery pass failed: ENOSPC/m);
    } finally {
      recording.mockRestore();
    }
  });

  it("delivers the backlog stored while no transport was configured once one is, exactly once", async () => {
    const clock = { now: new Date(START) };
    const references = ["CRS-BACK-0001", "CRS-BACK-0002", "CRS-BACK-0003"];
    // Accepted while the server had no transport: stored, delivered by nobody.
    for (const reference of references) await open().add(record(reference, []));
    const idle = startWorker(configWith({}), clock);
    await pass(idle);
    expect((await entryOf("CRS-BACK-0001", 8))?.state).toBe("stored");
    await idle.stop();

    // Started again with a webhook configured.
    receiver = await startReceiver(() => 204);
    const running = startWorker(configWith({ INQUIRY_WEBHOOK_URL: receiver.url }), clock);
    await running.idle();
    expect([...receiver.received].sort()).toEqual(references);
    seconds(clock, 3600);
    await pass(running);
    expect(receiver.received).toHaveLength(3);
    for (const reference of references) {
      const entry = await entryOf(reference, 8);
      expect([entry?.state, entry?.deliveries]).toEqual(["delivered", { webhook: "delivered" }]);
    }
  });

  it("removes what is past its retention once a day: old inquiries and unreleased spam, never a kept one", async () => {
    const clock = { now: new Date(START) };
    const outbox = open();
    const stored = async (
      reference: string,
      receivedAt: string,
      address: string,
      extra: Partial<OutboxRecord> = {},
    ) => {
      await outbox.add({ ...record(reference), receivedAt, replyTo: { address }, ...extra });
      if (!extra.quarantine) {
        await outbox.recordAttempt({ reference, transport: "webhook", ok: true, at: receivedAt });
      }
    };
    const spam = { quarantine: { reason: "honeypot filled" } };
    await stored("CRS-OLD0-0001", at({ months: -24, days: -21, hours: -1 }), "gone@example.gov");
    await stored("CRS-KEPT-0001", at({ months: -25, days: -21, hours: -1 }), "order@example.gov");
    await keepInquiry(outbox, "CRS-KEPT-0001");
    // 25 months old, but the same sender wrote again last month: the last contact is recent.
    await stored("CRS-BACK-0201", at({ months: -25, days: -7, hours: -1 }), "returning@example.gov");
    await stored("CRS-BACK-0202", at({ months: -1, days: -7, hours: -1 }), "Returning@example.gov");
    await stored("CRS-NEW0-0001", at({ months: -22, days: -12, hours: -1 }), "recent@example.gov");
    await stored("CRS-SPAM-0001", at({ months: -1, days: -12, hours: -1 }), "bot@example.gov", spam);
    await stored("CRS-SPAM-0002", at({ days: -10, hours: -1 }), "bot@example.gov", spam);
    await stored("CRS-SPAM-0003", at({ months: -1, days: -12, hours: -1 }), "person@example.gov", spam);
    await outbox.release("CRS-SPAM-0003");
    await outbox.recordAttempt({
      reference: "CRS-SPAM-0003",
      transport: "webhook",
      ok: true,
      at: at({ months: -1, days: -11, hours: -1 }),
    });

    const running = startWorker(configWith({}), clock);
    await running.idle();
    const remaining = async () => (await outbox.read()).records.map((kept) => kept.reference);
    expect(await remaining()).toEqual([
      "CRS-KEPT-0001",
      "CRS-BACK-0201",
      "CRS-BACK-0202",
      "CRS-NEW0-0001",
      "CRS-SPAM-0002",
      "CRS-SPAM-0003",
    ]);
    const retentionLines = () => logs.filter((line) => line.startsWith("info retention:"));
    expect(retentionLines()).toEqual([
      "info retention: removed 1 inquiries past 24 months and 1 unreleased suspected spam past 30 days",
    ]);
    expect((await outbox.read()).attempts.map((attempt) => attempt.reference)).not.toContain("CRS-OLD0-0001");

    // Not again within the day, nor by a worker started afresh on the store (a restart, the next release's)...
    seconds(clock, 3600);
    await pass(running);
    await running.stop();
    const restarted = startWorker(configWith({}), clock);
    await restarted.idle();
    expect(retentionLines()).toHaveLength(1);
    // ...but the next day, when the spam still held has had its 30 days.
    clock.now = new Date(at({ days: 21 }));
    await pass(restarted);
    expect(retentionLines()).toHaveLength(2);
    expect(retentionLines()[1]).toBe(
      "info retention: removed 0 inquiries past 24 months and 1 unreleased suspected spam past 30 days",
    );
    expect(await remaining()).not.toContain("CRS-SPAM-0002");
    expect(logs.join("\n")).not.toMatch(/example\.gov/);
  });
});

describe("backoffMs", () => {
  const policy: DeliveryPolicy = {
    concurrency: 4,
    attemptTimeoutMs: 1000,
    maxAttempts: 8,
    firstDelayMs: 1_000,
    maxDelayMs: 10_000,
  };

  it("doubles from the first delay up to the longest", () => {
    const top = () => 1;
    expect([1, 2, 3, 4, 5, 6, 20, 100].map((attempts) => backoffMs(attempts, policy, top))).toEqual([
      1_000, 2_000, 4_000, 8_000, 10_000, 10_000, 10_000, 10_000,
    ]);
  });

  it("takes a random part of it between one half and the whole", () => {
    expect(backoffMs(3, policy, () => 0)).toBe(2_000);
    for (let sample = 0; sample < 500; sample += 1) {
      const attempts = 1 + (sample % 6);
      const ceiling = Math.min(10_000, 1_000 * 2 ** (attempts - 1));
      const delay = backoffMs(attempts, policy);
      expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
      expect(delay).toBeLessThanOrEqual(ceiling);
    }
  });
});

/** `npm run inquiries -- <args>` against this test's outbox. */
const inquiries = (args: readonly string[], env: NodeJS.ProcessEnv) =>
  runInquiries(args, { INQUIRY_DATA_DIR: dir, ...env });

/** Holds every call until `delayMs` after the first one, then answers all of them (and any later) with 204. */
const answerAllAfterFirstCall = (held: Receiver, delayMs: number): NodeJS.Timeout => {
  let firstCallAt = 0;
  return setInterval(() => {
    if (held.received.length > 0 && firstCallAt === 0) firstCallAt = Date.now();
    if (firstCallAt === 0 || Date.now() - firstCallAt < delayMs) return;
    for (const request of held.held.splice(0)) request.answer(204);
  }, 20);
};

describe("npm run inquiries", () => {
  it("delivers each pending inquiry exactly once when two --retry runs start together", async () => {
    const references = Array.from({ length: 5 }, (_, index) => `CRS-TWIN-000${index}`);
    const outbox = openSqliteOutbox(dir);
    for (const reference of references) await outbox.add(record(reference));
    // Slow answers, so that both runs are under way at the same time.
    receiver = await startReceiver(() => null);
    const current = receiver;
    // Nothing is answered until a second has passed since the first call: both runs have started by then.
    const answering = answerAllAfterFirstCall(current, 1_000);
    try {
      const env = { INQUIRY_WEBHOOK_URL: receiver.url };
      const [first, second] = await Promise.all([inquiries(["--retry"], env), inquiries(["--retry"], env)]);
      expect([first.code, second.code]).toEqual([0, 0]);
      expect([...current.received].sort()).toEqual(references);
      // Each run claims what the other has not: between them they tried the five, each once.
      const [triedByFirst, triedBySecond] = [first.stdout, second.stdout].map((stdout) =>
        Number(/Retried (\d+) undelivered/.exec(stdout)?.[1]),
      );
      expect((triedByFirst ?? 0) + (triedBySecond ?? 0)).toBe(5);
      const entries = await outbox.entries(8);
      expect(entries.map((entry) => entry.state)).toEqual(references.map(() => "delivered"));
    } finally {
      clearInterval(answering);
    }
  }, 30_000);

  it("delivers each inquiry exactly once when the server's worker and --retry run at once", async () => {
    const references = Array.from({ length: 6 }, (_, index) => `CRS-BOTH-000${index}`);
    const outbox = openSqliteOutbox(dir);
    for (const reference of references) await outbox.add(record(reference));
    // Nothing is answered until 2 s after the first call: the worker's pass is under way when --retry starts.
    receiver = await startReceiver(() => null);
    const current = receiver;
    const answering = answerAllAfterFirstCall(current, 2_000);
    try {
      const config = configWith({ INQUIRY_WEBHOOK_URL: receiver.url });
      const [retried] = await Promise.all([
        inquiries(["--retry"], { INQUIRY_WEBHOOK_URL: receiver.url }),
        startWorker(config, { now: new Date() }).idle(),
      ]);
      expect(retried.code).toBe(0);
      expect([...current.received].sort()).toEqual(references);
      const entries = await outbox.entries(8);
      expect(entries.map((entry) => [entry.state, entry.attempts])).toEqual(references.map(() => ["delivered", 1]));
    } finally {
      clearInterval(answering);
    }
  }, 30_000);

  it("--retry delivers the backlog stored while no transport was configured", async () => {
    const outbox = openSqliteOutbox(dir);
    await outbox.add(record("CRS-BACK-0101", []));
    await outbox.add(record("CRS-BACK-0102", []));
    expect((await inquiries(["--retry"], {})).stdout).toMatch(/Retried 0 undelivered/);
    receiver = await startReceiver(() => 204);
    const env = { INQUIRY_WEBHOOK_URL: receiver.url };
    const retried = await inquiries(["--retry"], env);
    expect([retried.code, retried.stdout]).toEqual([
      0,
      expect.stringMatching(/Retried 2 undelivered inquiries: 2 delivered/),
    ]);
    expect((await inquiries(["--retry"], env)).stdout).toMatch(/Retried 0 undelivered/);
    expect([...receiver.received].sort()).toEqual(["CRS-BACK-0101", "CRS-BACK-0102"]);
  }, 30_000);

  it("says which store it reads, and refuses to read an empty ./.data when the service's environment is missing", async () => {
    const elsewhere = mkdtempSync(path.join(tmpdir(), "inquiries-cwd-"));
    try {
      const bare = await runInquiries([], { INQUIRY_DATA_DIR: "" }, { cwd: elsewhere });
      expect(bare.code).toBe(1);
      expect(bare.stderr).toMatch(
        /INQUIRY_DATA_DIR is not set, and .*\.data holds no inquiry database: run this with the service's environment/,
      );
      expect(existsSync(path.join(elsewhere, ".data"))).toBe(false);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
    expect((await inquiries([], {})).stderr).toMatch(/There is no inquiry database in .*delivery-worker-/);
    await openSqliteOutbox(dir).add(record("CRS-LIST-0001"));
    const listed = await inquiries([], {});
    expect([listed.code, listed.stderr]).toEqual([
      0,
      expect.stringContaining(`Reading ${path.join(dir, "inquiries.sqlite")}.`),
    ]);
  }, 30_000);

  /** The command against this test's database, as the service's user runs it. */
  const command: InquiriesCommand = (args, input = "") => runInquiries(args, { INQUIRY_DATA_DIR: dir }, { input });

  it("exports a person's inquiries as JSON, keeps one from retention, and erases on confirmation only", async () => {
    await checkPersonalDataCommands(command, openSqliteOutbox(dir));
  }, 60_000);

  it("prints its usage for --help and refuses an option it does not know, saying where the usage is", async () => {
    const help = await command(["--help"]);
    expect([help.code, help.stderr]).toEqual([0, ""]);
    expect(help.stdout).toMatch(/^inquiries: the outbox, for whoever answers inquiries\./);
    expect(help.stdout).toMatch(/--retention .*remove now what is past its retention/);
    const unknown = await command(["--export"]);
    expect([unknown.code, unknown.stdout, unknown.stderr]).toEqual([
      2,
      "",
      expect.stringMatching(/^Unknown option '--export'.*\nSee --help for what it takes\.\n$/s),
    ]);
  });

  it("removes what is past its retention on demand, and says how many", async () => {
    const outbox = openSqliteOutbox(dir);
    const monthsAgo = (months: number) => new Date(Date.now() - months * 31 * 24 * 3600_000).toISOString();
    for (const [reference, receivedAt] of [
      ["CRS-GONE-0001", monthsAgo(25)],
      ["CRS-GONE-0002", monthsAgo(30)],
      ["CRS-STAY-0001", monthsAgo(2)],
    ] as const) {
      await outbox.add({ ...record(reference), receivedAt, replyTo: { address: `${reference}@example.gov` } });
      await outbox.recordAttempt({ reference, transport: "webhook", ok: true, at: receivedAt });
    }
    const run = await command(["--retention"]);
    expect([run.code, run.stdout]).toEqual([
      0,
      "retention: removed 2 inquiries past 24 months and 0 unreleased suspected spam past 30 days\n",
    ]);
    expect((await outbox.read()).records.map((kept) => kept.reference)).toEqual(["CRS-STAY-0001"]);
  });

  it("lists a page at a time, oldest first, and says how to ask for the next", async () => {
    await checkPagedListing(command, openSqliteOutbox(dir));
  }, 60_000);

  it("backs the database up while it is being written, and the copy restores as the outbox", async () => {
    const outbox = openSqliteOutbox(dir);
    for (let index = 0; index < 200; index += 1) await outbox.add(record(`CRS-BKUP-${String(index).padStart(4, "0")}`));
    const backupFile = path.join(dir, "backup.sqlite");
    // The server goes on storing while the copy is made.
    // An object, so that the loop sees the change made after it started.
    const writing = { on: true };
    const written: string[] = [];
    const writer = (async () => {
      for (let index = 0; writing.on; index += 1) {
        const reference = `CRS-MORE-${String(index).padStart(4, "0")}`;
        await outbox.add(record(reference));
        written.push(reference);
      }
    })();
    const backedUp = await inquiries(["--backup", backupFile], {});
    writing.on = false;
    await writer;
    expect([backedUp.code, backedUp.stdout]).toEqual([
      0,
      expect.stringMatching(/^Backed up .* to .*backup\.sqlite \(\d+ pages\)\./),
    ]);
    expect(statSync(backupFile).mode & 0o777).toBe(0o600);

    // Restoring, as docs/deploy-server.md says: the server stopped, the copy put in place of the database.
    const restoredDir = mkdtempSync(path.join(tmpdir(), "restored-"));
    try {
      copyFileSync(backupFile, path.join(restoredDir, "inquiries.sqlite"));
      const restored = openSqliteOutbox(restoredDir);
      const references = (await restored.read()).records.map((stored) => stored.reference);
      expect(references.slice(0, 200)).toEqual(
        Array.from({ length: 200 }, (_, index) => `CRS-BKUP-${String(index).padStart(4, "0")}`),
      );
      // A consistent copy: whatever of the later ones it has, it has in order, from the first.
      expect(references.slice(200)).toEqual(written.slice(0, references.length - 200));
      const check = new DatabaseSync(path.join(restoredDir, "inquiries.sqlite"));
      expect(check.prepare("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
      check.close();
      await restored.add(record("CRS-AFTR-0001"));
      expect((await restored.entry("CRS-AFTR-0001", 8))?.state).toBe("pending");
    } finally {
      rmSync(restoredDir, { recursive: true, force: true });
    }
  }, 60_000);

  it("lists quarantined inquiries, releases one, and --retry then delivers it", async () => {
    const outbox = openSqliteOutbox(dir);
    await outbox.add({ ...record("CRS-QUAR-0001"), quarantine: { reason: "honeypot filled" } });
    await outbox.add({ ...record("CRS-QUAR-0002"), quarantine: { reason: "sent too fast" } });
    await outbox.add(record("CRS-PEND-0001"));
    receiver = await startReceiver(() => 204);
    const env = { INQUIRY_WEBHOOK_URL: receiver.url };

    const listed = await inquiries(["--state", "quarantined"], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/2 inquiries .*: 0 pending, 0 dead, 2 quarantined, 0 delivered, 0 stored\./);
    // Of the whole store, whatever the page shows: how many wait for a person, and for how long the oldest.
    const heldLine = /^Held as suspected spam: 2, the oldest for \d+ (?:days?|hours?|minutes?) \(since (\S+)\)\.$/m;
    expect(heldLine.exec(listed.stdout)?.[1]).toBe(START);
    expect(listed.stdout).toMatch(/CRS-QUAR-0001 .*quarantined .*\(honeypot filled\)/);
    expect(listed.stdout).toMatch(/CRS-QUAR-0002 .*\(sent too fast\)/);
    expect(listed.stdout).not.toMatch(/CRS-PEND-0001/);

    expect((await inquiries(["--release", "CRS-PEND-0001"], env)).code).toBe(1);
    const released = await inquiries(["--release", "CRS-QUAR-0001"], env);
    expect([released.code, released.stdout]).toEqual([0, expect.stringMatching(/CRS-QUAR-0001 released/)]);
    expect((await inquiries(["--release", "CRS-QUAR-0001"], env)).code).toBe(1);

    const retried = await inquiries(["--retry"], env);
    expect(retried.code).toBe(0);
    expect([...receiver.received].sort()).toEqual(["CRS-PEND-0001", "CRS-QUAR-0001"]);
    expect((await inquiries(["--state", "pending"], env)).stdout).toMatch(/^Held as suspected spam: 1,/m);
    const states = (await outbox.entries(8)).map((entry) => [entry.record.reference, entry.state]);
    expect(states).toEqual([
      ["CRS-QUAR-0001", "delivered"],
      ["CRS-QUAR-0002", "quarantined"],
      ["CRS-PEND-0001", "delivered"],
    ]);
    expect((await inquiries(["--state", "nonsense"], env)).code).toBe(1);
  }, 30_000);
});
