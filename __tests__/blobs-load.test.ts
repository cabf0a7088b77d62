/**
 * @jest-environment node
 */
import { measureBlobsLoad, printBlobsLoad } from "../bench/blobs-load";

describe("the inquiry function on its Netlify Blobs outbox, under load (npm run bench:blobs)", () => {
  it("stores 200 concurrent inquiries once each under 200 unique references, and delivers each exactly once", async () => {
    const figures = await measureBlobsLoad(200, 20);
    // The figures of this run, in the test's output.
    printBlobsLoad(figures);
    expect(figures).toMatchObject({
      invocations: 200,
      repeats: 20,
      answers: { 201: 220 },
      records: 200,
      uniqueReferences: 200,
      lost: 0,
      duplicated: 0,
      repeatsWithFirstReference: 20,
      deliveredExactlyOnce: 200,
      webhookDeliveries: 200,
    });
    expect(figures.deliveredByInvocations + figures.deliveredByScheduledRuns).toBe(200);
  }, 180_000);
});
