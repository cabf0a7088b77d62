/**
 * The outbox, for whoever answers inquiries. Reads the same environment as the server
 * (INQUIRY_OUTBOX, INQUIRY_DATA_DIR, SMTP_URL, INQUIRY_TO, INQUIRY_FROM, INQUIRY_WEBHOOK_URL, ...).
 * The CDN deploy's outbox is a Netlify Blobs store: give the site's ID and a personal access token,
 * as flags or as NETLIFY_SITE_ID and NETLIFY_BLOBS_TOKEN (or NETLIFY_AUTH_TOKEN):
 *
 *   npm run inquiries -- --site <site ID> --token <token> [--store inquiries] ...
 *
 *   npm run inquiries                       every inquiry and where it stands
 *   npm run inquiries -- --state pending    only those in one state (pending, dead, quarantined, delivered, stored)
 *   npm run inquiries -- --show CRS-XXXX-XXXX   one inquiry in full
 *   npm run inquiries -- --release CRS-XXXX-XXXX   let a quarantined inquiry through to delivery
 *   npm run inquiries -- --retry            deliver every undelivered inquiry now, dead letters included
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { configuredTransports, readInquiryConfig } from "../src/inquiry/server/config";
import { readInquiryContent } from "../src/inquiry/server/content-on-disk";
import { deliverEntries } from "../src/inquiry/server/delivery-worker";
import { openOutbox } from "../src/inquiry/server/open-outbox";
import type { EntryState, OutboxEntry } from "../src/inquiry/server/outbox";

const STATES: readonly EntryState[] = ["pending", "dead", "quarantined", "delivered", "stored"];
// The server's worker or a scheduled delivery may be in the middle of a pass; a retry waits this long for its turn.
const LOCK_WAIT_MS = 60_000;

const { values: options } = parseArgs({
  options: {
    retry: { type: "boolean", default: false },
    state: { type: "string" },
    pending: { type: "boolean", default: false },
    show: { type: "string" },
    release: { type: "string", multiple: true },
    site: { type: "string" },
    token: { type: "string" },
    store: { type: "string" },
  },
});

const describe = (entry: OutboxEntry) => {
  const deliveries = Object.entries(entry.deliveries).map(
    ([transport, state]) =>
      `${transport} ${state}${state === "failed" || state === "dead" ? ` ×${entry.attemptsByTransport[transport as keyof typeof entry.attemptsByTransport] ?? 0}` : ""}`,
  );
  return [
    entry.record.reference,
    entry.record.receivedAt,
    entry.record.values.inquiryType.padEnd(8),
    entry.state.padEnd(11),
    entry.state === "quarantined" ? `(${entry.record.quarantine?.reason ?? "held"})` : "",
    deliveries.length ? deliveries.join(", ") : "no transport was configured",
    entry.state === "pending" && entry.dueAt ? `next try ${entry.dueAt}` : "",
  ]
    .filter(Boolean)
    .join("  ");
};

const main = async (): Promise<number> => {
  const content = readInquiryContent(path.resolve("content"));
  // A site named on the command line means its Blobs store, whatever the environment says.
  const blobs = options.site ?? options.token ?? options.store;
  const config = readInquiryConfig(content.form.delivery, {
    ...process.env,
    ...(blobs ? { INQUIRY_OUTBOX: "blobs" } : {}),
    ...(options.site ? { NETLIFY_SITE_ID: options.site } : {}),
    ...(options.token ? { NETLIFY_BLOBS_TOKEN: options.token } : {}),
    ...(options.store ? { INQUIRY_BLOBS_STORE: options.store } : {}),
  });
  if (config.outbox === "blobs" && !(config.blobs.siteID && config.blobs.token)) {
    console.error(
      "The Blobs outbox needs the site's ID and a token: --site and --token, or NETLIFY_SITE_ID and NETLIFY_BLOBS_TOKEN.",
    );
    return 1;
  }
  const outbox = openOutbox(config);
  const read = async () => {
    const { entries, damagedLines } = await outbox.entries(config.delivery.maxAttempts);
    if (damagedLines > 0) console.warn(`${damagedLines} damaged record(s) in ${outbox.location} were skipped.`);
    return entries;
  };
  const entries = await read();

  if (options.show) {
    const entry = entries.find((candidate) => candidate.record.reference === options.show);
    if (!entry) {
      console.error(`No inquiry ${options.show} in ${outbox.location}.`);
      return 1;
    }
    console.log(describe(entry));
    for (const field of entry.record.fields) console.log(`${field.label}: ${field.value}`);
    return 0;
  }

  if (options.release) {
    for (const reference of options.release) {
      const entry = entries.find((candidate) => candidate.record.reference === reference);
      if (entry?.state !== "quarantined") {
        console.error(`${reference} is not a quarantined inquiry in ${outbox.location}.`);
        return 1;
      }
      await outbox.release(reference);
      console.log(`${reference} released: the next delivery pass delivers it (or run --retry).`);
    }
    return 0;
  }

  if (!options.retry) {
    const wanted = options.pending ? "pending" : options.state;
    if (wanted && !STATES.includes(wanted as EntryState)) {
      console.error(`--state takes one of ${STATES.join(", ")}.`);
      return 1;
    }
    const counts = STATES.map((state) => `${entries.filter((entry) => entry.state === state).length} ${state}`);
    console.log(`${entries.length} inquiries in ${outbox.location}: ${counts.join(", ")}.`);
    for (const entry of entries.filter((candidate) => !wanted || candidate.state === wanted)) {
      console.log(describe(entry));
    }
    return 0;
  }

  if (config.problems.length > 0) {
    console.error(`Cannot retry: ${config.problems.join("; ")}.`);
    return 1;
  }
  const outcome = await outbox.whileDelivering(
    async (lease) => {
      // Read again under the lock: the server may have delivered some meanwhile.
      // Stored ones (kept while no transport was configured) are undelivered too: the backlog goes now.
      const undelivered = (await read()).filter(
        (entry) =>
          entry.state === "pending" ||
          entry.state === "dead" ||
          (entry.state === "stored" && configuredTransports(config).length > 0),
      );
      const summary = await deliverEntries(
        undelivered,
        outbox,
        config,
        (line) => console.log(line),
        () => new Date(),
        {
          retryDead: true,
          stopping: () => !lease.mayStart(),
        },
      );
      return { tried: undelivered.length, ...summary };
    },
    LOCK_WAIT_MS,
    (error) => console.error(`The outbox's delivery lock was lost during the retry: ${error.message}`),
  );
  if (!outcome) {
    console.error(`Another delivery held the outbox's lock for over ${LOCK_WAIT_MS / 1000} s; nothing was retried.`);
    return 1;
  }
  const { tried, delivered, failed } = outcome.value;
  console.log(`Retried ${tried} undelivered inquiries: ${delivered} delivered, ${failed} still undelivered.`);
  // Only a lease that ran short (a stalled or very long run) leaves some untried.
  const untried = tried - delivered - failed;
  if (untried > 0) console.log(`${untried} were not tried this time: run --retry again.`);
  return failed > 0 || untried > 0 ? 1 : 0;
};

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
