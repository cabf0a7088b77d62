import "@testing-library/jest-dom";
import { format, TextEncoder } from "node:util";
import { useStaticQuery } from "gatsby";
import { installMatchMedia, setReducedMotion, setViewportWidth } from "./__tests__/support/media";
import { siteData } from "./__tests__/fixtures/content";

// react-dom/server needs it; jsdom does not provide it.
Object.assign(globalThis, { TextEncoder });
// Suites of server code (the inquiry function) run in node, where there is no window to set up.
const hasWindow = typeof window !== "undefined";
// react-slick's enquire.js asks for matchMedia as soon as it is imported.
if (hasWindow) installMatchMedia();

// A console.error or console.warn fails the test it comes in: React's act(), key and hydration warnings
// and jsdom's "Not implemented" errors arrive that way, and a suite whose output is full of them is no
// longer read. A test that provokes one on purpose puts jest.spyOn(console, "error") over this guard and
// asserts on the calls. The guard stays in place between tests, so a message that arrives late (a promise
// settling after its test) fails the next test, or the file. One that arrives after the file's last check
// (during the file's own afterAll) is printed as it would have been, so it is still seen.
const unexpectedConsole: string[] = [];
const unguarded = { error: console.error, warn: console.warn };
let fileChecked = false;
const guard =
  (level: "error" | "warn") =>
  (...args: unknown[]) => {
    if (fileChecked) unguarded[level](...args);
    else unexpectedConsole.push(`console.${level}: ${format(...args)}`);
  };
const consoleGuards = { error: guard("error"), warn: guard("warn") };
/** Puts the guards back, also over a spy a test left behind. */
const guardConsole = () => Object.assign(console, consoleGuards);
const failOnUnexpectedConsole = () => {
  const messages = unexpectedConsole.splice(0);
  if (messages.length > 0) {
    throw new Error(
      `${messages.length} console message(s) no test asked for (a test that provokes one spies on it and asserts):\n\n` +
        messages.join("\n\n"),
    );
  }
};
guardConsole();

beforeEach(() => {
  guardConsole();
  // A test whose expectations all sit in a loop, a condition or a callback passes on nothing if none runs.
  expect.hasAssertions();
  if (hasWindow) {
    installMatchMedia();
    setViewportWidth(375);
    setReducedMotion(false);
  }
  jest.mocked(useStaticQuery).mockReturnValue(siteData);
});

afterEach(() => {
  guardConsole();
  failOnUnexpectedConsole();
});
afterAll(() => {
  fileChecked = true;
  failOnUnexpectedConsole();
});
