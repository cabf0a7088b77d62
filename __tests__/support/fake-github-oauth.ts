import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stand-in for GitHub's OAuth web flow on loopback (GitHub itself cannot be reached from here): the
 * token endpoint, answering as GitHub does. GitHub answers a bad code or bad client credentials with 200
 * and an `error` field; `mode` makes it slow, down, or broken for a test.
 */
export interface FakeGithubOAuth {
  readonly url: string;
  /** What each exchange asked for, in order. */
  readonly exchanges: Record<string, unknown>[];
  mode: "normal" | "slow" | "error500";
  readonly close: () => Promise<void>;
}

export const FAKE_CLIENT_ID = "Iv1.fakeclientid";
export const FAKE_CLIENT_SECRET = "fake-client-secret-0123456789";
export const GOOD_CODE = "good-code-4567";
export const FAKE_TOKEN = "gho_faketoken0123456789abcdef";

export const startFakeGithubOAuth = async (): Promise<FakeGithubOAuth> => {
  const exchanges: Record<string, unknown>[] = [];
  const fake: { mode: FakeGithubOAuth["mode"] } = { mode: "normal" };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method !== "POST" || request.url !== "/login/oauth/access_token") {
        response.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>;
      exchanges.push({ ...body, accept: request.headers.accept });
      const answer = (status: number, json: unknown) =>
        response.writeHead(status, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(json));
      if (fake.mode === "slow") {
        setTimeout(() => answer(200, { error: "too late" }), 5_000).unref();
        return;
      }
      if (fake.mode === "error500") return answer(500, { message: "Server Error" });
      if (body.client_id !== FAKE_CLIENT_ID || body.client_secret !== FAKE_CLIENT_SECRET) {
        return answer(200, {
          error: "incorrect_client_credentials",
          error_description: "The client_id and/or client_secret passed are incorrect.",
          error_uri:
            "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#incorrect-client-credentials",
        });
      }
      if (body.code !== GOOD_CODE) {
        return answer(200, {
          error: "bad_verification_code",
          error_description: "The code passed is incorrect or expired.",
          error_uri:
            "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#bad-verification-code",
        });
      }
      return answer(200, { access_token: FAKE_TOKEN, token_type: "bearer", scope: "repo" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    get mode() {
      return fake.mode;
    },
    set mode(value) {
      fake.mode = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
