/**
 * @jest-environment node
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readInquiryConfig } from "../server/inquiries/config";
import { readInquiryContent } from "../server/inquiries/content-on-disk";
import { BlobsOutbox } from "../server/inquiries/blobs-outbox";
import { openOutbox } from "../server/inquiries/open-outbox";
import type { InquiryOutbox, OutboxRecord, RetainingOutbox } from "../server/inquiries/outbox";
import { createReleaseHandler } from "../server/inquiries/release";
import { quarantineEndsAt, releaseUrl } from "../server/inquiries/release-link";
import pino from "pino";
import { copyFromBlobs } from "../server/inquiries/store/copy-from-blobs";
import { startBlobsServer, type LocalBlobsServer } from "../testing/blobs-server";
import { runInquiries, sampleRecord } from "./support/outbox-fixtures";
import { SQL_POSTGRES, SQL_SQLITE, useSqlStores } from "./support/sql-stores";
import { shifted, type Offset } from "./support/test-clock";

/**
 * Copying a site's inquiries from the Blobs store the current release's outbox wrote into the SQL store, on
 * both engines: everything arrives once, a second copy adds nothing, and a held inquiry's release link still
 * works.
 */

const content = readInquiryContent(path.resolve("content"));
const { delivery } = content.form;
const record = (reference: string, transports: OutboxRecord["transports"] = ["webhook"]) =>
  sampleRecord(reference, transports);
const START = record("CRS-TIME-0000").receivedAt;
const at = (offset: Offset) => shifted(START, offset);
const held = (reference: string): OutboxRecord => ({ ...record(reference), quarantine: { reason: "sent too fast" } });
const SECRET = "a-release-secret-of-at-least-32-characters";

let blobsServer: LocalBlobsServer;
let storeNumber = 0;
let store: string;
let dir: string;
beforeAll(async () => {
  blobsServer = await startBlobsServer();
});
afterAll(() => blobsServer.close());
beforeEach(() => {
  storeNumber += 1;
  store = `copy-test-${storeNumber}`;
  dir = mkdtempSync(path.join(tmpdir(), "blobs-copy-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const sqlStores = useSqlStores();

type Store = InquiryOutbox & RetainingOutbox;
const blobsOutbox = (): BlobsOutbox => {
  const outbox = openOutbox(readInquiryConfig(delivery, blobsServer.env(store)));
  if (!(outbox instanceof BlobsOutbox)) throw new Error("the settings name no Blobs store");
  return outbox;
};

/** A Blobs store as the site leaves it: an inquiry in each state, a release, a mark to keep, many attempts. */
const fillBlobs = async (outbox: Store) => {
  await outbox.add({ ...record("CRS-COPY-0001"), idempotencyKey: "key-copy-0001" });
  await outbox.recordAttempt({ reference: "CRS-COPY-0001", transport: "webhook", ok: true, at: at({ seconds: 5 }) });
  await outbox.add(record("CRS-COPY-0002", ["email", "webhook"]));
  await outbox.recordAttempt({ reference: "CRS-COPY-0002", transport: "webhook", ok: true, at: at({ seconds: 5 }) });
  await outbox.recordAttempt({
    reference: "CRS-COPY-0002",
    transport: "email",
    ok: false,
    at: at({ seconds: 6 }),
    detail: "ECONNREFUSED",
    retryAt: at({ minutes: 1 }),
  });
  await outbox.add(record("CRS-COPY-0003", []));
  await outbox.add(held("CRS-7K4M-2Q9D"));
  await outbox.add({ ...held("CRS-COPY-0005"), replyTo: { address: "Kept@example.gov" } });
  await outbox.release("CRS-COPY-0005", new Date(at({ hours: 4 })));
  await outbox.keep("CRS-COPY-0005");
  for (let index = 0; index < 20; index += 1) {
    await outbox.add(record(`CRS-MANY-${String(index).padStart(4, "0")}`));
  }
};

/** What a store says it holds, in one order whatever the store's own. */
const holdings = async (outbox: Store) => {
  const { records, attempts, releases } = await outbox.read();
  const byReference = <T extends { reference: string }>(items: readonly T[]) =>
    [...items].sort((a, b) => a.reference.localeCompare(b.reference));
  return {
    records: byReference(records),
    attempts: [...attempts].sort((a, b) => a.reference.localeCompare(b.reference) || a.at.localeCompare(b.at)),
    releases: byReference(releases),
    states: byReference(
      (await outbox.entries(3)).entries.map((entry) => ({ ...entry, reference: entry.record.reference })),
    ),
    kept: (await outbox.inquiriesFrom("kept@example.gov")).map((inquiry) => [inquiry.record.reference, inquiry.kept]),
  };
};

describe.each([SQL_SQLITE, SQL_POSTGRES])("copying a Blobs store into the SQL store on %s", (kind) => {
  sqlStores.databasePerTest(kind);

  it("copies every inquiry with its state and attempts once, and adds nothing when run again", async () => {
    const blobs = blobsOutbox();
    await fillBlobs(blobs);
    const before = await holdings(blobs);
    const sql = sqlStores.outbox(kind, dir);
    expect(await copyFromBlobs(blobs, sql)).toEqual({
      found: { inquiries: 25, attempts: 3, damaged: 0 },
      copied: { inquiries: 25, attempts: 3 },
    });
    expect(await holdings(sql)).toEqual(before);
    expect(await copyFromBlobs(blobs, sql)).toEqual({
      found: { inquiries: 25, attempts: 3, damaged: 0 },
      copied: { inquiries: 0, attempts: 0 },
    });
    expect(await holdings(sql)).toEqual(before);
    // The idempotency keys came along: a repeat of the form's post is answered with the copied inquiry.
    expect(await sql.add({ ...record("CRS-COPY-0009"), idempotencyKey: "key-copy-0001" })).toEqual({
      reference: "CRS-COPY-0001",
      created: false,
    });
  }, 30_000);

  it("keeps a held inquiry's release link working: same reference, same arrival, still held until released", async () => {
    const blobs = blobsOutbox();
    await fillBlobs(blobs);
    const heldRecord = (await blobs.stored("CRS-7K4M-2Q9D"))?.record;
    if (!heldRecord) throw new Error("no held inquiry");
    const link = new URL(
      releaseUrl("https://www.example.com", SECRET, "CRS-7K4M-2Q9D", quarantineEndsAt(heldRecord, delivery.retention)),
    );
    const sql = sqlStores.outbox(kind, dir);
    await copyFromBlobs(blobs, sql);
    const copied = await sql.stored("CRS-7K4M-2Q9D");
    expect(copied?.record).toEqual(heldRecord);
    expect((await sql.entry("CRS-7K4M-2Q9D", 3))?.state).toBe("quarantined");
    // The link made on Blobs, followed and confirmed on the database: it releases the copied inquiry.
    const releases = createReleaseHandler({
      content,
      config: () =>
        readInquiryConfig(delivery, { INQUIRY_RELEASE_SECRET: SECRET, INQUIRY_RELEASE_ORIGIN: link.origin }),
      log: pino({ level: "silent" }),
      now: () => new Date(at({ days: 1 })),
    });
    const confirmed = await releases.handle(
      {
        method: "POST",
        query: "",
        contentType: "application/x-www-form-urlencoded",
        body: link.searchParams.toString(),
        host: link.host,
        origin: link.origin,
        secFetchSite: "same-origin",
      },
      sql,
    );
    expect(confirmed?.released).toBe("CRS-7K4M-2Q9D");
    expect((await sql.entry("CRS-7K4M-2Q9D", 3))?.state).not.toBe("quarantined");
  }, 30_000);
});

describe("npm run inquiries -- --copy-from-blobs", () => {
  it("copies a site's Blobs store into the configured database and says what it copied, then that nothing was new", async () => {
    await fillBlobs(blobsOutbox());
    const { INQUIRY_OUTBOX: _blobs, INQUIRY_BLOBS_STORE: _store, ...access } = blobsServer.env(store);
    const args = ["--copy-from-blobs", "--store", store];
    const env = { ...access, INQUIRY_DATA_DIR: dir };
    const first = await runInquiries(args, env);
    expect([first.code, first.stdout.trim()]).toEqual([
      0,
      `Copied 25 inquiries and 3 attempts from Netlify Blobs store "${store}" of site ${access.NETLIFY_SITE_ID ?? ""} into ${path.join(dir, "inquiries.sqlite")} (it holds 25 inquiries, 3 attempts, 0 damaged).`,
    ]);
    const second = await runInquiries(args, env);
    expect([second.code, second.stdout.trim()]).toEqual([
      0,
      expect.stringMatching(
        /^Copied 0 inquiries and 0 attempts from .* \(it holds 25 inquiries, 3 attempts, 0 damaged\)\.$/,
      ),
    ]);
  }, 30_000);
});
