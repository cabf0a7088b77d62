/**
 * How a framework-free core logs an operational event: a line an operator reads, and the fields a log search
 * filters by (a reference, a count, an outcome). Never a visitor's answers, address or cookies.
 */
export type OperationalLog = (line: string, fields?: Readonly<Record<string, unknown>>) => void;
