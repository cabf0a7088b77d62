/**
 * @jest-environment node
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readInquiryConfig, type InquiryConfig } from "../server/inquiries/config";
import { readInquiryContent } from "../server/inquiries/content-on-disk";
import { openOutbox } from "../server/inquiries/store/open-outbox";
import type { OutboxRecord } from "../server/inquiries/store/outbox";
import { createReleaseFunction } from "../server/inquiries/netlify/release-function";
import { quarantineEndsAt, RELEASE_PATH, releaseUrl } from "../server/inquiries/held/release-link";
import { resultPagePolicy } from "../server/inquiries/intake/result-page";
import { commonHeaders } from "../server/site/common-headers";
import { callFunction } from "../testing/gatsby-function-call";
import { startWebhookReceiver } from "../testing/loopback-servers";
import { startInquiryApp } from "./support/inquiry-app";
import { heldRecord, RELEASE_LINKS_ENV, RELEASE_ORIGIN, RELEASE_SECRET, visitor } from "./support/held-inquiries";
import { lineLog } from "../server/inquiries/operational-log";
import { SQL_POSTGRES, useSqlStores } from "./support/sql-stores";

/**
 * The release link of the digest of held inquiries (server/inquiries/held/release.ts): the page it opens changes
 * nothing, its button releases the inquiry once, and a forged, altered, expired or used link is refused with a
 * page saying so, and nothing changes. On the single server (its route) and on Netlify (the Gatsby function,
 * over Postgres as over Netlify Database).
 */

const content = readInquiryContent(path.resolve("content"));
const { delivery } = content.form;
const copy = content.form.held.releasePage;

/** A held inquiry that arrived an hour ago: its link is good for 30 days less an hour. */
const heldAnHourAgo = (reference: string, reason = "honeypot filled"): OutboxRecord =>
  heldRecord(reference, new Date(Date.now() - 3_600_000).toISOString(), reason);

/** The path and query of the link the digest gives for `record`, signed with `secret`, ending when `expiresAt` says. */
const linkFor = (
  record: OutboxRecord,
  { secret = RELEASE_SECRET, expiresAt = quarantineEndsAt(record, delivery.retention) } = {},
) => {
  const url = new URL(releaseUrl(RELEASE_ORIGIN, secret, record.reference, expiresAt));
  return `${url.pathname}${url.search}`;
};
/** The link's fields, as the page's form posts them back. */
const fieldsOf = (link: string) => new URL(link, RELEASE_ORIGIN).searchParams;
/** A deploy preview's address: the same site's code, at another host than the release origin's. */
const PREVIEW_ORIGIN = "https://deploy-preview-42--cardinal-ridge.netlify.app";
const withField = (link: string, name: string, value: string) => {
  const fields = fieldsOf(link);
  fields.set(name, value);
  return `${RELEASE_PATH}?${fields.toString()}`;
};

let dir: string;
let logs: string[];
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "inquiry-release-"));
  logs = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const expectNoVisitorInLogs = () => {
  for (const text of Object.values(visitor)) expect(logs.join("\n")).not.toContain(text);
};

describe("/api/inquiry-release on the single server", () => {
  let hook: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let app: Awaited<ReturnType<typeof startInquiryApp>>;
  let config: InquiryConfig;
  const start = async (env: NodeJS.ProcessEnv = {}) => {
    config = readInquiryConfig(delivery, {
      INQUIRY_DATA_DIR: dir,
      INQUIRY_WEBHOOK_URL: hook.url,
      ...RELEASE_LINKS_ENV,
      INQUIRY_DIGEST_HOUR: "off",
      ...env,
    });
    app = await startInquiryApp({ content, config: () => config, log: (line) => logs.push(line), listen: false });
  };
  beforeEach(async () => {
    hook = await startWebhookReceiver(204);
  });
  afterEach(async () => {
    await app.close();
    await hook.close();
  });

  // Through app.inject(), whose Host is the address's: the release origin's, where the desk opens its links.
  const get = (link: string, at = RELEASE_ORIGIN) => app.fetch(`${at}${link}`);
  const post = (
    link: string,
    headers: Record<string, string> = { "Sec-Fetch-Site": "same-origin" },
    at = RELEASE_ORIGIN,
  ) =>
    app.fetch(`${at}${RELEASE_PATH}`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
      body: fieldsOf(link).toString(),
    });
  const stateOf = async (reference: string) =>
    (await openOutbox(config).entry(reference, config.delivery.maxAttempts))?.state;

  it("opens a page that says what a release does, with one button, and changes nothing", async () => {
    await start();
    const record = heldAnHourAgo("CRS-7K4M-2Q9D");
    await openOutbox(config).add(record);
    const link = linkFor(record);
    for (const method of ["GET", "HEAD"]) {
      const page = await app.fetch(`${RELEASE_ORIGIN}${link}`, { method });
      expect([method, page.status]).toEqual([method, 200]);
      expect(page.headers.get("content-security-policy")).toBe(resultPagePolicy);
      expect(page.headers.get("referrer-policy")).toBe("no-referrer");
      expect(page.headers.get("cache-control")).toBe("no-store");
      // The site's headers, from its _headers file, as every answer of the server carries them.
      for (const [name, value] of Object.entries(commonHeaders).filter(([name]) => name !== "Referrer-Policy"))
        expect([name, page.headers.get(name)]).toEqual([name, value]);
    }
    const html = await (await get(link)).text();
    expect(html).toContain(`<h1>${copy.title}</h1>`);
    expect(html).toContain("<strong>CRS-7K4M-2Q9D</strong>");
    expect(html).toContain(content.form.held.reasons.honeypot);
    expect(html).toMatch(new RegExp(`<form method="post" action="${RELEASE_PATH}">`));
    expect(html.match(/<button type="submit">/g)).toHaveLength(1);
    expect(html).not.toContain("<script");
    // The page is no place for what the sender wrote: the digest has it.
    expect(html).not.toContain(visitor.address);
    // Opening the link, any number of times (a mail scanner does), releases nothing.
    await get(link);
    await app.delivered();
    expect([await stateOf("CRS-7K4M-2Q9D"), hook.received.length]).toEqual(["quarantined", 0]);
  });

  it("releases with the button, and the inquiry is delivered once; the same link again changes nothing", async () => {
    await start();
    const record = heldAnHourAgo("CRS-7K4M-2Q9D");
    await openOutbox(config).add(record);
    const link = linkFor(record);
    const released = await post(link);
    expect(released.status).toBe(200);
    expect(await released.text()).toContain(`<h1>${copy.releasedTitle}</h1>`);
    await app.delivered();
    expect(hook.received.map((request) => request.headers["x-inquiry-reference"])).toEqual(["CRS-7K4M-2Q9D"]);
    expect(await stateOf("CRS-7K4M-2Q9D")).toBe("delivered");

    // Replayed, by the button or the link: refused, and nothing more is delivered.
    const replayed = await post(link);
    expect(replayed.status).toBe(409);
    expect(await replayed.text()).toContain(`<h1>${copy.refusedTitle}</h1>`);
    expect((await get(link)).status).toBe(409);
    await app.delivered();
    expect(hook.received).toHaveLength(1);
    expect(logs).toContain("CRS-7K4M-2Q9D released from quarantine through the digest's link");
    expect(logs.filter((line) => line.includes("released from quarantine"))).toHaveLength(1);
    expectNoVisitorInLogs();
  });

  it("releases once when the button is sent twice at once", async () => {
    await start();
    const record = heldAnHourAgo("CRS-7K4M-2Q9D");
    await openOutbox(config).add(record);
    const answers = await Promise.all([post(linkFor(record)), post(linkFor(record))]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    await app.delivered();
    expect(hook.received).toHaveLength(1);
  });

  it("refuses a forged or altered link with a page saying so, and changes nothing", async () => {
    await start();
    const first = heldAnHourAgo("CRS-7K4M-2Q9D");
    const second = heldAnHourAgo("CRS-8P3R-5T6V");
    await openOutbox(config).add(first);
    await openOutbox(config).add(second);
    const link = linkFor(first);
    const fields = fieldsOf(link);
    const signature = fields.get("sig") ?? "";
    const altered = [
      // Another inquiry's reference under this one's signature.
      withField(link, "ref", "CRS-8P3R-5T6V"),
      // A later expiry.
      withField(link, "expires", String(Number(fields.get("expires")) + 86_400)),
      // A signature changed by one character.
      withField(link, "sig", `${signature.slice(0, -1)}${signature.endsWith("A") ? "B" : "A"}`),
      // Signed with another key.
      linkFor(second, { secret: "f".repeat(64) }),
      // Not a link at all.
      `${RELEASE_PATH}?ref=CRS-8P3R-5T6V`,
      RELEASE_PATH,
    ];
    for (const forged of altered) {
      for (const answer of [await get(forged), await post(forged)]) {
        expect([forged, answer.status]).toEqual([forged, 400]);
        const html = await answer.text();
        expect(html).toContain(`<h1>${copy.refusedTitle}</h1>`);
        expect(html).not.toContain("<form");
      }
    }
    await app.delivered();
    expect([await stateOf("CRS-7K4M-2Q9D"), await stateOf("CRS-8P3R-5T6V"), hook.received.length]).toEqual([
      "quarantined",
      "quarantined",
      0,
    ]);
    // A link that is not genuine is logged without what it carries.
    expect(logs.filter((line) => line.startsWith("release link refused"))).toHaveLength(altered.length * 2);
    expect(logs.filter((line) => line.startsWith("release link refused") && line.includes("CRS-"))).toEqual([]);
  });

  it("refuses an expired link, and a link to an inquiry no longer stored", async () => {
    await start();
    const record = heldAnHourAgo("CRS-7K4M-2Q9D");
    await openOutbox(config).add(record);
    const expired = linkFor(record, { expiresAt: new Date(Date.now() - 1_000) });
    for (const answer of [await get(expired), await post(expired)]) {
      expect(answer.status).toBe(410);
      expect(await answer.text()).toContain(copy.expiredText);
    }
    const gone = linkFor(heldAnHourAgo("CRS-9W2X-4Y7Z"));
    const answer = await post(gone);
    expect(answer.status).toBe(410);
    expect(await answer.text()).toContain("<strong>CRS-9W2X-4Y7Z</strong> is no longer stored");
    expect(await stateOf("CRS-7K4M-2Q9D")).toBe("quarantined");
  });

  it("refuses the button sent from another site", async () => {
    await start();
    const record = heldAnHourAgo("CRS-7K4M-2Q9D");
    await openOutbox(config).add(record);
    const fromElsewhere: Record<string, string>[] = [
      { "Sec-Fetch-Site": "cross-site" },
      { Origin: "https://elsewhere.example" },
    ];
    for (const headers of fromElsewhere) {
      const answer = await post(linkFor(record), headers);
      expect(answer.status).toBe(403);
      expect(await answer.text()).toContain(copy.crossSiteText.replace("'", "&#39;"));
    }
    expect(await stateOf("CRS-7K4M-2Q9D")).toBe("quarantined");
  });

  it("answers 429 past its own limit of 20 requests a minute from one address, whatever they carry", async () => {
    await start();
    const record = heldAnHourAgo("CRS-7K4M-2Q9D");
    await openOutbox(config).add(record);
    const statuses: number[] = [];
    for (let index = 0; index < 21; index += 1)
      statuses.push((await get(withField(linkFor(record), "sig", "x"))).status);
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(400));
    expect(statuses[20]).toBe(429);
    expect((await post(linkFor(record))).status).toBe(429);
    expect(await stateOf("CRS-7K4M-2Q9D")).toBe("quarantined");
  });

  it("is not there at another host than INQUIRY_RELEASE_ORIGIN's, as at a deploy preview's", async () => {
    await start();
    const record = heldAnHourAgo("CRS-7K4M-2Q9D");
    await openOutbox(config).add(record);
    const link = linkFor(record);
    for (const elsewhere of [app.origin, PREVIEW_ORIGIN]) {
      expect([elsewhere, (await get(link, elsewhere)).status]).toEqual([elsewhere, 404]);
      expect([elsewhere, (await post(link, { "Sec-Fetch-Site": "same-origin" }, elsewhere)).status]).toEqual([
        elsewhere,
        404,
      ]);
    }
    await app.delivered();
    expect([await stateOf("CRS-7K4M-2Q9D"), hook.received.length]).toEqual(["quarantined", 0]);
    expect(logs.filter((line) => line.endsWith("not at INQUIRY_RELEASE_ORIGIN's host: answered as not found"))).toEqual(
      [
        'release page asked for at "site.test", not at INQUIRY_RELEASE_ORIGIN\'s host: answered as not found',
        'release page asked for at "site.test", not at INQUIRY_RELEASE_ORIGIN\'s host: answered as not found',
        'release page asked for at "deploy-preview-42--cardinal-ridge.netlify.app", not at INQUIRY_RELEASE_ORIGIN\'s host: answered as not found',
        'release page asked for at "deploy-preview-42--cardinal-ridge.netlify.app", not at INQUIRY_RELEASE_ORIGIN\'s host: answered as not found',
      ],
    );
    expect((await get(link)).status).toBe(200);
  });

  it("is not there where release links are not set up", async () => {
    await start({ INQUIRY_RELEASE_SECRET: "" });
    const record = heldAnHourAgo("CRS-7K4M-2Q9D");
    await openOutbox(config).add(record);
    expect((await get(linkFor(record))).status).toBe(404);
    expect((await post(linkFor(record))).status).toBe(404);
    expect(await stateOf("CRS-7K4M-2Q9D")).toBe("quarantined");
  });
});

describe("/api/inquiry-release as the Gatsby Function Netlify runs, on Postgres", () => {
  const sqlStores = useSqlStores();
  sqlStores.databasePerTest(SQL_POSTGRES);

  it("shows the page, releases with the button and delivers before answering, once, and refuses its own address", async () => {
    const hook = await startWebhookReceiver(204);
    const config = readInquiryConfig(delivery, {
      INQUIRY_DATABASE_URL: sqlStores.postgresUrl,
      INQUIRY_WEBHOOK_URL: hook.url,
      ...RELEASE_LINKS_ENV,
    });
    try {
      const fn = createReleaseFunction({
        content,
        siteHeaders: commonHeaders,
        config: () => config,
        log: lineLog((line) => logs.push(line)),
      });
      const direct = openOutbox(config);
      const record = heldAnHourAgo("CRS-7K4M-2Q9D", "sent too fast");
      await direct.add(record);
      const link = linkFor(record);
      const call = (method: string, url: string, body = "", headers: Record<string, string> = {}) =>
        callFunction(fn, body, {
          method,
          url,
          remoteAddress: null,
          bodyIn: "adapter",
          contentType: "application/x-www-form-urlencoded",
          headers: { host: new URL(RELEASE_ORIGIN).host, "sec-fetch-site": "same-origin", ...headers },
        });

      const page = await call("GET", link);
      expect(page.status).toBe(200);
      expect(page.body).toContain(content.form.held.reasons.tooFast);
      expect(page.headers["content-security-policy"]).toBe(resultPagePolicy);
      for (const [name, value] of Object.entries(commonHeaders).filter(([name]) => name !== "Referrer-Policy"))
        expect([name, page.headers[name.toLowerCase()]]).toEqual([name, value]);
      expect((await direct.entry("CRS-7K4M-2Q9D", 8))?.state).toBe("quarantined");

      // A deploy preview, given production's secret and origin, at its own address: no page, nothing released.
      const atPreview = { host: new URL(PREVIEW_ORIGIN).host };
      expect((await call("GET", link, "", atPreview)).status).toBe(404);
      expect((await call("POST", RELEASE_PATH, fieldsOf(link).toString(), atPreview)).status).toBe(404);
      expect((await direct.entry("CRS-7K4M-2Q9D", 8))?.state).toBe("quarantined");
      // The release origin's host with its default port named, as a client may send it: the page.
      expect((await call("GET", link, "", { host: `${new URL(RELEASE_ORIGIN).host}:443` })).status).toBe(200);

      const released = await call("POST", RELEASE_PATH, fieldsOf(link).toString());
      expect(released.status).toBe(200);
      expect(hook.received.map((request) => request.headers["x-inquiry-reference"])).toEqual(["CRS-7K4M-2Q9D"]);
      expect((await direct.entry("CRS-7K4M-2Q9D", 8))?.state).toBe("delivered");

      const replayed = await call("POST", RELEASE_PATH, fieldsOf(link).toString());
      expect(replayed.status).toBe(409);
      const forged = await call("POST", RELEASE_PATH, fieldsOf(withField(link, "ref", "CRS-8P3R-5T6V")).toString());
      expect(forged.status).toBe(400);
      const crossSite = await call("POST", RELEASE_PATH, fieldsOf(link).toString(), { "sec-fetch-site": "cross-site" });
      expect(crossSite.status).toBe(403);
      expect(hook.received).toHaveLength(1);
      expect(
        (await call("GET", `/.netlify/functions/inquiry-release-js${new URL(link, "https://x").search}`)).status,
      ).toBe(404);
      expect(logs).toContain("CRS-7K4M-2Q9D released from quarantine through the digest's link");
      expectNoVisitorInLogs();
    } finally {
      await openOutbox(config).close();
      await hook.close();
    }
  });
});
