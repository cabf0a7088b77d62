import { onClientEntry } from "../gatsby-browser";

afterEach(() => jest.useRealTimers());

it("lets Gatsby ask for the page's data only from a later task than the one that started the app", async () => {
  jest.useFakeTimers();
  let resolved = false;
  const entry = onClientEntry().then(() => {
    resolved = true;
  });

  // Everything still queued in the starting task (its microtasks) runs without the promise settling.
  for (let turn = 0; turn < 10; turn++) await Promise.resolve();
  expect(resolved).toBe(false);

  jest.runOnlyPendingTimers();
  await entry;
  expect(resolved).toBe(true);
});
