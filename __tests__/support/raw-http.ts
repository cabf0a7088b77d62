import net from "node:net";

/** An HTTP answer read off a raw socket: the status, the headers (lower-case names) and the body as text. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Parses the first complete-looking HTTP answer in `text` (after any 100 Continue); null if none yet. */
export const parseAnswer = (text: string): RawAnswer | null => {
  let rest = text;
  while (rest.startsWith("HTTP/1.1 100")) {
    const end = rest.indexOf("\r\n\r\n");
    if (end < 0) return null;
    rest = rest.slice(end + 4);
  }
  const end = rest.indexOf("\r\n\r\n");
  if (end < 0) return null;
  const [statusLine = "", ...lines] = rest.slice(0, end).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(" ")[1]), headers, body: rest.slice(end + 4) };
};

export interface BodyExchange {
  /** The answer, or null if the server closed the connection without one. */
  readonly answer: RawAnswer | null;
  /** Body bytes the client had handed to its socket when the answer arrived (or when the connection ended). */
  readonly sentWhenAnswered: number;
  /** Whether the client got through the whole declared body before the answer. */
  readonly sentEverything: boolean;
  /** Whether the server closed the connection (rather than keep reading, or keep it open for the next request). */
  readonly closedByServer: boolean;
}

export interface BodyExchangeOptions {
  readonly port: number;
  /** The request line and headers, without the blank line that ends them. */
  readonly head: string;
  /** Body bytes to offer; with `chunked`, sent as chunks and not declared in advance. */
  readonly total: number;
  readonly chunked?: boolean;
  readonly chunkBytes?: number;
  /** How long to wait, once answered, for the server to close the connection. */
  readonly lingerMs?: number;
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Offers a request body as fast as the server will take it, as a hostile client would, but stops the
 * moment an answer arrives; then waits a little to see whether the server closes the connection.
 */
export const offerBody = (options: BodyExchangeOptions): Promise<BodyExchange> =>
  new Promise((resolve) => {
    const { port, head, total, chunked = false, chunkBytes = 64 * 1024, lingerMs = 2_000 } = options;
    const socket = net.connect(port, "127.0.0.1");
    let received = "";
    let sent = 0;
    let sentWhenAnswered = -1;
    // Set from the socket's events, read in the loop below.
    const connection = { closed: false };
    const isClosed = () => connection.closed;
    let settled = false;
    let lingering: NodeJS.Timeout | undefined;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(lingering);
      socket.destroy();
      const at = sentWhenAnswered < 0 ? sent : sentWhenAnswered;
      resolve({
        answer: parseAnswer(received),
        sentWhenAnswered: at,
        sentEverything: at >= total,
        closedByServer: isClosed(),
      });
    };
    const answered = () => parseAnswer(received) !== null;
    socket.on("data", (data: Buffer) => {
      received += data.toString("latin1");
      if (sentWhenAnswered < 0 && answered()) {
        sentWhenAnswered = sent;
        lingering = setTimeout(finish, lingerMs);
      }
    });
    socket.on("error", () => undefined);
    socket.on("close", () => {
      connection.closed = true;
      finish();
    });
    const chunk = Buffer.alloc(chunkBytes, "a");
    const pump = async () => {
      socket.write(`${head}\r\n${chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${total}`}\r\n\r\n`);
      while (sent < total && !isClosed() && !answered()) {
        const size = Math.min(chunkBytes, total - sent);
        const piece = size === chunkBytes ? chunk : chunk.subarray(0, size);
        const data = chunked
          ? Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), piece, Buffer.from("\r\n")])
          : piece;
        sent += size;
        // Let the event loop read what the server said before writing more.
        if (!socket.write(data)) await new Promise((next) => socket.once("drain", next).once("close", next));
        else await new Promise((next) => setImmediate(next));
      }
      if (!isClosed() && !answered() && sent >= total) {
        if (chunked) socket.write("0\r\n\r\n");
        // Everything was sent: wait for the answer (or the server's close), then as long again.
        for (let waited = 0; !isClosed() && !answered() && waited < lingerMs * 5; waited += 20) await wait(20);
        if (!answered()) finish();
      }
    };
    socket.once("connect", () => void pump());
  });

/** Sends `text` on a new connection and resolves with everything the server sent until it closed it. */
export const exchange = (port: number, text: string | Buffer, timeoutMs = 5_000): Promise<string> =>
  new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(text));
    let received = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for ${timeoutMs} ms; it sent ${JSON.stringify(received)}`));
    }, timeoutMs);
    socket.on("data", (data: Buffer) => (received += data.toString("latin1")));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(received);
    });
  });

/** Whether a new TCP connection to the port is refused. */
export const connectionRefused = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"));
  });
