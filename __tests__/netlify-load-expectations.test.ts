/**
 * @jest-environment node
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { netlifyLoadExpectations } from "../bench/budget-checks";
import type { NetlifyLoadFigures } from "../bench/report";
import { measuredBenchReport } from "./fixtures/bench-report";

// The gate npm run check:budgets applies to the Netlify load figures of reports/bench.json.
const { netlifyLoad } = JSON.parse(readFileSync(path.resolve("budgets.json"), "utf8")) as {
  netlifyLoad: { inquiries: number };
};

// A real run's figures, which pass.
const measured: NetlifyLoadFigures = measuredBenchReport.netlifyLoad!;

const failing = (figures: NetlifyLoadFigures) =>
  netlifyLoadExpectations(figures, netlifyLoad.inquiries)
    .filter(({ actual, expected }) => actual !== expected)
    .map(({ what }) => what);

describe("the Netlify load gate of npm run check:budgets", () => {
  it("passes a run where every inquiry was stored once and delivered once", () => {
    expect(netlifyLoad.inquiries).toBe(200);
    expect(failing(measured)).toEqual([]);
  });

  it("fails a run that lost, duplicated, misreferenced, redelivered or sent fewer inquiries, naming what", () => {
    expect(failing({ ...measured, records: 199, uniqueReferences: 199, lost: 1 })).toEqual([
      "Netlify load: records in the store",
      "Netlify load: unique references",
      "Netlify load: answered 201 but not stored",
    ]);
    expect(failing({ ...measured, records: 201, duplicated: 1 })).toEqual([
      "Netlify load: records in the store",
      "Netlify load: stored more than once",
    ]);
    expect(failing({ ...measured, repeatsWithFirstReference: 19 })).toEqual([
      "Netlify load: repeats answered with the first reference",
    ]);
    expect(failing({ ...measured, deliveredExactlyOnce: 199, webhookDeliveries: 201 })).toEqual([
      "Netlify load: delivered exactly once",
      "Netlify load: webhook deliveries",
    ]);
    expect(failing({ ...measured, answers: { 201: 219, 503: 1 } })).toEqual(["Netlify load: answered 201"]);
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
      "Netlify load: inquiries sent",
      "Netlify load: answered 201",
      "Netlify load: records in the store",
      "Netlify load: unique references",
      "Netlify load: delivered exactly once",
      "Netlify load: webhook deliveries",
    ]);
  });
});
