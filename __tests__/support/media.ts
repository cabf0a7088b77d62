/**
 * A matchMedia for jsdom that answers min-width and reduced-motion queries
 * from a width and preference the test sets, and tells listeners when they change.
 */
interface MediaState {
  width: number;
  reducedMotion: boolean;
}

const state: MediaState = { width: 375, reducedMotion: false };
const lists = new Set<{ query: string; list: MediaQueryList; listeners: Set<() => void> }>();

const evaluate = (query: string): boolean => {
  const minWidth = /min-width:\s*(\d+)px/.exec(query);
  if (minWidth) return state.width >= Number(minWidth[1]);
  if (query.includes("prefers-reduced-motion: reduce")) return state.reducedMotion;
  return false;
};

export const installMatchMedia = () => {
  lists.clear();
  Object.defineProperty(window, "matchMedia", {
    writable: true,
    configurable: true,
    value: (query: string): MediaQueryList => {
      const listeners = new Set<() => void>();
      const list = {
        media: query,
        get matches() {
          return evaluate(query);
        },
        onchange: null,
        addEventListener: (_type: string, listener: () => void) => listeners.add(listener),
        removeEventListener: (_type: string, listener: () => void) => listeners.delete(listener),
        addListener: (listener: () => void) => listeners.add(listener),
        removeListener: (listener: () => void) => listeners.delete(listener),
        dispatchEvent: () => true,
      } as unknown as MediaQueryList;
      lists.add({ query, list, listeners });
      return list;
    },
  });
};

const notify = () => lists.forEach(({ listeners }) => listeners.forEach((listener) => listener()));

export const setViewportWidth = (width: number) => {
  state.width = width;
  Object.defineProperty(window, "innerWidth", { configurable: true, writable: true, value: width });
  notify();
};

export const setReducedMotion = (reduced: boolean) => {
  state.reducedMotion = reduced;
  notify();
};
