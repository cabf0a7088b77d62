/**
 * An IntersectionObserver for jsdom (which has none) that records what each observer watches, so a
 * test can report an element near the viewport when it chooses, and whether the observer let go.
 */
type Observed = (entries: Pick<IntersectionObserverEntry, "isIntersecting">[]) => void;

export interface ObserverRecord {
  readonly callback: Observed;
  readonly options?: IntersectionObserverInit;
  readonly observed: Element[];
  connected: boolean;
}

/** Installs the fake on window and returns the list its observers are recorded in. */
export const installIntersectionObserver = (): ObserverRecord[] => {
  const observers: ObserverRecord[] = [];
  class FakeIntersectionObserver {
    private readonly record: ObserverRecord;
    constructor(callback: Observed, options?: IntersectionObserverInit) {
      this.record = { callback, options, observed: [], connected: true };
      observers.push(this.record);
    }
    observe(element: Element) {
      this.record.observed.push(element);
    }
    disconnect() {
      this.record.connected = false;
    }
  }
  Object.assign(window, { IntersectionObserver: FakeIntersectionObserver });
  return observers;
};

export const removeIntersectionObserver = () => {
  Reflect.deleteProperty(window, "IntersectionObserver");
};
