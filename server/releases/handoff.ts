import { randomBytes } from "node:crypto";
import type http from "node:http";
import type net from "node:net";
import path from "node:path";

/**
 * A release's server run by the primary takes its visitors' connections from the primary (worker-link.ts),
 * which holds the public socket itself. The primary runs a release's server only when the release has this
 * compiled module: one made before it would try to listen on the port the primary holds, and never serve.
 */
export const HANDOFF_MODULE = path.join("dist", "server", "releases", "handoff.js");

/**
 * Where a release's server listens of its own: an address in Linux's abstract namespace, which no file
 * holds and nobody is told. It listens only so that Node runs its server as a listening one (the request
 * and header time-outs, and closing idle connections at a stop); visitors' connections come from the primary.
 */
export const privateAddress = (): string => `\0cardinal-site-${process.pid}-${randomBytes(6).toString("hex")}`;

// A visitor's first request follows its connection at once; one that sends nothing for this long is idle.
const FIRST_REQUEST_WAIT_MS = 1_000;

/**
 * The connections the primary handed to this server, from each one's arrival to its close. Node's server
 * counts only the connections it accepted itself, so neither its close nor its idle check knows these: a stop
 * here waits for each one's first request (one handed over just before the stop is idle until its bytes are
 * read), then closes each once the answers under way on it are given.
 */
export class HandedConnections {
  /** Each open connection: the answers it is giving, or null before its first request. */
  private readonly open = new Map<net.Socket, number | null>();
  private stopping = false;
  /** Called whenever a connection begins its first request or closes. */
  private changed: () => void = () => undefined;

  constructor(private readonly server: http.Server) {
    server.on("request", (request: http.IncomingMessage, response: http.ServerResponse) => {
      const { socket } = request;
      if (!this.open.has(socket)) return;
      this.open.set(socket, (this.open.get(socket) ?? 0) + 1);
      this.changed();
      response.once("close", () => {
        const answering = (this.open.get(socket) ?? 1) - 1;
        if (this.open.has(socket)) this.open.set(socket, answering);
        if (this.stopping && answering === 0) socket.destroy();
      });
    });
  }

  /** Serves a connection the primary accepted, as if this server had accepted it. */
  take(socket: net.Socket): void {
    this.open.set(socket, null);
    socket.once("close", () => {
      this.open.delete(socket);
      this.changed();
    });
    this.server.emit("connection", socket);
    socket.resume();
  }

  /** Resolves once every connection handed over has begun its first request, or after a second. */
  settled(): Promise<void> {
    return this.until(() => ![...this.open.values()].includes(null), FIRST_REQUEST_WAIT_MS);
  }

  /** At a stop: closes each connection once its answers under way are given; resolves when all have closed. */
  drained(): Promise<void> {
    this.stopping = true;
    for (const [socket, answering] of this.open) if (!answering) socket.destroy();
    return this.until(() => this.open.size === 0);
  }

  private until(done: () => boolean, timeoutMs?: number): Promise<void> {
    return new Promise((resolve) => {
      const finish = () => {
        if (timer) clearTimeout(timer);
        this.changed = () => undefined;
        resolve();
      };
      const timer = timeoutMs === undefined ? null : setTimeout(finish, timeoutMs);
      this.changed = () => {
        if (done()) finish();
      };
      this.changed();
    });
  }
}
