import type { OutboxRecord } from "../../server/inquiries/store/outbox";
import type { InquiryOutbox } from "../../server/inquiries/store/sql-outbox";
import { sampleRecord } from "./outbox-fixtures";
import { inquiriesFrom, storedInquiry } from "../../server/inquiries/privacy/requests";

/** `npm run inquiries -- <args>` against one store, with `input` typed on its standard input. */
export type InquiriesCommand = (
  args: readonly string[],
  input?: string,
) => Promise<{ code: number; stdout: string; stderr: string }>;

const from = (reference: string, address: string): OutboxRecord => ({
  ...sampleRecord(reference),
  replyTo: { address },
});

/**
 * What the command does with a person's data, the same on every store: --export-email gives their
 * inquiries as JSON, --keep marks one, --erase-email and --erase list what goes and ask unless --yes.
 */
export const checkPersonalDataCommands = async (run: InquiriesCommand, outbox: InquiryOutbox): Promise<void> => {
  await outbox.add(from("CRS-PERS-0001", "ask@example.gov"));
  await outbox.add(from("CRS-PERS-0002", "Ask@Example.gov"));
  await outbox.add(from("CRS-PERS-0003", "other@example.gov"));
  await outbox.recordAttempt({ reference: "CRS-PERS-0001", transport: "webhook", ok: true, at: "t1" });

  const exported = await run(["--export-email", "ASK@example.gov"]);
  expect(exported.code).toBe(0);
  const inquiriesOf = JSON.parse(exported.stdout) as { record: OutboxRecord; attempts: unknown[] }[];
  expect(inquiriesOf.map((inquiry) => [inquiry.record.reference, inquiry.attempts.length])).toEqual([
    ["CRS-PERS-0001", 1],
    ["CRS-PERS-0002", 0],
  ]);

  expect((await run(["--keep", "CRS-PERS-0003"])).stdout).toMatch(/CRS-PERS-0003 is kept/);
  expect((await storedInquiry(outbox, "CRS-PERS-0003"))?.kept).toBe(true);
  expect((await run(["--keep", "CRS-NONE-0000"])).code).toBe(1);

  // Without --yes it asks; anything but yes removes nothing.
  const unconfirmed = await run(["--erase-email", "ask@example.gov"], "no\n");
  expect([unconfirmed.code, unconfirmed.stdout, unconfirmed.stderr]).toEqual([
    1,
    expect.stringMatching(/To be removed for good.*\n.*CRS-PERS-0001 .*\n.*CRS-PERS-0002 /),
    expect.stringMatching(/Nothing was removed/),
  ]);
  expect(await inquiriesFrom(outbox, "ask@example.gov")).toHaveLength(2);

  const erased = await run(["--erase-email", "ask@example.gov", "--yes"]);
  expect([erased.code, erased.stdout]).toEqual([
    0,
    expect.stringMatching(/Removed 2 inquiries: CRS-PERS-0001, CRS-PERS-0002\./),
  ]);
  const one = await run(["--erase", "CRS-PERS-0003"], "yes\n");
  expect([one.code, one.stdout]).toEqual([0, expect.stringMatching(/Removed 1 inquiries: CRS-PERS-0003\./)]);
  expect((await outbox.read()).records).toEqual([]);
  expect((await run(["--erase", "CRS-PERS-0003", "--yes"])).code).toBe(1);
};

/** The listing, the same on every store: a page at a time, oldest first, with the command for the next. */
export const checkPagedListing = async (run: InquiriesCommand, outbox: InquiryOutbox): Promise<void> => {
  for (let index = 1; index <= 5; index += 1) {
    await outbox.add({ ...sampleRecord(`CRS-LIST-000${index}`), receivedAt: `2026-11-2${index}T10:00:00.000Z` });
  }
  const listedReferences = (stdout: string) => stdout.match(/^CRS-LIST-\d{4}/gm) ?? [];
  const first = await run(["--limit", "2"]);
  expect([first.code, listedReferences(first.stdout)]).toEqual([0, ["CRS-LIST-0001", "CRS-LIST-0002"]]);
  expect(first.stdout).toMatch(/^2 inquiries in .* \(a page of 2\): 2 pending/m);
  expect(first.stdout).toMatch(/^More: --after CRS-LIST-0002 --limit 2$/m);
  expect(first.stdout).toMatch(/^Held as suspected spam: none\.$/m);
  const last = await run(["--after", "CRS-LIST-0003", "--limit", "2"]);
  expect(listedReferences(last.stdout)).toEqual(["CRS-LIST-0004", "CRS-LIST-0005"]);
  expect(last.stdout).not.toMatch(/^More:/m);
  // 50 at a time by default.
  expect(listedReferences((await run([])).stdout)).toHaveLength(5);
  expect((await run(["--after", "CRS-NONE-0000"])).stderr).toMatch(/No inquiry CRS-NONE-0000 in .* to list after/);
};
