import pino, { type LogFn } from "pino";

/**
 * How a framework-free core logs an operational event: at the level it deserves (`warn` for what will be
 * tried again, `error` with `err` for a failure), with a line an operator reads and the fields a log search
 * filters by (a reference, a count, an outcome); never a visitor's answers, address or cookies. A pino
 * logger is one: the server gives each core a child of Fastify's, made once per component.
 */
export interface OperationalLog {
  readonly info: LogFn;
  readonly warn: LogFn;
  readonly error: LogFn;
}

/**
 * A Netlify function's logger for `component`: pino's JSON lines, written through the console, which
 * Netlify's function log keeps (and the local runner, scripts/netlify-local.ts, keeps apart from its answers).
 */
export const functionLog = (component: string): OperationalLog =>
  pino({ base: { component } }, { write: (line: string) => console.info(line.trimEnd()) });

/** A failure as a log line names it: its system code (`ENOSPC`), or else its kind; the error itself goes in `err`. */
export const failureName = (error: unknown): string => (error as NodeJS.ErrnoException).code ?? (error as Error).name;

type Level = "info" | "warn" | "error";

/**
 * An OperationalLog that hands each event's line and level to `write`, its fields left out: the operator's
 * command prints the lines, and tests read them.
 */
export const lineLog = (write: (line: string, level: Level) => void): OperationalLog => {
  // pino's call shapes: (line) or (fields, line).
  const at = (level: Level) =>
    ((first: unknown, line?: unknown) => {
      write(typeof first === "string" ? first : typeof line === "string" ? line : "", level);
    }) as LogFn;
  return { info: at("info"), warn: at("warn"), error: at("error") };
};
