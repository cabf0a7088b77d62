import { promises as fs } from "node:fs";
import path from "node:path";
import type { TransportName } from "./config";
import { processWide } from "./process-wide";
import type { InquiryValues } from "../validation";

/** One accepted inquiry, as stored before any delivery is tried and as every transport sends it. */
export interface OutboxRecord {
  readonly reference: string;
  readonly receivedAt: string;
  /** The transports configured when it arrived; it is pending until each has delivered it. */
  readonly transports: readonly TransportName[];
  readonly subject: string;
  readonly replyTo: { readonly name: string; readonly address: string };
  /** The answers with the labels the visitor saw, in form order, empty ones left out. */
  readonly fields: readonly { readonly name: string; readonly label: string; readonly value: string }[];
  readonly values: InquiryValues;
}

/** One delivery attempt; the outbox never rewrites a line, it appends what happened. */
export interface DeliveryAttempt {
  readonly reference: string;
  readonly transport: TransportName;
  readonly ok: boolean;
  readonly at: string;
  /** Why it failed, without anything the visitor wrote. */
  readonly detail?: string;
}

export type DeliveryState = "delivered" | "failed" | "not tried";

export interface OutboxEntry {
  readonly record: OutboxRecord;
  readonly deliveries: Readonly<Partial<Record<TransportName, DeliveryState>>>;
  readonly attempts: number;
  readonly pending: boolean;
}

export class DuplicateReferenceError extends Error {}

const INQUIRIES_FILE = "inquiries.ndjson";
const DELIVERIES_FILE = "deliveries.ndjson";

interface FileState {
  /** Appends to one file run one after another, so a line is never written while another is half-written. */
  queue: Promise<unknown>;
}
interface OutboxState {
  files: Map<string, FileState>;
  references: Map<string, Promise<Set<string>>>;
}

const processState = (): OutboxState =>
  processWide<OutboxState>("inquiry-outbox", () => ({ files: new Map(), references: new Map() }));

const endsWithNewline = async (handle: fs.FileHandle): Promise<boolean> => {
  const { size } = await handle.stat();
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  return last[0] === 0x0a;
};

/** Appends one line and waits until it is on disk; a line torn by an earlier crash is closed off first. */
const appendDurably = async (file: string, line: string): Promise<void> => {
  const handle = await fs.open(file, "a+", 0o600);
  try {
    const text = (await endsWithNewline(handle)) ? line : `\n${line}`;
    await handle.appendFile(text, "utf8");
    await handle.datasync();
  } finally {
    await handle.close();
  }
};

export interface OutboxContents {
  readonly records: readonly OutboxRecord[];
  readonly attempts: readonly DeliveryAttempt[];
  /** Lines that are not whole JSON records: only a crash in the middle of a write leaves one. */
  readonly damagedLines: number;
}

const readLines = async <T>(file: string): Promise<{ items: T[]; damaged: number }> => {
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { items: [], damaged: 0 };
    throw error;
  }
  const items: T[] = [];
  let damaged = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      items.push(JSON.parse(line) as T);
    } catch {
      damaged += 1;
    }
  }
  return { items, damaged };
};

/** An append-only store of inquiries and their delivery attempts: two NDJSON files in one folder. */
export class Outbox {
  readonly inquiriesFile: string;
  readonly deliveriesFile: string;

  constructor(readonly dir: string) {
    this.inquiriesFile = path.join(dir, INQUIRIES_FILE);
    this.deliveriesFile = path.join(dir, DELIVERIES_FILE);
  }

  private enqueue(file: string, line: string): Promise<void> {
    const { files } = processState();
    const state = files.get(file) ?? { queue: Promise.resolve() };
    files.set(file, state);
    const write = state.queue.then(async () => {
      await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
      await appendDurably(file, line);
    });
    // The next write waits for this one whether or not it succeeded.
    state.queue = write.catch(() => undefined);
    return write;
  }

  private knownReferences(): Promise<Set<string>> {
    const { references } = processState();
    let known = references.get(this.inquiriesFile);
    if (!known) {
      known = readLines<OutboxRecord>(this.inquiriesFile).then(
        ({ items }) => new Set(items.map((item) => item.reference)),
      );
      references.set(this.inquiriesFile, known);
      known.catch(() => references.delete(this.inquiriesFile));
    }
    return known;
  }

  /** Stores an accepted inquiry; resolves only once it is on disk. */
  async add(record: OutboxRecord): Promise<void> {
    const known = await this.knownReferences();
    if (known.has(record.reference)) throw new DuplicateReferenceError(record.reference);
    known.add(record.reference);
    try {
      await this.enqueue(this.inquiriesFile, `${JSON.stringify(record)}\n`);
    } catch (error) {
      known.delete(record.reference);
      throw error;
    }
  }

  async recordAttempt(attempt: DeliveryAttempt): Promise<void> {
    await this.enqueue(this.deliveriesFile, `${JSON.stringify(attempt)}\n`);
  }

  async read(): Promise<OutboxContents> {
    const [records, attempts] = await Promise.all([
      readLines<OutboxRecord>(this.inquiriesFile),
      readLines<DeliveryAttempt>(this.deliveriesFile),
    ]);
    return { records: records.items, attempts: attempts.items, damagedLines: records.damaged + attempts.damaged };
  }

  /** Every inquiry with where each of its deliveries stands, oldest first. */
  async entries(): Promise<{ entries: OutboxEntry[]; damagedLines: number }> {
    const { records, attempts, damagedLines } = await this.read();
    const byReference = new Map<string, DeliveryAttempt[]>();
    for (const attempt of attempts) {
      const list = byReference.get(attempt.reference) ?? [];
      list.push(attempt);
      byReference.set(attempt.reference, list);
    }
    const entries = records.map((record) => {
      const tried = byReference.get(record.reference) ?? [];
      const deliveries: Partial<Record<TransportName, DeliveryState>> = {};
      for (const transport of record.transports) {
        const mine = tried.filter((attempt) => attempt.transport === transport);
        deliveries[transport] = mine.some((attempt) => attempt.ok)
          ? "delivered"
          : mine.length > 0
            ? "failed"
            : "not tried";
      }
      const pending = record.transports.some((transport) => deliveries[transport] !== "delivered");
      return { record, deliveries, attempts: tried.length, pending };
    });
    return { entries, damagedLines };
  }
}
