import { outcomeOf, sendInquiry, waitMinutes } from "../src/inquiry/send-inquiry";
import { honeypotField } from "../src/inquiry/protocol";
import { reply } from "./support/inquiry-form";

const body = {
  fullName: "Pat Doe",
  [honeypotField]: "",
  fill_ms: 5000,
  idempotency_key: "0f8e1c9a-4b2d-4e6f-8a1b-2c3d4e5f6a7b",
};

afterEach(() => {
  jest.useRealTimers();
  Reflect.deleteProperty(globalThis, "fetch");
});

describe("sendInquiry", () => {
  it("reads each answer of /api/inquiry as what the form shows", async () => {
    await expect(outcomeOf(reply(201, { reference: " CRS-1 " }))).resolves.toEqual({
      kind: "sent",
      reference: "CRS-1",
    });
    await expect(outcomeOf(reply(201, { reference: "" }))).resolves.toEqual({ kind: "failed" });
    await expect(outcomeOf(reply(201, ["CRS-1"]))).resolves.toEqual({ kind: "failed" });
    await expect(
      outcomeOf(reply(422, { errors: { phone: "Bad phone.", compliance: "Bad mark.", admin: "x", email: 3 } })),
    ).resolves.toEqual({ kind: "invalid", errors: { phone: "Bad phone.", compliance: "Bad mark." } });
    await expect(outcomeOf(reply(422, { errors: "everything" }))).resolves.toEqual({ kind: "failed" });
    await expect(outcomeOf(reply(429, { retryAfterSeconds: 61 }))).resolves.toEqual({ kind: "tooMany", minutes: 2 });
    for (const status of [200, 400, 404, 405, 413, 415, 500, 503])
      await expect(outcomeOf(reply(status, { error: "x", reference: "CRS-1" }))).resolves.toEqual({ kind: "failed" });
  });

  it("works out the minutes to wait from the body, then the Retry-After header, then one", () => {
    const now = Date.parse("2027-01-05T12:00:00Z");
    expect(waitMinutes(600, "60", now)).toBe(10);
    expect(waitMinutes(1, null, now)).toBe(1);
    expect(waitMinutes(0, null, now)).toBe(1);
    expect(waitMinutes("600", "120", now)).toBe(2);
    expect(waitMinutes(undefined, "Tue, 05 Jan 2027 12:04:30 GMT", now)).toBe(5);
    expect(waitMinutes(undefined, "soon", now)).toBe(1);
    expect(waitMinutes(undefined, null, now)).toBe(1);
  });

  it("posts JSON and asks for JSON", async () => {
    const fetchMock = jest
      .fn<Promise<Response>, Parameters<typeof fetch>>()
      .mockResolvedValue(reply(201, { reference: "R" }));
    global.fetch = fetchMock;
    await expect(sendInquiry(body)).resolves.toEqual({ kind: "sent", reference: "R" });
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe("/api/inquiry");
    expect(init).toMatchObject({
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
    });
  });

  it("never throws: no fetch at all, or one that rejects, is a failure", async () => {
    await expect(sendInquiry(body)).resolves.toEqual({ kind: "failed" });
    global.fetch = jest.fn<Promise<Response>, Parameters<typeof fetch>>().mockRejectedValue(new TypeError("offline"));
    await expect(sendInquiry(body)).resolves.toEqual({ kind: "failed" });
  });

  it("gives up on an answer that does not come", async () => {
    jest.useFakeTimers();
    global.fetch = jest.fn<Promise<Response>, Parameters<typeof fetch>>(
      (_url, init) =>
        new Promise((_resolve, reject) => {
          init?.signal?.addEventListener("abort", () => reject(new DOMException("Aborted", "AbortError")));
        }),
    );
    const outcome = sendInquiry(body);
    await jest.advanceTimersByTimeAsync(30_000);
    await expect(outcome).resolves.toEqual({ kind: "failed" });
  });
});
