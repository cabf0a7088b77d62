import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyRequest } from "fastify";

/** What the server says, in its own words, to a request it cannot handle. */
export const COULD_NOT_HANDLE = "The request could not be handled.";

const HSTS = "max-age=63072000; includeSubDomains";

/** Strict-Transport-Security, for a site every visitor reaches over HTTPS (HSTS), else nothing. */
export const hstsHeaders = (hsts: boolean): Readonly<Record<string, string>> =>
  hsts ? { "Strict-Transport-Security": HSTS } : {};

/** Whether the request carries a body that has not all arrived yet (so answering now leaves it unread). */
export const bodyStillComing = (request: FastifyRequest): boolean => {
  const { headers } = request.raw;
  const declared = headers["transfer-encoding"] !== undefined || Number(headers["content-length"] ?? 0) > 0;
  return declared && !request.raw.complete;
};

/**
 * Closes a connection whose request is not all read the way RFC 9112 (section 9.6) asks: the answer and a
 * FIN first, the client's further bytes discarded for a moment, then the socket closed. Closing at once
 * would reset the connection, and a reset can destroy the answer before the client has read it, so a
 * visitor would see a network error instead of a 413.
 */
const lingerThenClose = (socket: Socket, lingerMs: number): void => {
  socket.end();
  const timer = setTimeout(() => socket.destroy(), lingerMs);
  timer.unref();
  socket.once("close", () => clearTimeout(timer));
};

/**
 * Makes Node's HTTP server linger (above) after the answer it is about to send with `Connection: close`:
 * Node ends such an answer with `socket.destroySoon()`, which destroys the socket as soon as the FIN is out
 * and has no option for a lingering close, so this one socket's destroySoon is the linger.
 */
export const lingerAfterAnswer = (socket: Socket, lingerMs: number): void => {
  socket.destroySoon = () => lingerThenClose(socket, lingerMs);
};

/**
 * The answer to a request Node's HTTP parser refused (Fastify's `clientErrorHandler`): the status Node
 * and Fastify give it, in the server's own words rather than Fastify's.
 */
const clientErrorAnswer = (code: string): { readonly status: number; readonly message: string } => {
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return { status: 408, message: "The request did not arrive in time." };
  if (code === "HPE_HEADER_OVERFLOW") return { status: 431, message: "The request's headers are too large." };
  return { status: 400, message: COULD_NOT_HANDLE };
};

/**
 * Fastify's `clientErrorHandler`: a request Node could not parse (a header line without a colon, a body both
 * chunked and of a given length, headers too large or too slow) never becomes a request, so no hook sees
 * it: its answer is written here, with the site's headers, and the connection closed as after any refusal.
 */
export const answerClientError =
  (headersOfEveryAnswer: () => Readonly<Record<string, string>>, lingerMs: number) =>
  (error: Error & { code: string }, socket: Socket): void => {
    if (error.code === "ECONNRESET" || socket.destroyed || !socket.writable) {
      socket.destroy();
      return;
    }
    const { status, message } = clientErrorAnswer(error.code);
    const body = JSON.stringify({ error: message });
    const headers = {
      ...headersOfEveryAnswer(),
      "Cache-Control": "no-store",
      "Content-Type": "application/json; charset=utf-8",
      "Content-Length": String(Buffer.byteLength(body)),
      Connection: "close",
    };
    const head = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ].join("\r\n");
    socket.write(`${head}\r\n\r\n${body}`);
    lingerThenClose(socket, lingerMs);
  };
