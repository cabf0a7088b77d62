/**
 * @jest-environment node
 */
import fs from "node:fs";
import path from "node:path";
import {
  OPERATION_SETTINGS,
  readInquiryConfig,
  transportProblems,
  type InquiryConfig,
} from "../server/inquiries/config";
import { metaOf } from "../server/settings/catalog";
import { readInquiryContent } from "../server/inquiries/content-on-disk";
import { createInquiryHandler, type InquiryRequest } from "../server/inquiries/intake/handler";
import { inquirySchema } from "../src/content-contract/schema";
import pino from "pino";

/**
 * The inquiry settings an operator gives in the environment: how fast inquiries are delivered, retried and
 * rate-limited. Each has the default the site ran with when content/inquiry.json held it, takes a good value, and
 * stops the start with the variable's name and its range when given a bad one.
 */
const content = readInquiryContent(path.resolve("content"));
const configWith = (env: NodeJS.ProcessEnv): InquiryConfig => readInquiryConfig(content.form.delivery, env);

type OperationName = (typeof OPERATION_SETTINGS)[number];

/** Where each variable ends up, in the unit its name gives. */
const readBack: Record<OperationName, (config: InquiryConfig) => number> = {
  INQUIRY_CONCURRENCY: (config) => config.delivery.concurrency,
  INQUIRY_ATTEMPT_TIMEOUT_SECONDS: (config) => config.delivery.attemptTimeoutMs / 1000,
  INQUIRY_MAX_ATTEMPTS: (config) => config.delivery.maxAttempts,
  INQUIRY_RETRY_DELAY_SECONDS: (config) => config.delivery.firstDelayMs / 1000,
  INQUIRY_RETRY_MAX_DELAY_SECONDS: (config) => config.delivery.maxDelayMs / 1000,
  INQUIRY_RATE_LIMIT_REQUESTS: (config) => config.rateLimit.requests,
  INQUIRY_RATE_LIMIT_WINDOW_SECONDS: (config) => config.rateLimit.windowSeconds,
};

// Written out rather than read from the catalogue: these are the values content/inquiry.json held.
const cases: readonly (readonly [OperationName, number, number, number, number])[] = [
  // name, default, a good value, lowest, highest
  ["INQUIRY_CONCURRENCY", 4, 2, 1, 32],
  ["INQUIRY_ATTEMPT_TIMEOUT_SECONDS", 20, 15, 1, 20],
  ["INQUIRY_MAX_ATTEMPTS", 8, 3, 1, 50],
  ["INQUIRY_RETRY_DELAY_SECONDS", 60, 30, 1, 86_400],
  ["INQUIRY_RETRY_MAX_DELAY_SECONDS", 3_600, 7_200, 1, 86_400],
  ["INQUIRY_RATE_LIMIT_REQUESTS", 5, 12, 1, 1_000_000],
  ["INQUIRY_RATE_LIMIT_WINDOW_SECONDS", 600, 900, 1, 86_400],
];

describe("the inquiry settings read from the environment", () => {
  it("covers every operational setting, with the range the table gives", () => {
    expect(cases.map(([name]) => name).sort()).toEqual([...OPERATION_SETTINGS].sort());
    for (const [name, fallback, , min, max] of cases) {
      const setting = metaOf(name);
      // The longest retry delay has no default of its own: unset, it is 3600 or the first delay if longer.
      expect({
        default: setting.default ?? readBack[name](configWith({})),
        min: setting.min,
        max: setting.max,
      }).toEqual({ default: fallback, min, max });
    }
  });

  it("uses the defaults content/inquiry.json held when nothing is set", () => {
    const config = configWith({});
    expect(config.rateLimit).toEqual({ requests: 5, windowSeconds: 600 });
    expect(config.delivery).toEqual({
      concurrency: 4,
      attemptTimeoutMs: 20_000,
      maxAttempts: 8,
      firstDelayMs: 60_000,
      maxDelayMs: 3_600_000,
    });
  });

  it.each(cases)("%s: defaults to %d, takes a good value, and takes its bounds", (name, fallback, good, min, max) => {
    expect(readBack[name](configWith({}))).toBe(fallback);
    expect(readBack[name](configWith({ [name]: "" }))).toBe(fallback);
    expect(readBack[name](configWith({ [name]: ` ${good} ` }))).toBe(good);
    // A first delay of one second lets the longest delay go down to its own lowest.
    expect(readBack[name](configWith({ INQUIRY_RETRY_DELAY_SECONDS: "1", [name]: String(min) }))).toBe(min);
    expect(readBack[name](configWith({ [name]: String(max) }))).toBe(max);
  });

  it.each(cases)("%s: refuses what is not a whole number in its range, by name", (name, _fallback, _good, min, max) => {
    for (const bad of ["abc", "1.5", "1e3", "0x10", "+5", "-1", "5 s", String(min - 1), String(max + 1)]) {
      expect(() => configWith({ [name]: bad })).toThrow(
        new Error(`${name} must be a whole number from ${min} to ${max}, not ${bad}`),
      );
    }
  });

  it("says what is allowed in the words an operator reads", () => {
    expect(() => configWith({ INQUIRY_ATTEMPT_TIMEOUT_SECONDS: "abc" })).toThrow(
      "INQUIRY_ATTEMPT_TIMEOUT_SECONDS must be a whole number from 1 to 20, not abc",
    );
  });

  it("refuses a longest retry delay set below the first, and lets the default one follow a longer first delay", () => {
    expect(() => configWith({ INQUIRY_RETRY_DELAY_SECONDS: "120", INQUIRY_RETRY_MAX_DELAY_SECONDS: "90" })).toThrow(
      "INQUIRY_RETRY_MAX_DELAY_SECONDS must be at least INQUIRY_RETRY_DELAY_SECONDS (120), not 90",
    );
    expect(configWith({ INQUIRY_RETRY_DELAY_SECONDS: "7200" }).delivery).toMatchObject({
      firstDelayMs: 7_200_000,
      maxDelayMs: 7_200_000,
    });
  });

  it("files each transport's wrong settings under that transport, and lists them all for the operator", () => {
    const config = configWith({
      SMTP_URL: "https://mail.example.com",
      INQUIRY_TO: "sales",
      INQUIRY_FROM: "website@example.com",
      INQUIRY_WEBHOOK_URL: "ftp://hooks.example.com",
    });
    expect(config.problems).toEqual({
      email: ["SMTP_URL must be an smtp:// or smtps:// URL", "INQUIRY_TO must be an email address"],
      webhook: ["INQUIRY_WEBHOOK_URL must be an http:// or https:// URL"],
    });
    expect(transportProblems(config)).toHaveLength(3);
    expect(transportProblems(configWith({ INQUIRY_WEBHOOK_URL: "https://hooks.example.com" }))).toEqual([]);
  });

  it("keeps the spam check's fill time and the retention in content, the fill time overridable", () => {
    expect(configWith({}).minFillSeconds).toBe(content.form.delivery.minFillSeconds);
    expect(configWith({ INQUIRY_MIN_FILL_SECONDS: "1.5" }).minFillSeconds).toBe(1.5);
    expect(() => configWith({ INQUIRY_MIN_FILL_SECONDS: "soon" })).toThrow(
      "INQUIRY_MIN_FILL_SECONDS must be a number from 0 to 60, not soon",
    );
    expect(configWith({ INQUIRY_CONCURRENCY: "2" }).retention).toEqual(content.form.delivery.retention);
  });
});

describe("content/inquiry.json without the operational settings", () => {
  const inquiryJson = () =>
    JSON.parse(fs.readFileSync(path.resolve("content/inquiry.json"), "utf8")) as Record<string, unknown> & {
      delivery: Record<string, unknown>;
    };

  it("holds only copy and promises under delivery", () => {
    expect(Object.keys(inquiryJson().delivery).sort()).toEqual(
      ["emailSubject", "maxBodyKilobytes", "minFillSeconds", "referencePrefix", "retention"].sort(),
    );
  });

  it.each([
    ["concurrency", 4],
    ["attemptTimeoutSeconds", 20],
    ["retry", { maxAttempts: 8, firstDelaySeconds: 60, maxDelaySeconds: 3600 }],
    ["rateLimit", { requests: 5, windowSeconds: 600 }],
  ])("refuses delivery.%s, which editors can no longer set", (field, value) => {
    const file = inquiryJson();
    const result = inquirySchema.safeParse({ ...file, delivery: { ...file.delivery, [field]: value } });
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error?.issues)).toContain(field);
  });
});

describe("the too-many message", () => {
  const request: InquiryRequest = {
    method: "POST",
    contentType: "application/x-www-form-urlencoded",
    clientAddress: "192.0.2.9",
    host: "www.example.gov",
    origin: undefined,
    secFetchSite: undefined,
  };

  it("tells the visitor the wait the configured window sets, in minutes", async () => {
    // A limit of its own (1 per 900 s): the limiters are shared across the process by their limit.
    const handler = createInquiryHandler({
      content,
      config: () => configWith({ INQUIRY_RATE_LIMIT_REQUESTS: "1", INQUIRY_RATE_LIMIT_WINDOW_SECONDS: "900" }),
      log: pino({ level: "silent" }),
    });
    expect(await handler.screen(request)).toBeNull();
    const page = await handler.screen(request);
    expect(page?.status).toBe(429);
    expect(Number(page?.headers["Retry-After"])).toBeGreaterThan(840);
    // The page for a visitor without JavaScript fills {minutes} itself; the script fills it from the JSON below.
    expect(page?.body).toContain(content.form.tooMany.title);
    expect(page?.body).toContain("<strong>15</strong>");

    const json = await handler.screen({ ...request, contentType: "application/json" });
    expect(json?.status).toBe(429);
    const { retryAfterSeconds } = JSON.parse(json?.body ?? "{}") as { retryAfterSeconds: number };
    expect(retryAfterSeconds).toBeGreaterThan(840);
    expect(retryAfterSeconds).toBeLessThanOrEqual(900);
  });
});

describe("the digest of held inquiries and its release links", () => {
  it("sends the digest from 7 in the morning, with no release links until a secret is set", () => {
    expect(configWith({}).digest).toEqual({ hour: 7, releaseLinks: null });
  });

  it.each([
    ["0", 0],
    ["23", 23],
    [" 9 ", 9],
    ["off", null],
    ["OFF", null],
  ])("takes INQUIRY_DIGEST_HOUR=%s", (value, hour) => {
    expect(configWith({ INQUIRY_DIGEST_HOUR: value }).digest.hour).toBe(hour);
  });

  it.each(["24", "-1", "7.5", "7am", "1e1", "never"])(
    "refuses INQUIRY_DIGEST_HOUR=%s, naming it and what it takes",
    (value) => {
      expect(() => configWith({ INQUIRY_DIGEST_HOUR: value })).toThrow(
        `INQUIRY_DIGEST_HOUR must be a whole number from 0 to 23, or off, not ${value}`,
      );
    },
  );

  const origin = "https://www.example.gov";

  it("takes a release secret of 32 characters or more, and refuses a shorter one without showing it", () => {
    const secret = "f".repeat(64);
    expect(configWith({ INQUIRY_RELEASE_SECRET: secret, INQUIRY_RELEASE_ORIGIN: origin }).digest.releaseLinks).toEqual({
      secret,
      origin,
    });
    const short = () => configWith({ INQUIRY_RELEASE_SECRET: "change-me", INQUIRY_RELEASE_ORIGIN: origin });
    expect(short).toThrow(
      "INQUIRY_RELEASE_SECRET must be at least 32 characters (openssl rand -hex 32 makes one), not 9",
    );
    expect(short).not.toThrow(/change-me/);
  });

  const linksTo = (value: string) =>
    configWith({ INQUIRY_RELEASE_SECRET: "f".repeat(64), INQUIRY_RELEASE_ORIGIN: value }).digest.releaseLinks?.origin;
  const refusal = (value: string) =>
    `INQUIRY_RELEASE_ORIGIN must be an https:// origin such as https://www.example.com (http:// only on a loopback host), not ${value}`;

  it.each([
    ["https://www.example.gov/", "https://www.example.gov"],
    ["https://www.example.gov:8443", "https://www.example.gov:8443"],
    ["https://192.0.2.10", "https://192.0.2.10"],
    // Plain http on a loopback host only, where the tests run their servers.
    ["http://127.0.0.1:9000", "http://127.0.0.1:9000"],
    ["http://127.1.2.3", "http://127.1.2.3"],
    ["http://[::1]:9000/", "http://[::1]:9000"],
    ["http://localhost:8000", "http://localhost:8000"],
  ])("takes the origin %s for the links", (value, taken) => {
    expect(linksTo(value)).toBe(taken);
  });

  it.each([
    "http://www.example.gov",
    "http://192.0.2.10:9000",
    "http://10.0.0.5",
    "http://[::2]",
    "http://0.0.0.0:9000",
    "http://localhost.example.gov",
    "http://127.0.0.1.example.gov",
  ])("refuses the http origin %s: the links would cross a network in the clear", (value) => {
    expect(() => linksTo(value)).toThrow(refusal(value));
  });

  it.each(["www.example.gov", "https://www.example.gov/contact", "ftp://example.gov", "https://user@www.example.gov"])(
    "refuses %s, which is no origin",
    (value) => {
      expect(() => linksTo(value)).toThrow(refusal(value));
    },
  );

  it("refuses a release secret without an origin, naming both, rather than take the links' origin from content", () => {
    const withoutOrigin = () => configWith({ INQUIRY_RELEASE_SECRET: "f".repeat(64) });
    expect(withoutOrigin).toThrow(
      "INQUIRY_RELEASE_SECRET is set but INQUIRY_RELEASE_ORIGIN is not: say where the digest's release links point",
    );
    expect(() => configWith({ INQUIRY_RELEASE_SECRET: "f".repeat(64), INQUIRY_RELEASE_ORIGIN: " " })).toThrow(
      /INQUIRY_RELEASE_ORIGIN is not/,
    );
  });

  it("has no release links with an origin alone, and still refuses a wrong one", () => {
    expect(configWith({ INQUIRY_RELEASE_ORIGIN: origin }).digest.releaseLinks).toBeNull();
    expect(() => configWith({ INQUIRY_RELEASE_ORIGIN: "http://www.example.gov" })).toThrow(
      refusal("http://www.example.gov"),
    );
  });
});
