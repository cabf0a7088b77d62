/**
 * One value per Node process, created on first use. Gatsby's server loads a function's module afresh
 * for every request, so module-level state would last one request; what must outlive it (the outbox's
 * write queues, the rate limiter's counters) is kept on the process under a registered symbol.
 */
const keyOf = (name: string) => Symbol.for(`gov-supply-site.${name}`);

export const processWide = <T>(name: string, create: () => T): T => {
  const key = keyOf(name);
  const holder = globalThis as typeof globalThis & Record<symbol, unknown>;
  if (!(key in holder)) holder[key] = create();
  return holder[key] as T;
};

/** Forgets the value kept under `name`, as a new process would not have it: for tests that act out a restart. */
export const forgetProcessWide = (name: string): void => {
  Reflect.deleteProperty(globalThis, keyOf(name));
};
