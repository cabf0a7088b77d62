import http from "node:http";

/**
 * fetch over a connection of its own, closed after the answer: as the guide's reverse proxy reaches the server
 * (no keep-alive to it), so that a switch of releases is judged as the visitors behind the proxy meet it. A
 * kept-alive connection that the old release's server closes as it stops can meet a request on its way, which
 * a browser sends again and Node's fetch does not.
 */
export const fetchAsProxied = (url: string, init?: RequestInit): Promise<Response> =>
  new Promise((resolve, reject) => {
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const request = http.request(
      url,
      { method: init?.method ?? "GET", headers: { ...headers, connection: "close" }, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("error", reject);
        response.on("end", () => {
          const answerHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            for (const one of Array.isArray(value) ? value : [value])
              if (one !== undefined) answerHeaders.append(name, one);
          }
          resolve(new Response(Buffer.concat(chunks), { status: response.statusCode ?? 0, headers: answerHeaders }));
        });
      },
    );
    request.setTimeout(10_000, () => request.destroy(new Error("no answer within 10 s")));
    request.on("error", reject);
    const body = init?.body;
    request.end(typeof body === "string" ? body : body instanceof URLSearchParams ? body.toString() : undefined);
  });
