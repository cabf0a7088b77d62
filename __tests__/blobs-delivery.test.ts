/**
 * @jest-environment node
 */
import { execFile } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { readInquiryConfig, type InquiryConfig } from "../server/inquiries/config";
import { readInquiryContent } from "../server/inquiries/content-on-disk";
import { openOutbox } from "../server/inquiries/open-outbox";
import { isRetaining } from "../server/inquiries/outbox";
import { createScheduledDelivery, runScheduledDelivery } from "../server/inquiries/scheduled-delivery";
import { startBlobsServer, type LocalBlobsServer } from "../testing/blobs-server";
import { startMailServer } from "../testing/loopback-servers";
import { checkPagedListing, checkPersonalDataCommands, type InquiriesCommand } from "./support/inquiries-command";
import { RELEASE_LINKS_ENV } from "./support/held-inquiries";
import { runInquiries, sampleRecord } from "./support/outbox-fixtures";
import { shifted, type Offset } from "./support/test-clock";
import { lineLog } from "../server/inquiries/operational-log";
import pino from "pino";

const content = readInquiryContent(path.resolve("content"));
const { delivery } = content.form;
const root = path.resolve(__dirname, "..");

const record = sampleRecord;
/** The tests' clock starts when the sample records arrive. */
const START = record("CRS-TIME-0000").receivedAt;
/** The instant `offset` from START (before it, where negative). */
const at = (offset: Offset) => shifted(START, offset);

/**
 * A webhook receiver that answers with the status `policy` gives (null: hold the request until the
 * test answers it), and keeps the reference of every inquiry posted to it.
 */
const startReceiver = async (policy: () => number | null) => {
  const received: string[] = [];
  const held: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    received.push(String(req.headers["x-inquiry-reference"]));
    req.resume();
    req.on("end", () => {
      const status = policy();
      const answer = (code: number) => {
        res.statusCode = code;
        res.end();
      };
      if (status === null) held.push(() => answer(204));
      else answer(status);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    held,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

const run = promisify(execFile);

let blobsServer: LocalBlobsServer;
let storeNumber = 0;
let store: string;
let logs: string[];
beforeAll(async () => {
  blobsServer = await startBlobsServer();
});
afterAll(() => blobsServer.close());
beforeEach(() => {
  storeNumber += 1;
  store = `delivery-test-${storeNumber}`;
  logs = [];
});
afterEach(() => {
  delete process.env.NETLIFY_BLOBS_CONTEXT;
});

/** The outbox as the tests write to it: through a site ID and a token, as the CLI reaches it. */
const outbox = () => openOutbox(readInquiryConfig(delivery, blobsServer.env(store)));
/** The outbox with what it does with personal data (keep, erase, retention). */
const retainingOutbox = () => {
  const opened = outbox();
  if (!isRetaining(opened)) throw new Error("the Blobs outbox keeps no retention");
  return opened;
};

/**
 * The configuration a scheduled function reads: INQUIRY_OUTBOX and the store, with no site ID or token
 * of its own; the store access is the one Netlify gives every modern function (NETLIFY_BLOBS_CONTEXT).
 */
const functionConfig = (env: NodeJS.ProcessEnv): (() => InquiryConfig) => {
  process.env.NETLIFY_BLOBS_CONTEXT = blobsServer.functionContext();
  const config = readInquiryConfig(delivery, { INQUIRY_OUTBOX: "blobs", INQUIRY_BLOBS_STORE: store, ...env });
  return () => config;
};

/**
 * Runs netlify/functions/deliver-inquiries.mts once, in a process of its own, as Netlify runs the deployed
 * file: its default export, with `env` over the environment Netlify gives it (the outbox, the store, and
 * the store's access in NETLIFY_BLOBS_CONTEXT). Its schedule, and its answer's status and JSON.
 */
const runFunctionFile = async (env: NodeJS.ProcessEnv) => {
  const script =
    "const fn = await import(process.argv[1]); const answer = await fn.default();" +
    "console.log(JSON.stringify({ schedule: fn.config.schedule, status: answer.status, body: await answer.json() }));";
  const file = path.join(root, "netlify/functions/deliver-inquiries.mts");
  const { stdout } = await run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script, file], {
    cwd: root,
    env: {
      ...process.env,
      INQUIRY_OUTBOX: "blobs",
      INQUIRY_BLOBS_STORE: store,
      NETLIFY_BLOBS_CONTEXT: blobsServer.functionContext(),
      ...env,
    },
  });
  const lines = stdout.trim().split("\n");
  return JSON.parse(lines[lines.length - 1] ?? "") as { schedule: string; status: number; body: unknown };
};

describe("the scheduled delivery (netlify/functions/deliver-inquiries.mts)", () => {
  it("retries a failed webhook after its backoff, not before, and delivers it once", async () => {
    let status = 500;
    const receiver = await startReceiver(() => status);
    const clock = { now: new Date(START) };
    try {
      await outbox().add(record("CRS-RTRY-0001"));
      const config = functionConfig({ INQUIRY_WEBHOOK_URL: receiver.url });
      const pass = () =>
        runScheduledDelivery(delivery, { config, log: lineLog((line) => logs.push(line)), now: () => clock.now });

      expect(await pass()).toMatchObject({ ran: true, due: 1, delivered: 0, failed: 1, pending: 1 });
      const failed = await outbox().entry("CRS-RTRY-0001", 8);
      // First delay 60 s (content), with jitter in [0.5, 1]: due 30 to 60 s after the failure.
      const dueIn = Date.parse(failed?.dueAt ?? "") - clock.now.getTime();
      expect([failed?.state, dueIn >= 30_000 && dueIn <= 60_000]).toEqual(["pending", true]);

      clock.now = new Date(clock.now.getTime() + 29_000);
      expect(await pass()).toMatchObject({ ran: true, due: 0, pending: 1 });
      expect(receiver.received).toHaveLength(1);

      status = 204;
      clock.now = new Date(Date.parse(failed?.dueAt ?? ""));
      expect(await pass()).toMatchObject({ due: 1, delivered: 1, pending: 0 });
      clock.now = new Date(clock.now.getTime() + 3_600_000);
      expect(await pass()).toMatchObject({ due: 0 });
      expect(receiver.received).toEqual(["CRS-RTRY-0001", "CRS-RTRY-0001"]);
      expect((await outbox().entry("CRS-RTRY-0001", 8))?.state).toBe("delivered");
      expect(logs[logs.length - 1]).toMatch(/^0 due: 0 delivered, 0 failed; 0 pending, 0 dead, 0 quarantined$/);
    } finally {
      await receiver.close();
    }
  });

  it("sets an inquiry aside as dead after the last allowed attempt and does not try it again", async () => {
    const receiver = await startReceiver(() => 503);
    const clock = { now: new Date(START) };
    try {
      await outbox().add(record("CRS-DEAD-0001"));
      const config = functionConfig({ INQUIRY_WEBHOOK_URL: receiver.url, INQUIRY_MAX_ATTEMPTS: "3" });
      for (let hour = 0; hour < 5; hour += 1) {
        await runScheduledDelivery(delivery, { config, log: lineLog((line) => logs.push(line)), now: () => clock.now });
        clock.now = new Date(clock.now.getTime() + 3_600_000);
      }
      expect(receiver.received).toHaveLength(3);
      const dead = await outbox().entry("CRS-DEAD-0001", 3);
      expect([dead?.state, dead?.deliveries, dead?.dueAt]).toEqual(["dead", { webhook: "dead" }, null]);
      expect(logs[logs.length - 1]).toMatch(/0 pending, 1 dead/);
    } finally {
      await receiver.close();
    }
  });

  it("removes what is past its retention once a day, after the deliveries, saying how many and never whose", async () => {
    const receiver = await startReceiver(() => 204);
    const clock = { now: new Date(START) };
    try {
      await outbox().add({
        ...record("CRS-RETN-0001"),
        receivedAt: at({ months: -25, days: -21, hours: -1 }),
        replyTo: { address: "gone@example.gov" },
      });
      await outbox().add({
        ...record("CRS-RETN-0002"),
        receivedAt: at({ months: -25, days: -21, hours: -1 }),
        replyTo: { address: "order@example.gov" },
      });
      await outbox().add({
        ...record("CRS-RETN-0003"),
        receivedAt: at({ minutes: -1 }),
        quarantine: { reason: "honeypot filled" },
      });
      await outbox().add(record("CRS-RETN-0004"));
      await retainingOutbox().keep("CRS-RETN-0002");
      const config = functionConfig({ INQUIRY_WEBHOOK_URL: receiver.url });
      const pass = () =>
        runScheduledDelivery(delivery, { config, log: lineLog((line) => logs.push(line)), now: () => clock.now });
      const retentionLines = () => logs.filter((line) => line.startsWith("retention:"));
      expect(await pass()).toMatchObject({ ran: true, delivered: 3 });
      expect(retentionLines()).toEqual([
        "retention: removed 1 inquiries past 24 months and 0 unreleased suspected spam past 30 days",
      ]);
      // Delivered first: the old one was still delivered before it went.
      expect([...receiver.received].sort()).toEqual(["CRS-RETN-0001", "CRS-RETN-0002", "CRS-RETN-0004"]);
      const remaining = async () => (await outbox().read()).records.map((stored) => stored.reference).sort();
      expect(await remaining()).toEqual(["CRS-RETN-0002", "CRS-RETN-0003", "CRS-RETN-0004"]);
      // Not again the same day, whichever run it is (nothing outlives a run but the store)...
      clock.now = new Date(at({ hours: 12 }));
      await pass();
      expect(retentionLines()).toHaveLength(1);
      // ...but once the spam has had its 30 days.
      clock.now = new Date(at({ days: 31 }));
      await pass();
      expect(retentionLines()[1]).toBe(
        "retention: removed 0 inquiries past 24 months and 1 unreleased suspected spam past 30 days",
      );
      expect(await remaining()).toEqual(["CRS-RETN-0002", "CRS-RETN-0004"]);
      expect(logs.join("\n")).not.toMatch(/example\.gov/);
    } finally {
      await receiver.close();
    }
  });

  it("emails and posts each due inquiry, as a Netlify function answering JSON", async () => {
    const mail = await startMailServer();
    const receiver = await startReceiver(() => 204);
    try {
      await outbox().add(record("CRS-BOTH-0001", ["email", "webhook"]));
      await outbox().add({
        ...record("CRS-QUAR-0001", ["email", "webhook"]),
        quarantine: { reason: "honeypot filled" },
      });
      const config = functionConfig({
        INQUIRY_WEBHOOK_URL: receiver.url,
        SMTP_URL: mail.url,
        SMTP_ALLOW_PLAIN: "1",
        INQUIRY_TO: "sales@example.com",
        INQUIRY_FROM: "website@example.com",
      });
      const handler = createScheduledDelivery(delivery, { config, log: lineLog((line) => logs.push(line)) });
      const response = await handler();
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ ran: true, due: 1, delivered: 1, quarantined: 1 });
      expect(receiver.received).toEqual(["CRS-BOTH-0001"]);
      expect(mail.received.map((message) => /X-Inquiry-Reference: (\S+)/.exec(message.raw)?.[1])).toEqual([
        "CRS-BOTH-0001",
      ]);
      expect(logs.join("\n")).toMatch(/CRS-BOTH-0001 (email: sent; webhook: sent|webhook: sent; email: sent)/);
    } finally {
      await receiver.close();
      await mail.close();
    }
  });

  it("runs as the deployed function file, on its five-minute schedule, from the environment Netlify gives it", async () => {
    const receiver = await startReceiver(() => 204);
    try {
      await outbox().add(record("CRS-FILE-0001"));
      expect(await runFunctionFile({ INQUIRY_WEBHOOK_URL: receiver.url })).toMatchObject({
        schedule: "*/5 * * * *",
        status: 200,
        body: { ran: true, due: 1, delivered: 1 },
      });
      expect(receiver.received).toEqual(["CRS-FILE-0001"]);
    } finally {
      await receiver.close();
    }
  }, 30_000);

  it("makes the day's digest of held inquiries as the deployed function file, with the content it bundles, once", async () => {
    const receiver = await startReceiver(() => 204);
    try {
      await outbox().add({ ...record("CRS-7K4M-2Q9D"), quarantine: { reason: "honeypot filled" } });
      const runFile = async () => {
        const { status, body } = await runFunctionFile({
          INQUIRY_WEBHOOK_URL: receiver.url,
          ...RELEASE_LINKS_ENV,
          // From midnight in the company's time zone: due at any time of day, once.
          INQUIRY_DIGEST_HOUR: "0",
        });
        const { digests } = body as { digests: { made: { references: string[] } | null; delivered: number } };
        return { status, digests };
      };
      const first = await runFile();
      expect([first.status, first.digests.made?.references, first.digests.delivered]).toEqual([
        200,
        ["CRS-7K4M-2Q9D"],
        1,
      ]);
      expect((await runFile()).digests.made).toBeNull();
      // The digest alone, which names no inquiry in X-Inquiry-Reference: the held inquiry itself is not delivered.
      expect(receiver.received).toEqual(["undefined"]);
    } finally {
      await receiver.close();
    }
  }, 30_000);

  it("starts no delivery that could not end within the platform's time limit", async () => {
    const receiver = await startReceiver(() => 204);
    try {
      await outbox().add(record("CRS-LATE-0001"));
      const config = functionConfig({ INQUIRY_WEBHOOK_URL: receiver.url });
      // A limit shorter than one attempt plus the margin: there is never time to start one.
      const outcome = await runScheduledDelivery(delivery, {
        config,
        log: pino({ level: "silent" }),
        runLimitMs: 1_000,
      });
      expect(outcome).toMatchObject({ ran: true, due: 1, delivered: 0, failed: 0, pending: 1 });
      expect(receiver.received).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it("does nothing where INQUIRY_OUTBOX is sqlite, and answers 500 when the store cannot be reached", async () => {
    const fileConfig = readInquiryConfig(delivery, { INQUIRY_DATA_DIR: "/nonexistent/never-written" });
    expect(await runScheduledDelivery(delivery, { config: () => fileConfig, log: pino({ level: "silent" }) })).toEqual({
      ran: false,
      reason: "not-shared",
    });
    // No store access at all: neither a site ID and a token, nor a function's context.
    const unreachable = readInquiryConfig(delivery, { INQUIRY_OUTBOX: "blobs" });
    const response = await createScheduledDelivery(delivery, {
      config: () => unreachable,
      log: lineLog((line) => logs.push(line)),
    })();
    expect([response.status, await response.json()]).toEqual([500, { ran: false, reason: "failed" }]);
    expect(logs).toEqual([expect.stringMatching(/^run failed: MissingBlobsEnvironmentError/)]);
  });
});

/** `npm run inquiries -- <args>` against the test's store, as an operator runs it with the site's ID and a token. */
const inquiries = (args: readonly string[], env: NodeJS.ProcessEnv = {}) =>
  runInquiries(["--site", blobsServer.siteID, "--token", blobsServer.token, "--store", store, ...args], {
    // Only the address of the local server comes from the environment: the site and token are flags.
    INQUIRY_BLOBS_SERVER_URL: blobsServer.url,
    ...env,
  });

describe("npm run inquiries on the Blobs store", () => {
  it("lists, shows, releases and retries, given the site's ID and a token", async () => {
    await outbox().add({ ...record("CRS-QUAR-0001"), quarantine: { reason: "honeypot filled" } });
    await outbox().add(record("CRS-PEND-0001"));
    const receiver = await startReceiver(() => 204);
    try {
      const env = { INQUIRY_WEBHOOK_URL: receiver.url };
      const listed = await inquiries([], env);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(
        new RegExp(`2 inquiries in Netlify Blobs store "${store}" of site test-site: 1 pending, 0 dead, 1 quarantined`),
      );
      expect(listed.stdout).toMatch(/CRS-QUAR-0001 .*quarantined .*\(honeypot filled\)/);
      const heldLine = /^Held as suspected spam: 1, the oldest for \d+ (?:days?|hours?|minutes?) \(since (\S+)\)\.$/m;
      expect(heldLine.exec(listed.stdout)?.[1]).toBe(START);

      const shown = await inquiries(["--show", "CRS-PEND-0001"], env);
      expect([shown.code, shown.stdout]).toEqual([
        0,
        expect.stringMatching(/CRS-PEND-0001[\s\S]*Full name: Pat Buyer/),
      ]);
      expect((await inquiries(["--show", "CRS-NONE-0000"], env)).code).toBe(1);

      expect((await inquiries(["--release", "CRS-PEND-0001"], env)).code).toBe(1);
      const released = await inquiries(["--release", "CRS-QUAR-0001"], env);
      expect([released.code, released.stdout]).toEqual([0, expect.stringMatching(/CRS-QUAR-0001 released/)]);
      expect((await inquiries(["--release", "CRS-QUAR-0001"], env)).code).toBe(1);

      const retried = await inquiries(["--retry"], env);
      expect([retried.code, retried.stdout]).toEqual([
        0,
        expect.stringMatching(/Retried 2 undelivered inquiries: 2 delivered/),
      ]);
      expect([...receiver.received].sort()).toEqual(["CRS-PEND-0001", "CRS-QUAR-0001"]);
      const states = (await outbox().entries(8)).entries.map((entry) => [entry.record.reference, entry.state]);
      expect(states).toEqual([
        ["CRS-PEND-0001", "delivered"],
        ["CRS-QUAR-0001", "delivered"],
      ]);
    } finally {
      await receiver.close();
    }
  }, 60_000);

  /** The command against this test's store, given the site and token as flags. */
  const command: InquiriesCommand = (args, input = "") =>
    runInquiries(
      ["--site", blobsServer.siteID, "--token", blobsServer.token, "--store", store, ...args],
      {
        INQUIRY_BLOBS_SERVER_URL: blobsServer.url,
      },
      { input },
    );

  it("exports a person's inquiries as JSON, keeps one from retention, and erases on confirmation only", async () => {
    await checkPersonalDataCommands(command, retainingOutbox());
  }, 60_000);

  it("lists a page at a time, oldest first, and says how to ask for the next", async () => {
    await checkPagedListing(command, outbox());
  }, 60_000);

  it("says which store it reads, and refuses to list a store that holds nothing at all", async () => {
    const empty = await command([]);
    expect([empty.code, empty.stderr]).toEqual([
      1,
      expect.stringMatching(
        new RegExp(
          `Reading Netlify Blobs store "${store}" of site test-site\\.\\n.*holds nothing at all: check the site's ID and the store's name`,
        ),
      ),
    ]);
    await outbox().add(record("CRS-SAYS-0001"));
    const listed = await command([]);
    expect([listed.code, listed.stderr, listed.stdout]).toEqual([
      0,
      `Reading Netlify Blobs store "${store}" of site test-site.\n`,
      expect.stringContaining("CRS-SAYS-0001"),
    ]);
  }, 30_000);

  it("refuses to guess without a token", async () => {
    const { code, stderr } = await runInquiries(["--site", blobsServer.siteID], {
      NETLIFY_BLOBS_TOKEN: "",
      NETLIFY_AUTH_TOKEN: "",
    });
    expect([code, stderr]).toEqual([1, expect.stringMatching(/needs the site's ID and a token/)]);
  }, 30_000);

  it("delivers each inquiry once when a --retry and a scheduled run overlap in two processes", async () => {
    const references = ["CRS-TWIN-0001", "CRS-TWIN-0002", "CRS-TWIN-0003"];
    for (const reference of references) await outbox().add(record(reference));
    // Held answers keep the first run, and its lease, going: nothing is answered until a second after the first call.
    const receiver = await startReceiver(() => null);
    let firstCallAt = 0;
    const answering = setInterval(() => {
      if (receiver.received.length > 0 && firstCallAt === 0) firstCallAt = Date.now();
      if (firstCallAt !== 0 && Date.now() - firstCallAt >= 1_000)
        for (const answer of receiver.held.splice(0)) answer();
    }, 50);
    try {
      const retry = inquiries(["--retry"], { INQUIRY_WEBHOOK_URL: receiver.url });
      // The local Blobs server checks a write's condition and writes in separate steps, so two runs taking
      // the lease in the same millisecond could both win there (the platform's conditional writes are
      // atomic): the scheduled run starts once the retry is delivering, and must find the lease held.
      for (let waited = 0; receiver.received.length === 0; waited += 50) {
        if (waited > 20_000) throw new Error("the retry never started delivering");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const config = functionConfig({ INQUIRY_WEBHOOK_URL: receiver.url });
      const scheduled = await runScheduledDelivery(delivery, { config, log: pino({ level: "silent" }) });
      expect(scheduled).toEqual({ ran: false, reason: "locked" });
      expect((await retry).code).toBe(0);
      expect([...receiver.received].sort()).toEqual(references);
      // The next scheduled run finds nothing left to do.
      expect(await runScheduledDelivery(delivery, { config, log: pino({ level: "silent" }) })).toMatchObject({
        ran: true,
        due: 0,
      });
      expect(receiver.received).toHaveLength(3);
    } finally {
      clearInterval(answering);
      await receiver.close();
    }
  }, 60_000);
});
