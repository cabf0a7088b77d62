import path from "node:path";
import * as z from "zod/mini";
import type { InquiryContent } from "./content";
import {
  isUrl,
  readOnce,
  readSettings,
  runtimeEnvironment,
  settingsPart,
  type Environment,
  type PartValues,
} from "../settings/catalog";

/*
 * How this deployment stores and delivers inquiries: environment variables, read once as the server or a function
 * instance starts, through the catalogue of settings (which reaches the environment through `globalThis`, out of
 * the function bundler's sight: a server is configured when it starts, not when the site was built).
 */

export type TransportName = "email" | "webhook";

interface EmailSettings {
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

/** Where inquiries are kept: SQLite in `dataDir`, or Postgres (Netlify Database, on the CDN deploy). */
type OutboxKind = "sqlite" | "postgres";

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
 * The daily digest of inquiries held as suspected spam, and the links in it that release one (held/digest.ts,
 * held/release-link.ts).
 */
interface DigestSettings {
  /** The hour (0 to 23, in the company's time zone) from which each day's digest goes out; null: no digest. */
  readonly hour: number | null;
  /** How release links are made; null: the digest has none, and the release page is not there. */
  readonly releaseLinks: ReleaseLinkSettings | null;
}

/** Both from the environment, set together: INQUIRY_RELEASE_SECRET and INQUIRY_RELEASE_ORIGIN. */
interface ReleaseLinkSettings {
  /** The key release links are signed with. */
  readonly secret: string;
  /** The origin they point to (`https://www.example.com`). */
  readonly origin: string;
}

export interface InquiryConfig {
  readonly outbox: OutboxKind;
  readonly dataDir: string;
  /** With `postgres`: the database's connection string; null for Netlify Database's, which its package finds. */
  readonly databaseUrl: string | null;
  /** False where the outbox does not survive the request (a serverless function's /tmp). */
  readonly durableOutbox: boolean;
  readonly email: EmailSettings | null;
  readonly webhook: { readonly url: string; readonly secret: string | null } | null;
  /**
   * Set but unusable settings, by the transport they belong to: deliveries through that transport fail (and stay
   * pending) instead of vanishing, and the other transports deliver as usual.
   */
  readonly problems: Readonly<Record<TransportName, readonly string[]>>;
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

/**
 * How inquiries are delivered and limited: operations, set by whoever runs the site in its environment, not by
 * editors in content/inquiry.json. Each default is what the site ran with when these lived in content.
 */
export const OPERATION_SETTINGS = [
  "INQUIRY_CONCURRENCY",
  "INQUIRY_ATTEMPT_TIMEOUT_SECONDS",
  "INQUIRY_MAX_ATTEMPTS",
  "INQUIRY_RETRY_DELAY_SECONDS",
  "INQUIRY_RETRY_MAX_DELAY_SECONDS",
  "INQUIRY_RATE_LIMIT_REQUESTS",
  "INQUIRY_RATE_LIMIT_WINDOW_SECONDS",
] as const;

/** The longest delay between retries when INQUIRY_RETRY_MAX_DELAY_SECONDS is unset, unless the first is longer. */
const DEFAULT_LONGEST_RETRY_SECONDS = 3_600;

/** Every setting the inquiries read, and the rules between them: part of each entry point's settings. */
export const inquirySettings = settingsPart(
  [
    "INQUIRY_DATA_DIR",
    "INQUIRY_OUTBOX",
    "INQUIRY_DATABASE_URL",
    "NETLIFY_DB_URL",
    "INQUIRY_OUTBOX_EPHEMERAL",
    "SMTP_URL",
    "SMTP_ALLOW_PLAIN",
    "INQUIRY_TO",
    "INQUIRY_FROM",
    "INQUIRY_WEBHOOK_URL",
    "INQUIRY_WEBHOOK_SECRET",
    "INQUIRY_MIN_FILL_SECONDS",
    "INQUIRY_ALLOWED_ORIGINS",
    "INQUIRY_CLIENT_IP_HEADER",
    "INQUIRY_DIGEST_HOUR",
    "INQUIRY_RELEASE_SECRET",
    "INQUIRY_RELEASE_ORIGIN",
    ...OPERATION_SETTINGS,
  ],
  {
    // A longest delay set below the first is a contradiction; the default one gives way to a first delay raised
    // past it, so raising the first delay alone keeps working.
    reads: ["INQUIRY_RETRY_DELAY_SECONDS", "INQUIRY_RETRY_MAX_DELAY_SECONDS"],
    problem: ({ INQUIRY_RETRY_DELAY_SECONDS: first, INQUIRY_RETRY_MAX_DELAY_SECONDS: longest }) =>
      longest !== null && longest < first
        ? `INQUIRY_RETRY_MAX_DELAY_SECONDS must be at least INQUIRY_RETRY_DELAY_SECONDS (${first}), not ${longest}`
        : null,
  },
  {
    // The links would have nowhere to point but content's siteUrl, which editors change. An origin without a
    // secret is read, and refused if wrong, but unused.
    reads: ["INQUIRY_RELEASE_SECRET", "INQUIRY_RELEASE_ORIGIN"],
    problem: (values) =>
      values.INQUIRY_RELEASE_SECRET !== null && values.INQUIRY_RELEASE_ORIGIN === null
        ? "INQUIRY_RELEASE_SECRET is set but INQUIRY_RELEASE_ORIGIN is not: say where the digest's release links point"
        : null,
  },
  {
    // A database named but not used would leave an operator who moved to Postgres writing to SQLite unawares.
    reads: ["INQUIRY_DATABASE_URL", "INQUIRY_OUTBOX"],
    problem: (values) =>
      values.INQUIRY_DATABASE_URL !== null && values.INQUIRY_OUTBOX === "sqlite"
        ? "INQUIRY_DATABASE_URL is set but INQUIRY_OUTBOX is sqlite: set INQUIRY_OUTBOX=postgres or unset it"
        : null,
  },
);

export type InquirySettings = PartValues<typeof inquirySettings>;

const isAddress = (value: string) => z.email().safeParse(value.replace(/^.*<(.+)>$/, "$1")).success;

/**
 * What the settings need of content/inquiry.json's `delivery`: the promises a page states (retention) and the spam
 * check's default. Everything operational comes from the environment (inquirySettings).
 */
export type ContentDelivery = Pick<InquiryContent["form"]["delivery"], "minFillSeconds" | "retention">;

/** How inquiries are delivered and retried, and how often one client may post. */
const operationsOf = (settings: InquirySettings): Pick<InquiryConfig, "delivery" | "rateLimit"> => {
  const firstDelaySeconds = settings.INQUIRY_RETRY_DELAY_SECONDS;
  const longestDelaySeconds =
    settings.INQUIRY_RETRY_MAX_DELAY_SECONDS ?? Math.max(firstDelaySeconds, DEFAULT_LONGEST_RETRY_SECONDS);
  return {
    rateLimit: {
      requests: settings.INQUIRY_RATE_LIMIT_REQUESTS,
      windowSeconds: settings.INQUIRY_RATE_LIMIT_WINDOW_SECONDS,
    },
    delivery: {
      concurrency: settings.INQUIRY_CONCURRENCY,
      attemptTimeoutMs: settings.INQUIRY_ATTEMPT_TIMEOUT_SECONDS * 1000,
      maxAttempts: settings.INQUIRY_MAX_ATTEMPTS,
      firstDelayMs: firstDelaySeconds * 1000,
      maxDelayMs: longestDelaySeconds * 1000,
    },
  };
};

/**
 * The transports, and what is wrong with their settings. Not refused: a wrong address fails each delivery through
 * it, which stays pending, and the log names the setting, rather than the inquiry being lost.
 */
const transportSettingsOf = (settings: InquirySettings): Pick<InquiryConfig, "email" | "webhook" | "problems"> => {
  const smtpUrl = settings.SMTP_URL;
  const to = settings.INQUIRY_TO ?? "";
  const from = settings.INQUIRY_FROM ?? "";
  const email = smtpUrl === null ? null : { smtpUrl, to, from, allowPlain: settings.SMTP_ALLOW_PLAIN };
  const webhookUrl = settings.INQUIRY_WEBHOOK_URL;
  const webhook = webhookUrl === null ? null : { url: webhookUrl, secret: settings.INQUIRY_WEBHOOK_SECRET };
  const problems = {
    email: email
      ? [
          ...(isUrl(email.smtpUrl, ["smtp:", "smtps:"]) ? [] : ["SMTP_URL must be an smtp:// or smtps:// URL"]),
          ...(isAddress(to) ? [] : ["INQUIRY_TO must be an email address"]),
          ...(isAddress(from) ? [] : ["INQUIRY_FROM must be an email address"]),
        ]
      : [],
    webhook:
      webhook && !isUrl(webhook.url, ["http:", "https:"])
        ? ["INQUIRY_WEBHOOK_URL must be an http:// or https:// URL"]
        : [],
  };
  return { email, webhook, problems };
};

/** The folder of the SQLite store when INQUIRY_DATA_DIR is unset, under the folder the process runs in. */
const DEFAULT_DATA_DIR = ".data";

/**
 * This deployment's inquiry settings, from the entry point's settings, with content/inquiry.json's `delivery` for
 * what the content promises.
 */
export const inquiryConfigOf = (
  delivery: ContentDelivery,
  settings: InquirySettings,
  cwd: string = process.cwd(),
): InquiryConfig => {
  const databaseUrl = settings.INQUIRY_DATABASE_URL;
  const outbox: OutboxKind =
    settings.INQUIRY_OUTBOX ?? (databaseUrl !== null || settings.NETLIFY_DB_URL !== null ? "postgres" : "sqlite");
  return {
    outbox,
    dataDir: path.resolve(cwd, settings.INQUIRY_DATA_DIR ?? DEFAULT_DATA_DIR),
    databaseUrl,
    // A Postgres outlives every function instance, whatever INQUIRY_OUTBOX_EPHEMERAL says.
    durableOutbox: outbox !== "sqlite" || !settings.INQUIRY_OUTBOX_EPHEMERAL,
    ...transportSettingsOf(settings),
    ...operationsOf(settings),
    minFillSeconds: settings.INQUIRY_MIN_FILL_SECONDS ?? delivery.minFillSeconds,
    clientIpHeader: settings.INQUIRY_CLIENT_IP_HEADER?.toLowerCase() ?? null,
    allowedOrigins: (settings.INQUIRY_ALLOWED_ORIGINS ?? "")
      .split(",")
      .map((origin) => origin.trim().replace(/\/+$/, ""))
      .filter((origin) => origin !== ""),
    // From content only, never from the environment: the privacy page states the same number.
    retention: delivery.retention,
    // A short release secret is refused by the catalogue: it would make links someone could forge.
    digest: {
      hour: settings.INQUIRY_DIGEST_HOUR,
      releaseLinks:
        settings.INQUIRY_RELEASE_SECRET !== null && settings.INQUIRY_RELEASE_ORIGIN !== null
          ? { secret: settings.INQUIRY_RELEASE_SECRET, origin: settings.INQUIRY_RELEASE_ORIGIN }
          : null,
    },
  };
};

/**
 * The inquiry settings of an environment, read as an entry point reads them: a value out of its range, or two that
 * contradict each other, throw, naming every problem. The server reads this as it starts and stops there; a
 * function reads it once per instance (instanceInquiryConfig) and answers 503 until the value is fixed.
 */
export const readInquiryConfig = (
  delivery: ContentDelivery,
  env: Environment = runtimeEnvironment(),
  cwd: string = process.cwd(),
): InquiryConfig => inquiryConfigOf(delivery, readSettings([inquirySettings], env), cwd);

/** A Netlify function instance's inquiry settings: read at its first call and kept, a failure too (readOnce). */
export const instanceInquiryConfig = (delivery: ContentDelivery): (() => InquiryConfig) =>
  readOnce(() => readInquiryConfig(delivery));

/** Whether each transport is set up: a record, so that a new transport cannot be added without saying. */
const IS_CONFIGURED: Readonly<Record<TransportName, (config: InquiryConfig) => boolean>> = {
  email: (config) => config.email !== null,
  webhook: (config) => config.webhook !== null,
};

/** The transports an inquiry accepted now must go through. */
export const configuredTransports = (config: InquiryConfig): TransportName[] =>
  (Object.keys(IS_CONFIGURED) as TransportName[]).filter((transport) => IS_CONFIGURED[transport](config));

/** Every problem of the transports' settings, whichever transport it belongs to. */
export const transportProblems = (config: InquiryConfig): string[] => Object.values(config.problems).flat();
