/**
 * @jest-environment node
 */
import { measureBlobsLoad } from "../bench/blobs-load";

// The same run as npm run bench:blobs, at a size that proves the behaviour rather than measures it: the
// bench's 200 invocations and their timings are judged by npm run check:budgets.
describe("the inquiry function on its Netlify Blobs outbox, sent inquiries at once", () => {
  it("stores concurrent inquiries once each under unique references, answers repeats with the first reference, and delivers each exactly once", async () => {
    const figures = await measureBlobsLoad(20, 4);
    expect(figures).toMatchObject({
      invocations: 20,
      repeats: 4,
      answers: { 201: 24 },
      records: 20,
      uniqueReferences: 20,
      lost: 0,
      duplicated: 0,
      repeatsWithFirstReference: 4,
      deliveredExactlyOnce: 20,
      webhookDeliveries: 20,
    });
    expect(figures.deliveredByInvocations + figures.deliveredByScheduledRuns).toBe(20);
  }, 60_000);
});
