// Loaded into the production server by the bench (node --expose-gc --import tsx --import this file, with a
// message channel), never by `npm start`. Asked "live-memory-mb" over the channel, it collects all garbage
// and answers with the memory still held, in MB: the JS heap in use plus memory held outside it (Buffers,
// native objects). A leak grows that figure round after round; the process's RSS grows and shrinks with
// how much heap V8 chose to reserve under the last load, so it can grow while the live heap does not.
// A message rather than a signal: every signal a terminal or a service manager may send stops the server.
const collectGarbage = globalThis.gc;
if (!collectGarbage) throw new Error("server-live-memory needs node --expose-gc");
if (!process.send) throw new Error("server-live-memory needs a message channel to the bench");

process.on("message", (message: unknown) => {
  if (message !== "live-memory-mb") return;
  collectGarbage();
  const { heapUsed, external } = process.memoryUsage();
  process.send?.((heapUsed + external) / 1024 / 1024);
});
// The channel must not keep the server running once it has stopped.
process.channel?.unref();

// A module, so that its names stay its own.
export {};
