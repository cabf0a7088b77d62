/**
 * Loaded into the production server's process by a test (`node --import tsx --import <this file>`):
 * on SIGWINCH (a signal that stops nothing) it makes a promise reject with nobody to handle it, as a bug in any module might.
 */
process.on("SIGWINCH", () => {
  void Promise.reject(new Error("a rejection nobody handles"));
});
