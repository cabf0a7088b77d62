import { installIntersectionObserver, removeIntersectionObserver, type ObserverRecord } from "./intersection-observer";

/**
 * For tests of code that a page fetches on demand: each test starts from a fresh module registry, so that
 * nothing is loaded yet (a test mocks the module it counts after this harness's beforeEach has run), with
 * a fake IntersectionObserver. testing-library, imported afresh inside a test, cannot register its own
 * hooks: React's act environment is declared and what was rendered is unmounted here instead.
 */
export const onDemandCodeHarness = () => {
  let observers: ObserverRecord[] = [];
  let cleanup: () => void = () => undefined;
  beforeEach(() => {
    jest.resetModules();
    observers = installIntersectionObserver();
    process.env.RTL_SKIP_AUTO_CLEANUP = "true";
    Object.assign(globalThis, { IS_REACT_ACT_ENVIRONMENT: true });
  });
  afterEach(() => {
    cleanup();
    removeIntersectionObserver();
  });

  return {
    observers: () => observers,
    /** testing-library from the test's fresh registry, with `settle`: lets pending module loads and promises settle. */
    testingLibrary: async () => {
      const library = await import("@testing-library/react");
      cleanup = library.cleanup;
      const settle = () => library.act(() => new Promise<void>((resolve) => setTimeout(resolve, 0)));
      return { ...library, settle };
    },
  };
};
