import { onClientEntry } from "../gatsby-browser";

afterEach(() => jest.useRealTimers());

it("lets Gatsby ask for the page's data only from a later task than the one that started the app", async () => {
  // Timers only: a promise settled from a microtask (queueMicrotask, process.nextTick) would still be
  // part of the starting task, and this test must see it settle there.
  jest.useFakeTimers({ doNotFake: ["queueMicrotask", "nextTick"] });
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
