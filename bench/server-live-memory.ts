// Loaded into the production server by the bench (node --expose-gc --import tsx --import this file),
// never by `npm start`. On SIGUSR2 it collects all garbage and prints the memory still held:
// "live-memory-mb <MB>" on stderr, the JS heap in use plus memory held outside it (Buffers, native
// objects). A leak grows that figure round after round; the process's RSS grows and shrinks with how
// much heap V8 chose to reserve under the last load, so it can grow while the live heap does not.
const collectGarbage = globalThis.gc;
if (!collectGarbage) throw new Error("server-live-memory needs node --expose-gc");

process.on("SIGUSR2", () => {
  collectGarbage();
  const { heapUsed, external } = process.memoryUsage();
  process.stderr.write(`live-memory-mb ${((heapUsed + external) / 1024 / 1024).toFixed(2)}\n`);
});

// A module, so that its names stay its own.
export {};
