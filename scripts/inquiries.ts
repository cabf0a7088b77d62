// First: on too old a Node this stops with the version to install, before any other import can fail.
import "../server/require-node";
import { existsSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline/promises";
import { inquiryConfigOf, inquirySettings, transportProblems } from "../server/inquiries/config";
import { readInquiryContent } from "../server/inquiries/content-on-disk";
import { runQueue } from "../server/inquiries/delivery/delivery-worker";
import {
  eraseInquiries,
  inquiriesFrom,
  keepInquiry,
  storedInquiry,
  type StoredInquiry,
} from "../server/inquiries/privacy/requests";
import { removeExpired, retentionLine } from "../server/inquiries/privacy/retention";
import { openOutbox } from "../server/inquiries/store/open-outbox";
import { UnknownReferenceError, type EntryState, type OutboxEntry } from "../server/inquiries/store/outbox";
import { copyFromBlobs, openBlobsSource } from "../server/inquiries/store/copy-from-blobs";
import { InquiryOutbox } from "../server/inquiries/store/sql-outbox";
import { DATABASE_FILE } from "../server/inquiries/store/sqlite";
import { projectRoot } from "../server/project";
import { readCommandLine } from "./command-line";
import { readSettings, settingsPart } from "../server/settings/catalog";
import { lineLog } from "../server/inquiries/operational-log";

const INTRO = `
inquiries: the outbox, for whoever answers inquiries. It reads the same environment as the server
(INQUIRY_DATA_DIR or INQUIRY_DATABASE_URL, SMTP_URL, INQUIRY_TO, INQUIRY_FROM, INQUIRY_WEBHOOK_URL, ...). On the single server run it
as \`sudo cardinal-site inquiries ...\` (docs/deploy-server.md); in a checkout, \`npm run --silent inquiries -- ...\`.
For the Netlify deploy, set NETLIFY_DB_URL to the connection string of the project's Netlify Database (not
INQUIRY_DATABASE_URL, whose database the store migrates itself: Netlify's deploy migrates that one).
`;

const OUTRO = `
It says on stderr which store it reads. Without the service's environment (no INQUIRY_DATA_DIR) where ./.data
holds no database, it stops instead of listing an empty store.
`;

const STATES: readonly EntryState[] = ["pending", "dead", "quarantined", "delivered", "stored"];

const OPTIONS = {
  retry: { type: "boolean", default: false },
  state: { type: "string" },
  pending: { type: "boolean", default: false },
  show: { type: "string" },
  release: { type: "string", multiple: true },
  site: { type: "string" },
  token: { type: "string" },
  store: { type: "string" },
  keep: { type: "string", multiple: true },
  "export-email": { type: "string" },
  "erase-email": { type: "string" },
  erase: { type: "string", multiple: true },
  yes: { type: "boolean", default: false },
  backup: { type: "string" },
  limit: { type: "string" },
  after: { type: "string" },
  retention: { type: "boolean", default: false },
  "copy-from-blobs": { type: "boolean", default: false },
} as const;

type Options = ReturnType<typeof readCommandLine<typeof OPTIONS>>;
type Outbox = ReturnType<typeof openOutbox>;

/** What every command works on: the store, the settings it was opened with, and the site's content. */
interface Context {
  readonly options: Options;
  readonly outbox: Outbox;
  readonly config: ReturnType<typeof inquiryConfigOf>;
  readonly settings: CommandSettings;
  readonly content: ReturnType<typeof readInquiryContent>;
}

/** A command of the tool: the options that choose it, their help, and what it does (its exit code). */
interface Command {
  readonly help: readonly (readonly [string, string])[];
  readonly chosen: (options: Options) => boolean;
  readonly run: (context: Context) => Promise<number>;
}

/** Inquiries listed at once unless --limit says otherwise: a screenful, read a page at a time. */
const DEFAULT_PAGE = 50;

/** Asks on the terminal (or reads a line from stdin); anything but "yes" is no. */
const confirmed = async (question: string): Promise<boolean> => {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await Promise.race([
      prompt.question(question),
      new Promise<string>((resolve) => prompt.once("close", () => resolve(""))),
    ]);
    return answer.trim().toLowerCase() === "yes";
  } finally {
    prompt.close();
  }
};

const summaryOf = ({ record, attempts, kept }: StoredInquiry) =>
  `${record.reference}  ${record.receivedAt}  ${record.values.inquiryType}  ${record.replyTo.address}  ` +
  `${attempts.length} attempt(s)${kept ? "  marked kept" : ""}`;

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

/** How long ago, in the largest whole unit: "3 days", "5 hours", "12 minutes". */
const ageText = (ms: number): string => {
  const units: [string, number][] = [
    ["day", 86_400_000],
    ["hour", 3_600_000],
    ["minute", 60_000],
  ];
  for (const [unit, size] of units) {
    const count = Math.floor(ms / size);
    if (count >= 1) return `${count} ${unit}${count === 1 ? "" : "s"}`;
  }
  return "less than a minute";
};

/** One inquiry in full. */
const showOne = async ({ options, outbox, config }: Context): Promise<number> => {
  const show = options.show ?? "";
  const entry = await outbox.entry(show, config.delivery.maxAttempts);
  if (!entry) {
    console.error(`No inquiry ${show} in ${outbox.location}.`);
    return 1;
  }
  console.log(describe(entry));
  for (const field of entry.record.fields) console.log(`${field.label}: ${field.value}`);
  return 0;
};

/** What is past its retention, removed now. */
const retentionNow = async ({ outbox, config }: Context): Promise<number> => {
  const removed = await removeExpired(outbox, new Date(), config.retention);
  console.log(retentionLine(removed, config.retention));
  return 0;
};

/** A person's data: kept from retention, exported, erased; and the single server's backup. */
const personalData = async ({ options, outbox, config }: Context): Promise<number> => {
  if (options.backup) {
    if (config.outbox !== "sqlite") {
      console.error(`--backup copies the single server's SQLite database; ${outbox.location} is not one.`);
      return 1;
    }
    const pages = await outbox.backup(path.resolve(options.backup));
    console.log(`Backed up ${outbox.location} to ${path.resolve(options.backup)} (${pages} pages).`);
    return 0;
  }
  for (const reference of options.keep ?? []) {
    if (!(await keepInquiry(outbox, reference))) {
      console.error(`No inquiry ${reference} in ${outbox.location}.`);
      return 1;
    }
    console.log(`${reference} is kept: retention never removes it.`);
  }
  if (options["export-email"]) {
    console.log(JSON.stringify(await inquiriesFrom(outbox, options["export-email"]), null, 2));
  }
  const doomed = [
    ...(options["erase-email"] ? await inquiriesFrom(outbox, options["erase-email"]) : []),
    ...(await Promise.all((options.erase ?? []).map((reference) => storedInquiry(outbox, reference)))).filter(
      (found): found is StoredInquiry => found !== null,
    ),
  ];
  if (options["erase-email"] !== undefined || options.erase !== undefined) {
    if (doomed.length === 0) {
      console.error(`Nothing to erase: no such inquiry in ${outbox.location}.`);
      return 1;
    }
    console.log(`To be removed for good, with their delivery attempts and idempotency keys:`);
    for (const inquiry of doomed) console.log(`  ${summaryOf(inquiry)}`);
    if (!options.yes && !(await confirmed(`Remove these ${doomed.length} inquiries? Type yes to confirm: `))) {
      console.error("Nothing was removed.");
      return 1;
    }
    const removed = await eraseInquiries(
      outbox,
      doomed.map((inquiry) => inquiry.record.reference),
    );
    console.log(`Removed ${removed.length} inquiries: ${removed.join(", ")}.`);
  }
  return 0;
};

/** Quarantined inquiries let through to delivery. */
const releaseHeld = async ({ options, outbox, config }: Context): Promise<number> => {
  for (const reference of options.release ?? []) {
    const entry = await outbox.entry(reference, config.delivery.maxAttempts);
    if (entry?.state !== "quarantined") {
      console.error(`${reference} is not a quarantined inquiry in ${outbox.location}.`);
      return 1;
    }
    if (!(await outbox.release(reference))) {
      console.error(`${reference} was released already.`);
      return 1;
    }
    console.log(`${reference} released: the next delivery pass delivers it (or run --retry).`);
  }
  return 0;
};

/** The inquiries and where they stand, a page at a time, and what is held as suspected spam. */
const list = async ({ options, outbox, config }: Context): Promise<number> => {
  const wanted = options.pending ? "pending" : options.state;
  if (wanted && !STATES.includes(wanted as EntryState)) {
    console.error(`--state takes one of ${STATES.join(", ")}.`);
    return 1;
  }
  const limit = options.limit === undefined ? DEFAULT_PAGE : Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1) {
    console.error("--limit takes a whole number of inquiries, 1 or more.");
    return 1;
  }
  const page = await outbox
    .page({
      after: options.after ?? null,
      limit,
      maxAttempts: config.delivery.maxAttempts,
      ...(wanted ? { state: wanted as EntryState } : {}),
    })
    .catch((error: unknown) => {
      if (error instanceof UnknownReferenceError) return null;
      throw error;
    });
  if (!page) {
    console.error(`No inquiry ${options.after ?? ""} in ${outbox.location} to list after.`);
    return 1;
  }
  const { entries, next } = page;
  const counts = STATES.map((state) => `${entries.filter((entry) => entry.state === state).length} ${state}`);
  const which = `${options.after ? ` after ${options.after}` : ""}${next ? ` (a page of ${limit})` : ""}`;
  console.log(`${entries.length} inquiries in ${outbox.location}${which}: ${counts.join(", ")}.`);
  // Of the whole store, whatever the page: what waits for a person to judge it.
  const held = await outbox.heldSummary();
  const since = held.oldestReceivedAt;
  console.log(
    held.count === 0
      ? "Held as suspected spam: none."
      : `Held as suspected spam: ${held.count}` +
          (since === null ? "." : `, the oldest for ${ageText(Date.now() - Date.parse(since))} (since ${since}).`),
  );
  for (const entry of entries) console.log(describe(entry));
  if (next) {
    const again = [`--after ${next}`, options.limit ? `--limit ${limit}` : "", wanted ? `--state ${wanted}` : ""];
    console.log(`More: ${again.filter(Boolean).join(" ")}`);
  }
  return 0;
};

/**
 * Every undelivered inquiry and digest delivered now, dead letters included, claimed as any delivery run claims
 * them: what a run under way holds is left to it. No digest is made here; the worker makes them.
 */
const retryAll = async ({ outbox, config, content }: Context): Promise<number> => {
  const problems = transportProblems(config);
  if (problems.length > 0) {
    console.error(`Cannot retry: ${problems.join("; ")}.`);
    return 1;
  }
  const log = lineLog((line, level) => (level === "info" ? console.log(line) : console.error(line)));
  const run = await runQueue(outbox, config, log, () => new Date(), { retryDead: true, content });
  console.log(`Retried ${run.due} undelivered inquiries: ${run.delivered} delivered, ${run.failed} still undelivered.`);
  if (run.digestsFailed > 0) console.log(`${run.digestsFailed} digests of held inquiries are still undelivered.`);
  return run.failed > 0 || run.digestsFailed > 0 ? 1 : 0;
};

/**
 * The Blobs store the site kept inquiries in before Netlify Database, copied into the store the environment
 * names: through the Netlify API with a site's ID and a token, or with the access @netlify/blobs finds in its
 * environment (as under `netlify dev`).
 */
const copyBlobs = async ({ options, outbox, settings }: Context): Promise<number> => {
  const siteID = options.site ?? settings.NETLIFY_SITE_ID;
  const token = options.token ?? settings.NETLIFY_AUTH_TOKEN;
  const site = siteID && token ? { siteID, token } : null;
  if ((siteID === null) !== (token === null)) {
    console.error("--copy-from-blobs needs both the site's ID and a token: --site and --token.");
    return 1;
  }
  let source;
  try {
    source = openBlobsSource(options.store ?? "inquiries", site);
  } catch {
    console.error(
      "--copy-from-blobs reads the site's Blobs store through the Netlify API: give the site's ID and a personal " +
        "access token, --site and --token (or NETLIFY_SITE_ID and NETLIFY_AUTH_TOKEN).",
    );
    return 1;
  }
  const { found, copied } = await copyFromBlobs(source, outbox);
  console.log(
    `Copied ${copied.inquiries} inquiries and ${copied.attempts} attempts from ${source.location} into ` +
      `${outbox.location} (it holds ${found.inquiries} inquiries, ${found.attempts} attempts, ${found.damaged} damaged).`,
  );
  return found.damaged > 0 ? 1 : 0;
};

/** The commands, the first whose options were given chosen; listing when none was. */
const COMMANDS: readonly Command[] = [
  {
    help: [
      ["--copy-from-blobs", "copy the Blobs store the site used before Netlify Database (--site, --token, --store"],
      ["", "inquiries) into the store the environment names: what it lacks only, so running it again adds nothing"],
    ],
    chosen: (options) => options["copy-from-blobs"],
    run: copyBlobs,
  },
  {
    help: [["--show CRS-XXXX-XXXX", "one inquiry in full"]],
    chosen: (options) => options.show !== undefined,
    run: showOne,
  },
  {
    help: [["--retention", "remove now what is past its retention (the server does it daily) and say how many"]],
    chosen: (options) => options.retention,
    run: retentionNow,
  },
  {
    help: [
      ["--keep CRS-XXXX-XXXX", "never remove this one by retention (a quote or an order)"],
      ["--export-email ADDRESS", "every inquiry from that address, as JSON on stdout (messages go to stderr)"],
      ["--erase-email ADDRESS", "remove them for good (asks first, unless --yes)"],
      ["--erase CRS-XXXX-XXXX", "remove one for good (asks first, unless --yes)"],
      ["--backup FILE", "a consistent copy of the database, while the server runs"],
    ],
    chosen: (options) =>
      [options.keep, options["export-email"], options["erase-email"], options.erase, options.backup].some(
        (option) => option !== undefined,
      ),
    run: personalData,
  },
  {
    help: [["--release CRS-XXXX-XXXX", "let a quarantined inquiry through to delivery"]],
    chosen: (options) => options.release !== undefined,
    run: releaseHeld,
  },
  {
    help: [["--retry", "deliver every undelivered inquiry now, dead letters included, and every undelivered digest"]],
    chosen: (options) => options.retry,
    run: retryAll,
  },
  {
    help: [
      ["(no option)", "the inquiries and where they stand, oldest first, a page at a time, and how many are held"],
      ["", "as suspected spam, the oldest for how long"],
      ["--after CRS-XXXX-XXXX", "the next page, after that inquiry (the listing says which)"],
      ["--limit N", "pages of N (50 by default)"],
      ["--state STATE", "only those in one state (pending, dead, quarantined, delivered, stored)"],
      ["--pending", "the same as --state pending"],
    ],
    chosen: () => true,
    run: list,
  },
];

const USAGE = [
  INTRO.trim(),
  "",
  ...COMMANDS.flatMap((command) => command.help).map(([option, help]) => `  ${option.padEnd(28)}${help}`),
  `  ${"--help".padEnd(28)}this text`,
  "",
  OUTRO.trim(),
].join("\n");

const options = readCommandLine(USAGE, OPTIONS);

/** What the command reads besides the inquiries' settings: the Blobs store's site and token, for the copy. */
const blobsSettings = settingsPart(["NETLIFY_SITE_ID", "NETLIFY_AUTH_TOKEN"]);

const readCommandSettings = () => readSettings([inquirySettings, blobsSettings]);

type CommandSettings = ReturnType<typeof readCommandSettings>;

/** The store the options and the environment name, or the exit code when it cannot be read as asked. */
const openStore = (): Context | number => {
  // The project's content wherever it is run from; INQUIRY_DATA_DIR (or ./.data) is read from the folder it is run in.
  const content = readInquiryContent(path.join(projectRoot(), "content"));
  const settings = readCommandSettings();
  const config = inquiryConfigOf(content.form.delivery, settings);
  const copying = options["copy-from-blobs"];
  if (!copying && [options.site, options.token, options.store].some((option) => option !== undefined)) {
    console.error("--site, --token and --store name the Blobs store that --copy-from-blobs copies.");
    return 1;
  }
  if (config.outbox === "sqlite" && !copying && !existsSync(path.join(config.dataDir, DATABASE_FILE))) {
    // Opening it would create an empty database: in the wrong folder, the operator would see nothing.
    console.error(
      settings.INQUIRY_DATA_DIR !== null
        ? `There is no inquiry database in ${config.dataDir} (INQUIRY_DATA_DIR): nothing was stored there yet, or the folder is wrong.`
        : `INQUIRY_DATA_DIR is not set, and ${config.dataDir} holds no inquiry database: run this with the service's ` +
            "environment (its INQUIRY_DATA_DIR, e.g. from /etc/cardinal-site.env, as the service's user).",
    );
    return 1;
  }
  const outbox = openOutbox(config);
  console.error(`Reading ${outbox.location}.`);
  return { options, outbox, config, content, settings };
};

const main = async (): Promise<number> => {
  const context = openStore();
  if (typeof context === "number") return context;
  const command = COMMANDS.find((candidate) => candidate.chosen(options));
  try {
    return command ? await command.run(context) : 0;
  } finally {
    // A Postgres pool left open would keep the command running after its work is done.
    if (context.outbox instanceof InquiryOutbox) await context.outbox.close();
  }
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
