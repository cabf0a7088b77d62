import http from "node:http";
import type { AddressInfo } from "node:net";

/** How a slow connection delivers a page: its HTML a little at a time. */
const chunkBytes = 1024;
const pauseMs = 30;

/**
 * A relay in front of the site's server that sends every HTML document on in pieces of 1 KB, 30 ms
 * apart, and everything else at once. Browsers paint a page while its HTML is still arriving, so a
 * layout that moves what is already painted when later markup comes in shows as a layout shift here,
 * as it would on a phone's connection, and never on loopback, where the whole document arrives at once.
 */
export const startHtmlInPartsRelay = async (origin: string) => {
  const target = new URL(origin);
  const server = http.createServer((request, response) => {
    const headers = { ...request.headers, host: target.host };
    // Uncompressed, so that each piece is markup the parser can use as it comes.
    delete headers["accept-encoding"];
    const upstream = http.request(
      { hostname: target.hostname, port: target.port, path: request.url, method: request.method, headers },
      (answer) => {
        const html = (answer.headers["content-type"] ?? "").startsWith("text/html");
        const answerHeaders = { ...answer.headers };
        // Sent in pieces, an HTML body goes chunked; Node sets that itself when no length is given.
        delete answerHeaders["transfer-encoding"];
        if (html) delete answerHeaders["content-length"];
        response.writeHead(answer.statusCode ?? 502, answerHeaders);
        if (!html) {
          answer.pipe(response);
          return;
        }
        const parts: Buffer[] = [];
        answer.on("data", (part: Buffer) => parts.push(part));
        answer.on("end", () => {
          const body = Buffer.concat(parts);
          const send = (offset: number) => {
            if (response.destroyed) return;
            if (offset >= body.length) {
              response.end();
              return;
            }
            response.write(body.subarray(offset, offset + chunkBytes));
            setTimeout(send, pauseMs, offset + chunkBytes);
          };
          send(0);
        });
      },
    );
    upstream.on("error", () => response.destroy());
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
