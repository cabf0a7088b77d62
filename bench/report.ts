// reports/bench.json: what npm run bench writes, npm run check:budgets judges and npm run bench:readme
// copies into docs/performance.md.
import fs from "node:fs";
import path from "node:path";
import type { BlobsLoadFigures } from "./blobs-load";
import type { BlobsScaleFigures } from "./blobs-scale";
import type { DeployFigures } from "./deploy";
import type { InquiryLoadFigures } from "./inquiry-load";
import type { LighthouseFigures } from "./lighthouse";
import type { PageBytes } from "./page-bytes";

export const reportPath = path.resolve(__dirname, "..", "reports", "bench.json");

export interface BenchReport {
  date: string;
  machine: string;
  buildSeconds: number;
  lighthouse: LighthouseFigures;
  inquiryLoad: InquiryLoadFigures;
  /** Every built page's transfer bytes against the same page without scripts (bench/page-bytes.ts). */
  pageBytes: PageBytes[];
  /** The CDN deploy's inquiry function on its Blobs outbox: measured last by npm run bench, or alone by npm run bench:blobs. */
  blobs?: BlobsLoadFigures;
  /** One scheduled run over a Blobs store holding years of inquiries: measured after the Blobs load. */
  blobsScale?: BlobsScaleFigures;
  /** A push deployed on the single server: measured alone by npm run bench:deploy, after npm run bench. */
  deploy?: DeployFigures;
}

/**
 * Adds the figures of a bench that runs on its own (npm run bench:blobs) to the report, keeping the
 * rest of it; starts a report of those figures alone where there is none yet. Returns its path.
 */
export const addToReport = <K extends keyof BenchReport>(key: K, figures: BenchReport[K]): string => {
  const existing: Partial<BenchReport> = fs.existsSync(reportPath)
    ? (JSON.parse(fs.readFileSync(reportPath, "utf8")) as Partial<BenchReport>)
    : {};
  fs.mkdirSync(path.dirname(reportPath), { recursive: true });
  fs.writeFileSync(reportPath, `${JSON.stringify({ ...existing, [key]: figures }, null, 2)}\n`);
  return reportPath;
};

/**
 * A report as read back from disk, for the gates: any part may be missing (a bench that stopped early, or
 * a report from an older bench), and a figure the bench could not take is null, which is how JSON writes
 * NaN. Nothing here is trusted to be a number until a gate has looked.
 */
export type ReadBack<T> = T extends number
  ? number | null
  : T extends readonly (infer Item)[]
    ? ReadBack<Item>[]
    : T extends object
      ? { [K in keyof T]?: ReadBack<T[K]> }
      : T;

/** reports/bench.json as written, for npm run check:budgets to judge part by part. */
export const readReportAsWritten = (): ReadBack<BenchReport> => {
  if (!fs.existsSync(reportPath)) throw new Error("No reports/bench.json: run npm run bench first.");
  return JSON.parse(fs.readFileSync(reportPath, "utf8")) as ReadBack<BenchReport>;
};

export const readReport = (): BenchReport => {
  if (!fs.existsSync(reportPath)) throw new Error("No reports/bench.json: run npm run bench first.");
  const report = JSON.parse(fs.readFileSync(reportPath, "utf8")) as Partial<BenchReport>;
  if (!report.lighthouse || !report.inquiryLoad) {
    throw new Error("reports/bench.json is not from the current npm run bench: run it again.");
  }
  return report as BenchReport;
};
