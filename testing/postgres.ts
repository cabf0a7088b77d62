import { execFile } from "node:child_process";
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Client } from "pg";

const run = promisify(execFile);
/** Debian's `postgresql-15` package. */
const BIN = "/usr/lib/postgresql/15/bin";

/** Netlify's migrations folder, whose files Netlify's deploy applies in the order of their names. */
const NETLIFY_MIGRATIONS = path.resolve(__dirname, "../netlify/database/migrations");

/** Runs `text` on the database at `url` over a connection of its own, as another program would: its rows. */
export const onPostgres = async <Row extends object = Record<string, unknown>>(
  url: string,
  text: string,
  values: readonly unknown[] = [],
): Promise<Row[]> => {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text, [...values])).rows;
  } finally {
    await client.end();
  }
};

/** The database at `url` as Netlify's deploy leaves it: each file of netlify/database/migrations/ applied, in order. */
export const migrateAsNetlifyDoes = async (url: string): Promise<void> => {
  for (const file of readdirSync(NETLIFY_MIGRATIONS).sort())
    await onPostgres(url, readFileSync(path.join(NETLIFY_MIGRATIONS, file), "utf8"));
};

/** A Postgres server for the tests: `database()` makes an empty database on it and gives its connection string. */
export interface TestPostgres {
  database(): Promise<string>;
  stop(): Promise<void>;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

/**
 * Debian's Postgres in a folder of its own on a free port, for tests at the lowest priority (another run
 * may be measuring on this machine), and without syncs (a test's or bench's database need not survive a
 * power loss). Postgres refuses to run as root, so a root run starts it as the `postgres` user, in a folder
 * that user owns beside the run's own temporary folder (which only root may enter).
 */
const startLocal = async (niced: boolean): Promise<{ url: string; stop: () => Promise<void> }> => {
  const root = process.getuid?.() === 0;
  const base = process.env.RUN_TEMP_ROOT ? path.dirname(process.env.RUN_TEMP_ROOT) : tmpdir();
  const dir = mkdtempSync(path.join(base, "site-postgres-"));
  const user = root ? "postgres" : userInfo().username;
  const as = async (program: string, args: readonly string[]) => {
    const command = [
      "-n",
      niced ? "19" : "0",
      ...(root ? ["runuser", "-u", user, "--"] : []),
      path.join(BIN, program),
      ...args,
    ];
    await run("nice", command, { cwd: dir });
  };
  if (root) {
    const ids = async (flag: string) => Number((await run("id", [flag, user])).stdout.trim());
    chownSync(dir, await ids("-u"), await ids("-g"));
  }
  const data = path.join(dir, "data");
  const log = path.join(dir, "server.log");
  const port = await freePort();
  try {
    await as("initdb", ["-D", data, "-U", user, "--auth=trust", "--locale=C", "-E", "UTF8", "--no-sync"]);
    const settings = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
    await as("pg_ctl", ["-D", data, "-l", log, "-w", "-t", "60", "-o", settings, "start"]);
  } catch (error) {
    const written = (() => {
      try {
        return readFileSync(log, "utf8");
      } catch {
        return "";
      }
    })();
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`Postgres did not start: ${(error as Error).message}\n${written}`);
  }
  return {
    url: `postgresql://${user}@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await as("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

/**
 * TEST_DATABASE_URL's server when it is set (its databases made by the tests are dropped at the end), or
 * a local one started for the tests and removed at the end. No mock: the store runs against the real thing.
 * A bench that measures it asks for it `niced: false`, at the priority a server of its own would have.
 */
export const startPostgres = async ({ niced = true }: { readonly niced?: boolean } = {}): Promise<TestPostgres> => {
  const given = process.env.TEST_DATABASE_URL;
  const server = given ? { url: given, stop: () => Promise.resolve() } : await startLocal(niced);
  const made: string[] = [];
  return {
    database: async () => {
      const name = `site_test_${process.pid}_${made.length + 1}`;
      await onPostgres(server.url, `CREATE DATABASE ${name}`);
      made.push(name);
      const url = new URL(server.url);
      url.pathname = `/${name}`;
      return url.toString();
    },
    stop: async () => {
      if (given) {
        for (const name of made) await onPostgres(server.url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }
      await server.stop();
    },
  };
};
