/**
 * What Netlify does with a build, as far as it can be done here, offline and without netlify-cli:
 *
 *   tsx scripts/netlify-local.ts rules            the rules of public/_headers, public/_redirects and
 *                                                 netlify.toml, read by Netlify's own parsers, as JSON
 *   tsx scripts/netlify-local.ts invoke <name>    runs .netlify/functions-internal/<name> the way Netlify's
 *                                                 runtime calls a function: the events on stdin (a JSON
 *                                                 array), one after another in this one process (one warm
 *                                                 instance); prints the answers
 *   ... invoke <name> --blobs                     the same with a Netlify Blobs store, as the sign-in callback
 *                                                 needs (it records spent states there): @netlify/blobs' own
 *                                                 local server in this process, on loopback, whose access
 *                                                 every event carries as Netlify's do, a new one for each
 *                                                 command; prints the answers and what the spent-states
 *                                                 store holds afterwards
 *   tsx scripts/netlify-local.ts scheduled <file> runs a scheduled function of netlify/functions/ once, as
 *                                                 Netlify does (its default export); prints its answer's
 *                                                 status and body
 *
 * A process of its own, so the function runs under plain Node with only the environment it is given,
 * as on the platform: the inquiry functions and the scheduled one reach their store, Netlify Database,
 * through NETLIFY_DB_URL there, so what one command leaves the next finds. Run after
 * `npm run build:netlify`; __tests__/netlify-output.spec.ts uses it.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { getStore } from "@netlify/blobs";
import { BlobsServer } from "@netlify/blobs/server";
// Netlify's own parsers, from @netlify/config, which gatsby-adapter-netlify depends on (the lockfile
// pins them): what they accept and how they read each rule is what a deploy does with these files.
import { parseAllHeaders } from "@netlify/headers-parser";
import { parseAllRedirects } from "@netlify/redirect-parser";
import { SPENT_STATES_STORE } from "../server/sign-in/blobs-spent-states";

/** The part of a Netlify Functions (v1, Lambda-compatible) event that the adapter's handler reads. */
export interface FunctionEvent {
  readonly path: string;
  readonly rawUrl: string;
  readonly httpMethod: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly multiValueHeaders: Readonly<Record<string, readonly string[]>>;
  readonly queryStringParameters: Readonly<Record<string, string>>;
  readonly multiValueQueryStringParameters: Readonly<Record<string, readonly string[]>>;
  readonly body: string | null;
  readonly isBase64Encoded: boolean;
  /** The Blobs access of the invocation (Base64 JSON), as Netlify passes it to a Lambda-compatible function. */
  readonly blobs?: string;
}

export interface FunctionAnswer {
  readonly statusCode: number;
  /** Header names in lower case, each with its one value (the function sets none twice). */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface Invocation {
  readonly answers: readonly FunctionAnswer[];
  /** With --blobs: every entry of the spent-states store afterwards, by key. */
  readonly stored: Readonly<Record<string, unknown>> | null;
}

export interface HeaderRule {
  readonly for: string;
  /** The path pattern as Netlify matches it, as a RegExp source. */
  readonly pattern: string;
  readonly values: Readonly<Record<string, string>>;
}

export interface RedirectRule {
  readonly from: string;
  readonly to: string;
  readonly status?: number;
  readonly force?: boolean;
  readonly rate_limit?: Readonly<Record<string, unknown>>;
}

export interface Rules {
  readonly headers: readonly HeaderRule[];
  readonly redirects: readonly RedirectRule[];
  readonly errors: readonly string[];
}

interface LambdaResult {
  statusCode?: number;
  multiValueHeaders?: Record<string, (string | number)[]>;
  body?: string;
  isBase64Encoded?: boolean;
}

type LambdaHandler = (event: FunctionEvent, context: Record<string, unknown>) => Promise<LambdaResult>;

const root = process.cwd();

const rules = async (): Promise<Rules> => {
  const netlifyConfigPath = path.join(root, "netlify.toml");
  const headers = await parseAllHeaders({
    headersFiles: [path.join(root, "public/_headers")] as never[],
    netlifyConfigPath,
    minimal: false,
  });
  const redirects = await parseAllRedirects({
    redirectsFiles: [path.join(root, "public/_redirects")],
    netlifyConfigPath,
    configRedirects: [],
    minimal: true,
  });
  return {
    headers: headers.headers.map((rule) => ({
      for: rule.for,
      pattern: rule.forRegExp?.source ?? "",
      values: rule.values,
    })),
    redirects: redirects.redirects as RedirectRule[],
    errors: [...headers.errors, ...(redirects.errors as Error[])].map((error) => error.message),
  };
};

const answerOf = (result: LambdaResult): FunctionAnswer => ({
  statusCode: result.statusCode ?? 0,
  headers: Object.fromEntries(
    Object.entries(result.multiValueHeaders ?? {}).map(([name, values]) => [name.toLowerCase(), values.join(", ")]),
  ),
  body: Buffer.from(result.body ?? "", result.isBase64Encoded ? "base64" : "utf8").toString("utf8"),
});

const SITE_ID = "local-site";

/** A Blobs store as a deployed function reaches it: the access in each event, the site in a header. */
const startBlobs = async () => {
  const directory = mkdtempSync(path.join(tmpdir(), "netlify-local-blobs-"));
  const token = randomUUID();
  const server = new BlobsServer({ directory, token, logger: () => undefined });
  const { port } = await server.start();
  const url = `http://127.0.0.1:${port}`;
  const access = Buffer.from(JSON.stringify({ url, url_uncached: url, token, primary_region: "local" })).toString(
    "base64",
  );
  return {
    withAccess: (event: FunctionEvent): FunctionEvent => ({
      ...event,
      blobs: access,
      headers: { ...event.headers, "x-nf-site-id": SITE_ID },
      multiValueHeaders: { ...event.multiValueHeaders, "x-nf-site-id": [SITE_ID] },
    }),
    contents: async (storeName: string): Promise<Record<string, unknown>> => {
      const store = getStore({ name: storeName, siteID: SITE_ID, token, edgeURL: url, uncachedEdgeURL: url });
      const { blobs } = await store.list();
      return Object.fromEntries(
        await Promise.all(blobs.map(async ({ key }) => [key, await store.get(key, { type: "json" })] as const)),
      );
    },
    stop: async () => {
      await server.stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
};

const invoke = async (name: string, withBlobs: boolean): Promise<Invocation> => {
  const events = JSON.parse(readFileSync(0, "utf8")) as FunctionEvent[];
  // The function's log lines go where Netlify's function log would be, apart from the answers on stdout.
  console.log = console.info = console.debug = console.error;
  const entry = path.join(root, ".netlify/functions-internal", name, `${name}.js`);
  const { handler } = createRequire(path.join(root, "package.json"))(entry) as { handler: LambdaHandler };
  const blobs = withBlobs ? await startBlobs() : null;
  try {
    const answers: FunctionAnswer[] = [];
    for (const event of events) answers.push(answerOf(await handler(blobs ? blobs.withAccess(event) : event, {})));
    const stored = blobs ? await blobs.contents(SPENT_STATES_STORE) : null;
    return { answers, stored };
  } finally {
    await blobs?.stop();
  }
};

/** What a scheduled function answered: its status and its JSON. */
export interface ScheduledRun {
  readonly status: number;
  readonly body: unknown;
}

/** Runs a scheduled function's file once, as Netlify does: its default export, with the environment it is given. */
const scheduled = async (file: string): Promise<ScheduledRun> => {
  console.log = console.info = console.debug = console.error;
  const { default: run } = (await import(path.resolve(root, file))) as { default: () => Promise<Response> };
  const answer = await run();
  return { status: answer.status, body: await answer.json() };
};

const main = async () => {
  const [command, name, option] = process.argv.slice(2);
  if (command === "rules") return rules();
  if (command === "invoke" && name && (option === undefined || option === "--blobs")) {
    return invoke(name, option === "--blobs");
  }
  if (command === "scheduled" && name && option === undefined) return scheduled(name);
  throw new Error("usage: tsx scripts/netlify-local.ts rules | invoke <function name> [--blobs] | scheduled <file>");
};

main().then(
  // Netlify freezes a function's process once it has answered; so does this, by ending it, rather than
  // waiting for the database pool a function keeps open for its next invocation to go idle.
  (result) => process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit()),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`, () =>
      process.exit(1),
    );
  },
);
