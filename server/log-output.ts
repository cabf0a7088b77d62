import pino from "pino";

/**
 * Where the server's log lines go: standard output (the journal, under the unit), each line written before
 * the call that logs it returns. Pino's default writes in the background, and a process that exits meanwhile,
 * as every stop ends, can write its last lines out of order or lose them. The server logs a few lines a
 * minute (request logging is off), so writing each at once costs nothing a visitor notices.
 */
export const logOutput = (): pino.DestinationStream => pino.destination({ dest: 1, sync: true });
