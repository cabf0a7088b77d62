/**
 * @jest-environment node
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { getStore } from "@netlify/blobs";
import pino from "pino";
import { readInquiryConfig } from "../server/inquiries/config";
import { readInquiryContent } from "../server/inquiries/content-on-disk";
import type { InquiryOutbox } from "../server/inquiries/store/sql-outbox";
import { createReleaseHandler } from "../server/inquiries/held/release";
import { quarantineEndsAt, releaseUrl } from "../server/inquiries/held/release-link";
import { copyFromBlobs, type BlobsSource } from "../server/inquiries/store/copy-from-blobs";
import { startBlobsServer, type LocalBlobsServer } from "../testing/blobs-server";
import { runInquiries, sampleRecord } from "./support/outbox-fixtures";
import { SQL_POSTGRES, SQL_SQLITE, useSqlStores } from "./support/sql-stores";
import { inquiriesFrom, storedInquiry } from "../server/inquiries/privacy/requests";

/**
 * Copying a site's inquiries from the Blobs store its earlier outbox wrote into the SQL store, on both engines:
 * everything arrives once, a second copy adds nothing, and a held inquiry's release link still works.
 *
 * The store is fixtures/blobs-layout-1/store.json, every key and value of a store that outbox filled (an inquiry
 * in each state, a release, a mark to keep, attempts), written by the last release that had it; holdings.json is
 * what that outbox read back from it. Each test puts the keys into a new store of @netlify/blobs' local server.
 */

const content = readInquiryContent(path.resolve("content"));
const { delivery } = content.form;
const FIXTURES = path.join(__dirname, "fixtures/blobs-layout-1");
const fixture = (file: string): unknown => JSON.parse(readFileSync(path.join(FIXTURES, file), "utf8"));
const blobsEntries = fixture("store.json") as Record<string, unknown>;
/** What the Blobs outbox said it held: inquiries, attempts, releases, each one's state, and the kept one. */
const heldOnBlobs = fixture("holdings.json") as Awaited<ReturnType<typeof holdings>>;
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

/** The access @netlify/blobs finds where Netlify gives a function its store (NETLIFY_BLOBS_CONTEXT), to the local server. */
const blobsContext = () => ({ NETLIFY_BLOBS_CONTEXT: blobsServer.functionContext() });

/** A store on the local server holding the fixture's keys, as that outbox left them. */
const filledBlobs = async (): Promise<BlobsSource> => {
  const { siteID, token, url } = blobsServer;
  const direct = { siteID, token, edgeURL: url, uncachedEdgeURL: url };
  const blobs = getStore({ name: store, consistency: "strong", ...direct });
  for (const [key, value] of Object.entries(blobsEntries)) await blobs.setJSON(key, value);
  return { store: blobs, location: `Netlify Blobs store "${store}"` };
};

/** What a store says it holds, in one order whatever the store's own. */
const holdings = async (outbox: InquiryOutbox) => {
  const { records, attempts, releases } = await outbox.read();
  const byReference = <T extends { reference: string }>(items: readonly T[]) =>
    [...items].sort((a, b) => a.reference.localeCompare(b.reference));
  return {
    records: byReference(records),
    attempts: [...attempts].sort((a, b) => a.reference.localeCompare(b.reference) || a.at.localeCompare(b.at)),
    releases: byReference(releases),
    states: byReference((await outbox.entries(3)).map((entry) => ({ ...entry, reference: entry.record.reference }))),
    kept: (await inquiriesFrom(outbox, "kept@example.gov")).map((inquiry) => [inquiry.record.reference, inquiry.kept]),
  };
};

describe.each([SQL_SQLITE, SQL_POSTGRES])("copying a Blobs store into the SQL store on %s", (kind) => {
  sqlStores.databasePerTest(kind);

  it("copies every inquiry with its state and attempts once, and adds nothing when run again", async () => {
    const blobs = await filledBlobs();
    const sql = sqlStores.outbox(kind, dir);
    expect(await copyFromBlobs(blobs, sql)).toEqual({
      found: { inquiries: 25, attempts: 3, damaged: 0 },
      copied: { inquiries: 25, attempts: 3 },
    });
    expect(await holdings(sql)).toEqual(heldOnBlobs);
    expect(await copyFromBlobs(blobs, sql)).toEqual({
      found: { inquiries: 25, attempts: 3, damaged: 0 },
      copied: { inquiries: 0, attempts: 0 },
    });
    expect(await holdings(sql)).toEqual(heldOnBlobs);
    // The idempotency keys came along: a repeat of the form's post is answered with the copied inquiry.
    expect(await sql.add({ ...sampleRecord("CRS-COPY-0009"), idempotencyKey: "key-copy-0001" })).toEqual({
      reference: "CRS-COPY-0001",
      created: false,
    });
  }, 30_000);

  it("refuses a store of a later layout, or not an inquiry store, and copies nothing from it", async () => {
    const blobs = await filledBlobs();
    await blobs.store.setJSON("meta/layout", { version: 2 });
    const sql = sqlStores.outbox(kind, dir);
    await expect(copyFromBlobs(blobs, sql)).rejects.toThrow(
      `Netlify Blobs store "${store}" records layout version 2, and this release of the site reads version 1`,
    );
    expect((await sql.read()).records).toEqual([]);
  }, 30_000);

  it("keeps a held inquiry's release link working: same reference, same arrival, still held until released", async () => {
    const blobs = await filledBlobs();
    const heldRecord = heldOnBlobs.records.find(({ reference }) => reference === "CRS-7K4M-2Q9D");
    if (!heldRecord) throw new Error("no held inquiry in the fixture");
    const link = new URL(
      releaseUrl("https://www.example.com", SECRET, "CRS-7K4M-2Q9D", quarantineEndsAt(heldRecord, delivery.retention)),
    );
    const sql = sqlStores.outbox(kind, dir);
    await copyFromBlobs(blobs, sql);
    const copied = await storedInquiry(sql, "CRS-7K4M-2Q9D");
    expect(copied?.record).toEqual(heldRecord);
    expect((await sql.entry("CRS-7K4M-2Q9D", 3))?.state).toBe("quarantined");
    // The link made on Blobs, followed and confirmed on the database: it releases the copied inquiry.
    const releases = createReleaseHandler({
      content,
      config: () =>
        readInquiryConfig(delivery, { INQUIRY_RELEASE_SECRET: SECRET, INQUIRY_RELEASE_ORIGIN: link.origin }),
      log: pino({ level: "silent" }),
      now: () => new Date(Date.parse(heldRecord.receivedAt) + 24 * 60 * 60 * 1000),
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
    await filledBlobs();
    const args = ["--copy-from-blobs", "--store", store];
    const env = { ...blobsContext(), INQUIRY_DATA_DIR: dir };
    const first = await runInquiries(args, env);
    expect([first.code, first.stdout.trim()]).toEqual([
      0,
      `Copied 25 inquiries and 3 attempts from Netlify Blobs store "${store}" into ${path.join(dir, "inquiries.sqlite")} (it holds 25 inquiries, 3 attempts, 0 damaged).`,
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
