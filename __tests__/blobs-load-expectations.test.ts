/**
 * @jest-environment node
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { blobsLoadExpectations } from "../bench/budget-checks";
import type { BlobsLoadFigures } from "../bench/report";
import { measuredBenchReport } from "./fixtures/bench-report";

// The gate npm run check:budgets applies to the Blobs figures of reports/bench.json.
const { blobsLoad } = JSON.parse(readFileSync(path.resolve("budgets.json"), "utf8")) as {
  blobsLoad: { inquiries: number };
};

// A real run's figures, which pass.
const measured: BlobsLoadFigures = measuredBenchReport.blobs!;

const failing = (figures: BlobsLoadFigures) =>
  blobsLoadExpectations(figures, blobsLoad.inquiries)
    .filter(({ actual, expected }) => actual !== expected)
    .map(({ what }) => what);

describe("the Blobs load gate of npm run check:budgets", () => {
  it("passes a run where every inquiry was stored once and delivered once", () => {
    expect(blobsLoad.inquiries).toBe(200);
    expect(failing(measured)).toEqual([]);
  });

  it("fails a run that lost, duplicated, misreferenced, redelivered or sent fewer inquiries, naming what", () => {
    expect(failing({ ...measured, records: 199, uniqueReferences: 199, lost: 1 })).toEqual([
      "Blobs load: records in the store",
      "Blobs load: unique references",
      "Blobs load: answered 201 but not stored",
    ]);
    expect(failing({ ...measured, records: 201, duplicated: 1 })).toEqual([
      "Blobs load: records in the store",
      "Blobs load: stored more than once",
    ]);
    expect(failing({ ...measured, repeatsWithFirstReference: 19 })).toEqual([
      "Blobs load: repeats answered with the first reference",
    ]);
    expect(failing({ ...measured, deliveredExactlyOnce: 199, webhookDeliveries: 201 })).toEqual([
      "Blobs load: delivered exactly once",
      "Blobs load: webhook deliveries",
    ]);
    expect(failing({ ...measured, answers: { 201: 219, 503: 1 } })).toEqual(["Blobs load: answered 201"]);
    // A smaller run that is exact in itself still fails: the gate holds it to budgets.json's number.
    expect(
      failing({
        ...measured,
        invocations: 20,
        repeats: 2,
        answers: { 201: 22 },
        records: 20,
        uniqueReferences: 20,
        repeatsWithFirstReference: 2,
        deliveredExactlyOnce: 20,
        webhookDeliveries: 20,
      }),
    ).toEqual([
      "Blobs load: inquiries sent",
      "Blobs load: answered 201",
      "Blobs load: records in the store",
      "Blobs load: unique references",
      "Blobs load: delivered exactly once",
      "Blobs load: webhook deliveries",
    ]);
  });
});
