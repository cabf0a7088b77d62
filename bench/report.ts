// reports/bench.json: what npm run bench writes, npm run check:budgets judges and npm run bench:readme
// copies into the README.
import fs from "node:fs";
import path from "node:path";
import type { InquiryLoadFigures } from "./inquiry-load";
import type { LighthouseFigures } from "./lighthouse";

export const reportPath = path.resolve(__dirname, "..", "reports", "bench.json");

export interface BenchReport {
  date: string;
  machine: string;
  buildSeconds: number;
  lighthouse: LighthouseFigures;
  inquiryLoad: InquiryLoadFigures;
}

export const readReport = (): BenchReport => {
  if (!fs.existsSync(reportPath)) throw new Error("No reports/bench.json: run npm run bench first.");
  const report = JSON.parse(fs.readFileSync(reportPath, "utf8")) as Partial<BenchReport>;
  if (!report.lighthouse || !report.inquiryLoad) {
    throw new Error("reports/bench.json is not from the current npm run bench: run it again.");
  }
  return report as BenchReport;
};
