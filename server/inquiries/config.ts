import path from "node:path";
import * as z from "zod/mini";
import type { InquiryContent } from "./content";
import { MAX_ATTEMPT_TIMEOUT_SECONDS } from "../stop-grace";

/**
 * How this deployment stores and delivers inquiries: environment variables, read when a request
 * arrives. Gatsby's function bundler replaces every literal `process.env.NAME` with its value at
 * build time, so the environment is reached through `globalThis` where the bundler cannot see it:
 * a server is configured when it starts, not when the site was built.
 */
const runtimeEnvironment = (): NodeJS.ProcessEnv => globalThis.process.env;

export type TransportName = "email" | "webhook";

export interface EmailSettings {
  readonly smtpUrl: string;
  readonly to: string;
  readonly from: string;
  /** Plain SMTP, without TLS, allowed: only for a relay on the same machine or network. */
  readonly allowPlain: boolean;
}

export interface DeliveryPolicy {
  /** Deliveries under way at once, across all inquiries. */
  readonly concurrency: number;
  /** How long one attempt through one transport may take before it counts as failed. */
  readonly attemptTimeoutMs: number;
  /** Attempts per transport before the inquiry is set aside as undeliverable (dead letter). */
  readonly maxAttempts: number;
  readonly firstDelayMs: number;
  readonly maxDelayMs: number;
}

/** Where inquiries are kept: a SQLite database in `dataDir`, or a Netlify Blobs store (the CDN deploy). */
export type OutboxKind = "sqlite" | "blobs";

export interface BlobsSettings {
  readonly store: string;
  /**
   * The site and a Netlify personal access token, for reaching the store through the Netlify API from
   * outside the site's functions (`npm run inquiries`, a server). Inside a function, the platform's own
   * credentials are used and these may stay unset.
   */
  readonly siteID: string | null;
  readonly token: string | null;
  /**
   * A Blobs server to reach directly with the site ID and token, instead of through the Netlify API:
   * only a local Blobs server (tests, the load bench) is reached this way.
   */
  readonly serverURL: string | null;
}

/** How long inquiries are kept (content/inquiry.json, the number the privacy page states). */
export interface RetentionPolicy {
  /**
   * An inquiry (any but suspected spam never released) is removed this many months after the last one
   * from the same address, unless an operator marked it as kept.
   */
  readonly deliveredMonths: number;
  /** One held as suspected spam and never released is removed this many days after it arrived. */
  readonly quarantinedDays: number;
}

/**
 * The daily digest of inquiries held as suspected spam, and the links in it that release one (digest.ts,
 * release-link.ts).
 */
export interface DigestSettings {
  /** The hour (0 to 23, in the company's time zone) from which each day's digest goes out; null: no digest. */
  readonly hour: number | null;
  /** The key release links are signed with; null: the digest has no release links, and the release page is not there. */
  readonly releaseSecret: string | null;
  /** The origin release links point to (`https://www.example.com`); null: the site's own, content/company.json's siteUrl. */
  readonly releaseOrigin: string | null;
}

export interface InquiryConfig {
  readonly outbox: OutboxKind;
  readonly dataDir: string;
  readonly blobs: BlobsSettings;
  /** False where the outbox does not survive the request (a serverless function's /tmp). */
  readonly durableOutbox: boolean;
  readonly email: EmailSettings | null;
  readonly webhook: { readonly url: string; readonly secret: string | null } | null;
  /** Set but unusable settings: deliveries through them fail (and stay pending) instead of vanishing. */
  readonly problems: readonly string[];
  readonly rateLimit: { readonly requests: number; readonly windowSeconds: number };
  readonly minFillSeconds: number;
  /**
   * For the serverless adapter only: the request header in which the platform (not the visitor) puts the
   * visitor's address. The production server takes the address from its trusted-proxy setting instead.
   */
  readonly clientIpHeader: string | null;
  /** Origins besides the site's own from which the form may be posted (a second domain, say). */
  readonly allowedOrigins: readonly string[];
  readonly delivery: DeliveryPolicy;
  readonly retention: RetentionPolicy;
  readonly digest: DigestSettings;
}

/** An unset or blank variable means "use the default". */
const setting = (env: NodeJS.ProcessEnv, name: string): string | undefined => {
  const value = env[name]?.trim();
  return value === "" ? undefined : value;
};

/** A whole number an operator may set, its default when unset, and the range it must fall in. */
interface WholeNumberSetting {
  readonly default: number;
  readonly min: number;
  readonly max: number;
}

/**
 * How inquiries are delivered and limited: operations, set by whoever runs the site in its environment, not by
 * editors in content/inquiry.json. Each default is what the site ran with when these lived in content.
 */
export const operationSettings = {
  /** Deliveries under way at once, across all inquiries. */
  INQUIRY_CONCURRENCY: { default: 4, min: 1, max: 32 },
  /** Bounded by the stop grace: a stop waits for the attempts under way and must end before systemd's timeout. */
  INQUIRY_ATTEMPT_TIMEOUT_SECONDS: { default: 20, min: 1, max: MAX_ATTEMPT_TIMEOUT_SECONDS },
  INQUIRY_MAX_ATTEMPTS: { default: 8, min: 1, max: 50 },
  INQUIRY_RETRY_DELAY_SECONDS: { default: 60, min: 1, max: 86_400 },
  INQUIRY_RETRY_MAX_DELAY_SECONDS: { default: 3_600, min: 1, max: 86_400 },
  INQUIRY_RATE_LIMIT_REQUESTS: { default: 5, min: 1, max: 1_000_000 },
  INQUIRY_RATE_LIMIT_WINDOW_SECONDS: { default: 600, min: 1, max: 86_400 },
} as const satisfies Record<string, WholeNumberSetting>;

/** Digits only: `1e3`, `0x10`, `+5` and `5.0` are refused rather than read as some number the operator did not write. */
const wholeNumberSetting = (env: NodeJS.ProcessEnv, name: string, allowed: WholeNumberSetting): number => {
  const text = setting(env, name);
  if (text === undefined) return allowed.default;
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= allowed.min && value <= allowed.max)) {
    throw new Error(`${name} must be a whole number from ${allowed.min} to ${allowed.max}, not ${text}`);
  }
  return value;
};

/** A number of seconds, fractions allowed, within a range; unset, undefined (the caller has the default). */
const secondsSetting = (env: NodeJS.ProcessEnv, name: string, min: number, max: number): number | undefined => {
  const text = setting(env, name);
  if (text === undefined) return undefined;
  const value = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= min && value <= max)) throw new Error(`${name} must be a number from ${min} to ${max}, not ${text}`);
  return value;
};
/** The digest's hour by default: 7 in the morning in the company's time zone, before the sales desk opens. */
export const DEFAULT_DIGEST_HOUR = 7;
/** The shortest release secret taken: `openssl rand -hex 32` makes 64 characters. */
export const MIN_RELEASE_SECRET_LENGTH = 32;

/** An hour of the day, 0 to 23, or `off`; unset, the default. */
const digestHourSetting = (env: NodeJS.ProcessEnv): number | null => {
  const text = setting(env, "INQUIRY_DIGEST_HOUR");
  if (text === undefined) return DEFAULT_DIGEST_HOUR;
  if (text.toLowerCase() === "off") return null;
  const value = /^\d{1,2}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= 0 && value <= 23)) {
    throw new Error(`INQUIRY_DIGEST_HOUR must be a whole number from 0 to 23, or off, not ${text}`);
  }
  return value;
};

const isYes = (value: string | undefined) => ["1", "true", "yes"].includes((value ?? "").toLowerCase());

const isUrl = (value: string, protocols: readonly string[]) => {
  try {
    return protocols.includes(new URL(value).protocol);
  } catch {
    return false;
  }
};
const isAddress = (value: string) => z.email().safeParse(value.replace(/^.*<(.+)>$/, "$1")).success;

/**
 * What the settings need of content/inquiry.json's `delivery`: the promises a page states (retention) and the spam
 * check's default. Everything operational comes from the environment (operationSettings).
 */
export type ContentDelivery = Pick<InquiryContent["form"]["delivery"], "minFillSeconds" | "retention">;

/**
 * This deployment's inquiry settings, from the environment, with content/inquiry.json's `delivery` for what the
 * content promises. A value out of its range throws, naming the variable and what it allows: the server reads this
 * as it starts and stops there, a function answers 503 until the value is fixed.
 */
export const readInquiryConfig = (
  delivery: ContentDelivery,
  env: NodeJS.ProcessEnv = runtimeEnvironment(),
  cwd: string = process.cwd(),
): InquiryConfig => {
  const settings = {
    INQUIRY_OUTBOX: setting(env, "INQUIRY_OUTBOX"),
    INQUIRY_BLOBS_STORE: setting(env, "INQUIRY_BLOBS_STORE"),
    INQUIRY_BLOBS_SERVER_URL: setting(env, "INQUIRY_BLOBS_SERVER_URL"),
    NETLIFY_SITE_ID: setting(env, "NETLIFY_SITE_ID"),
    NETLIFY_BLOBS_TOKEN: setting(env, "NETLIFY_BLOBS_TOKEN") ?? setting(env, "NETLIFY_AUTH_TOKEN"),
    INQUIRY_DATA_DIR: setting(env, "INQUIRY_DATA_DIR"),
    INQUIRY_OUTBOX_EPHEMERAL: setting(env, "INQUIRY_OUTBOX_EPHEMERAL"),
    SMTP_URL: setting(env, "SMTP_URL"),
    INQUIRY_TO: setting(env, "INQUIRY_TO"),
    INQUIRY_FROM: setting(env, "INQUIRY_FROM"),
    INQUIRY_WEBHOOK_URL: setting(env, "INQUIRY_WEBHOOK_URL"),
    INQUIRY_WEBHOOK_SECRET: setting(env, "INQUIRY_WEBHOOK_SECRET"),
    INQUIRY_MIN_FILL_SECONDS: secondsSetting(env, "INQUIRY_MIN_FILL_SECONDS", 0, 60),
    INQUIRY_CLIENT_IP_HEADER: setting(env, "INQUIRY_CLIENT_IP_HEADER"),
    INQUIRY_ALLOWED_ORIGINS: setting(env, "INQUIRY_ALLOWED_ORIGINS"),
    SMTP_ALLOW_PLAIN: setting(env, "SMTP_ALLOW_PLAIN"),
    INQUIRY_RELEASE_SECRET: setting(env, "INQUIRY_RELEASE_SECRET"),
    INQUIRY_RELEASE_ORIGIN: setting(env, "INQUIRY_RELEASE_ORIGIN"),
  };
  // Called with each name written out, and with a body in braces: that is how the docs check finds a reader's names.
  const operation = (name: keyof typeof operationSettings): number => {
    return wholeNumberSetting(env, name, operationSettings[name]);
  };
  const firstDelaySeconds = operation("INQUIRY_RETRY_DELAY_SECONDS");
  const longestDelaySeconds = operation("INQUIRY_RETRY_MAX_DELAY_SECONDS");
  // A longest delay set below the first is a contradiction, refused; the default one gives way to a first delay
  // raised past it, so raising the first delay alone keeps working.
  if (setting(env, "INQUIRY_RETRY_MAX_DELAY_SECONDS") !== undefined && longestDelaySeconds < firstDelaySeconds) {
    throw new Error(
      `INQUIRY_RETRY_MAX_DELAY_SECONDS must be at least INQUIRY_RETRY_DELAY_SECONDS (${firstDelaySeconds}), ` +
        `not ${longestDelaySeconds}`,
    );
  }
  const rateLimit = {
    requests: operation("INQUIRY_RATE_LIMIT_REQUESTS"),
    windowSeconds: operation("INQUIRY_RATE_LIMIT_WINDOW_SECONDS"),
  };
  const deliveryPolicy: DeliveryPolicy = {
    concurrency: operation("INQUIRY_CONCURRENCY"),
    attemptTimeoutMs: operation("INQUIRY_ATTEMPT_TIMEOUT_SECONDS") * 1000,
    maxAttempts: operation("INQUIRY_MAX_ATTEMPTS"),
    firstDelayMs: firstDelaySeconds * 1000,
    maxDelayMs: Math.max(firstDelaySeconds, longestDelaySeconds) * 1000,
  };
  const problems: string[] = [];
  const named = settings.INQUIRY_OUTBOX?.toLowerCase() ?? "sqlite";
  // Refused rather than defaulted: a typo must not send inquiries to a folder that vanishes with the instance.
  if (named !== "sqlite" && named !== "blobs") throw new Error(`INQUIRY_OUTBOX must be sqlite or blobs: ${named}`);
  const outbox: OutboxKind = named;
  const store = settings.INQUIRY_BLOBS_STORE ?? "inquiries";
  if (store.includes("/") || Buffer.byteLength(store) > 64) {
    throw new Error(`INQUIRY_BLOBS_STORE must be at most 64 bytes, without a slash: ${store}`);
  }

  let email: EmailSettings | null = null;
  if (settings.SMTP_URL) {
    email = {
      smtpUrl: settings.SMTP_URL,
      to: settings.INQUIRY_TO ?? "",
      from: settings.INQUIRY_FROM ?? "",
      allowPlain: isYes(settings.SMTP_ALLOW_PLAIN),
    };
    if (!isUrl(settings.SMTP_URL, ["smtp:", "smtps:"])) problems.push("SMTP_URL must be an smtp:// or smtps:// URL");
    if (!settings.INQUIRY_TO || !isAddress(settings.INQUIRY_TO)) problems.push("INQUIRY_TO must be an email address");
    if (!settings.INQUIRY_FROM || !isAddress(settings.INQUIRY_FROM))
      problems.push("INQUIRY_FROM must be an email address");
  }
  let webhook: InquiryConfig["webhook"] = null;
  if (settings.INQUIRY_WEBHOOK_URL) {
    webhook = { url: settings.INQUIRY_WEBHOOK_URL, secret: settings.INQUIRY_WEBHOOK_SECRET ?? null };
    if (!isUrl(settings.INQUIRY_WEBHOOK_URL, ["http:", "https:"]))
      problems.push("INQUIRY_WEBHOOK_URL must be an http:// or https:// URL");
  }

  const releaseSecret = settings.INQUIRY_RELEASE_SECRET ?? null;
  // Refused rather than taken: a short key makes links someone could forge; the server does not start with one.
  if (releaseSecret !== null && releaseSecret.length < MIN_RELEASE_SECRET_LENGTH) {
    throw new Error(
      `INQUIRY_RELEASE_SECRET must be at least ${MIN_RELEASE_SECRET_LENGTH} characters (openssl rand -hex 32 makes one), ` +
        `not ${releaseSecret.length}`,
    );
  }
  const releaseOriginText = settings.INQUIRY_RELEASE_ORIGIN?.replace(/\/+$/, "");
  if (
    releaseOriginText !== undefined &&
    !(isUrl(releaseOriginText, ["http:", "https:"]) && new URL(releaseOriginText).origin === releaseOriginText)
  ) {
    throw new Error(
      `INQUIRY_RELEASE_ORIGIN must be an origin such as https://www.example.com, not ${releaseOriginText}`,
    );
  }

  return {
    outbox,
    dataDir: path.resolve(cwd, settings.INQUIRY_DATA_DIR ?? ".data"),
    blobs: {
      store,
      siteID: settings.NETLIFY_SITE_ID ?? null,
      token: settings.NETLIFY_BLOBS_TOKEN ?? null,
      serverURL: settings.INQUIRY_BLOBS_SERVER_URL ?? null,
    },
    // A Blobs store outlives every function instance, whatever INQUIRY_OUTBOX_EPHEMERAL says.
    durableOutbox: outbox === "blobs" || !isYes(settings.INQUIRY_OUTBOX_EPHEMERAL),
    email,
    webhook,
    problems,
    rateLimit,
    minFillSeconds: settings.INQUIRY_MIN_FILL_SECONDS ?? delivery.minFillSeconds,
    clientIpHeader: settings.INQUIRY_CLIENT_IP_HEADER?.toLowerCase() ?? null,
    allowedOrigins: (settings.INQUIRY_ALLOWED_ORIGINS ?? "")
      .split(",")
      .map((origin) => origin.trim().replace(/\/+$/, ""))
      .filter((origin) => origin !== ""),
    delivery: deliveryPolicy,
    // From content only, never from the environment: the privacy page states the same number.
    retention: delivery.retention,
    digest: { hour: digestHourSetting(env), releaseSecret, releaseOrigin: releaseOriginText ?? null },
  };
};

/** The transports an inquiry accepted now must go through. */
export const configuredTransports = (config: InquiryConfig): TransportName[] => [
  ...(config.email ? (["email"] as const) : []),
  ...(config.webhook ? (["webhook"] as const) : []),
];
