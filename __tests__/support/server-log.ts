/**
 * A destination for the server's logger (pino's JSON lines) that keeps each line's message, as an operator
 * greps them, and, when given, the whole lines.
 */
export const logInto = (messages: string[], lines: string[] = []) => ({
  write: (line: string) => {
    lines.push(line);
    messages.push((JSON.parse(line) as { msg: string }).msg);
  },
});
