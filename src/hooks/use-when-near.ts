import { useEffect, type RefObject } from "react";

// Within a screen's height above or below the viewport: far enough ahead that a chunk fetched then is
// there by the time the visitor scrolls to it, near enough that a visitor who never scrolls never pays.
const approachMargin = "100% 0px";

/** Code fetched on demand, once per page load whoever asks first; a fetch that failed (offline) is tried again next time. */
export interface LazyCode<T> {
  /** The code, if it has arrived. */
  readonly loaded: () => T | undefined;
  readonly load: () => Promise<T>;
  /** Starts fetching; a failure is left for the next `load` to retry. */
  readonly prepare: () => void;
}

export const lazyCode = <T>(importCode: () => Promise<T>): LazyCode<T> => {
  let code: T | undefined;
  let loading: Promise<T> | undefined;
  const load = (): Promise<T> => {
    loading ??= importCode().then(
      (arrived) => (code = arrived),
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
  return {
    loaded: () => code,
    load,
    prepare: () => {
      if (code === undefined) load().catch(() => undefined);
    },
  };
};

/**
 * Calls `prepare` once the element comes within a screen of the viewport or, should that not be
 * reported first, when the visitor touches it (focus or pointer); where there is no
 * IntersectionObserver, at once. For code a section needs only once it is used, so that the page's
 * first paint and hydration do not wait for it. `prepare` may be called more than once.
 */
export const useWhenNear = (ref: RefObject<Element>, prepare: () => void, done: boolean): void => {
  useEffect(() => {
    const element = ref.current;
    if (!element || done) return undefined;
    const observer =
      "IntersectionObserver" in window
        ? new IntersectionObserver(
            (entries) => {
              if (!entries.some((entry) => entry.isIntersecting)) return;
              observer?.disconnect();
              prepare();
            },
            { rootMargin: approachMargin },
          )
        : null;
    if (observer) observer.observe(element);
    else prepare();
    element.addEventListener("focusin", prepare);
    element.addEventListener("pointerdown", prepare);
    return () => {
      observer?.disconnect();
      element.removeEventListener("focusin", prepare);
      element.removeEventListener("pointerdown", prepare);
    };
  }, [ref, prepare, done]);
};
