/**
 * @jest-environment node
 */
import { measureNetlifyLoad } from "../bench/netlify-load";

// The same run as npm run bench:netlify, at a size that proves the behaviour rather than measures it: the
// bench's 200 invocations and their timings are judged by npm run check:budgets.
describe("the inquiry function on Netlify Database, sent inquiries at once", () => {
  it("stores concurrent inquiries once each under unique references, answers repeats with the first reference, and delivers each exactly once", async () => {
    const figures = await measureNetlifyLoad(20, 4, { niced: true });
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
  }, 120_000);
});
