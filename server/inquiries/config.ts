import path from "node:path";
import * as z from "zod/mini";
import type { InquiryContent } from "./content";
import { catalogue, isSet, isUrl, readSetting, runtimeEnvironment, type Environment } from "../settings/catalog";

/*
 * How this deployment stores and delivers inquiries: environment variables, read when a request arrives, through
 * the catalogue of settings (which reaches the environment through `globalThis`, out of the function bundler's
 * sight: a server is configured when it starts, not when the site was built).
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

/**
 * How inquiries are delivered and limited: operations, set by whoever runs the site in its environment, not by
 * editors in content/inquiry.json. Each is the catalogue's entry (its default, range and meaning); each default is
 * what the site ran with when these lived in content.
 */
export const operationSettings = {
  INQUIRY_CONCURRENCY: catalogue.INQUIRY_CONCURRENCY,
  INQUIRY_ATTEMPT_TIMEOUT_SECONDS: catalogue.INQUIRY_ATTEMPT_TIMEOUT_SECONDS,
  INQUIRY_MAX_ATTEMPTS: catalogue.INQUIRY_MAX_ATTEMPTS,
  INQUIRY_RETRY_DELAY_SECONDS: catalogue.INQUIRY_RETRY_DELAY_SECONDS,
  INQUIRY_RETRY_MAX_DELAY_SECONDS: catalogue.INQUIRY_RETRY_MAX_DELAY_SECONDS,
  INQUIRY_RATE_LIMIT_REQUESTS: catalogue.INQUIRY_RATE_LIMIT_REQUESTS,
  INQUIRY_RATE_LIMIT_WINDOW_SECONDS: catalogue.INQUIRY_RATE_LIMIT_WINDOW_SECONDS,
} as const;

const isAddress = (value: string) => z.email().safeParse(value.replace(/^.*<(.+)>$/, "$1")).success;

/**
 * What the settings need of content/inquiry.json's `delivery`: the promises a page states (retention) and the spam
 * check's default. Everything operational comes from the environment (operationSettings).
 */
export type ContentDelivery = Pick<InquiryContent["form"]["delivery"], "minFillSeconds" | "retention">;

/** How inquiries are delivered and retried, and how often one client may post: operationSettings, read. */
const operationsOf = (env: Environment): Pick<InquiryConfig, "delivery" | "rateLimit"> => {
  const operation = (name: keyof typeof operationSettings): number => readSetting(name, env);
  const firstDelaySeconds = operation("INQUIRY_RETRY_DELAY_SECONDS");
  const longestDelaySeconds = operation("INQUIRY_RETRY_MAX_DELAY_SECONDS");
  // A longest delay set below the first is a contradiction, refused; the default one gives way to a first delay
  // raised past it, so raising the first delay alone keeps working.
  if (isSet("INQUIRY_RETRY_MAX_DELAY_SECONDS", env) && longestDelaySeconds < firstDelaySeconds) {
    throw new Error(
      `INQUIRY_RETRY_MAX_DELAY_SECONDS must be at least INQUIRY_RETRY_DELAY_SECONDS (${firstDelaySeconds}), ` +
        `not ${longestDelaySeconds}`,
    );
  }
  return {
    rateLimit: {
      requests: operation("INQUIRY_RATE_LIMIT_REQUESTS"),
      windowSeconds: operation("INQUIRY_RATE_LIMIT_WINDOW_SECONDS"),
    },
    delivery: {
      concurrency: operation("INQUIRY_CONCURRENCY"),
      attemptTimeoutMs: operation("INQUIRY_ATTEMPT_TIMEOUT_SECONDS") * 1000,
      maxAttempts: operation("INQUIRY_MAX_ATTEMPTS"),
      firstDelayMs: firstDelaySeconds * 1000,
      maxDelayMs: Math.max(firstDelaySeconds, longestDelaySeconds) * 1000,
    },
  };
};

/**
 * The release links' key and origin. A secret without an origin is refused: the links would have nowhere to point
 * but content's siteUrl, which editors change. An origin without a secret is read, and refused if wrong, but unused.
 */
const releaseLinksOf = (env: Environment): ReleaseLinkSettings | null => {
  const secret = readSetting("INQUIRY_RELEASE_SECRET", env);
  const origin = readSetting("INQUIRY_RELEASE_ORIGIN", env);
  if (secret === null) return null;
  if (origin === null) {
    throw new Error(
      "INQUIRY_RELEASE_SECRET is set but INQUIRY_RELEASE_ORIGIN is not: say where the digest's release links point",
    );
  }
  return { secret, origin };
};

/**
 * The transports, and what is wrong with their settings. Not refused: a wrong address fails each delivery through
 * it, which stays pending, and the log names the setting, rather than the inquiry being lost.
 */
const transportsOf = (env: Environment): Pick<InquiryConfig, "email" | "webhook" | "problems"> => {
  const problems: string[] = [];
  const smtpUrl = readSetting("SMTP_URL", env);
  const to = readSetting("INQUIRY_TO", env) ?? "";
  const from = readSetting("INQUIRY_FROM", env) ?? "";
  let email: EmailSettings | null = null;
  if (smtpUrl !== null) {
    email = { smtpUrl, to, from, allowPlain: readSetting("SMTP_ALLOW_PLAIN", env) };
    if (!isUrl(smtpUrl, ["smtp:", "smtps:"])) problems.push("SMTP_URL must be an smtp:// or smtps:// URL");
    if (!isAddress(to)) problems.push("INQUIRY_TO must be an email address");
    if (!isAddress(from)) problems.push("INQUIRY_FROM must be an email address");
  }
  const webhookUrl = readSetting("INQUIRY_WEBHOOK_URL", env);
  let webhook: InquiryConfig["webhook"] = null;
  if (webhookUrl !== null) {
    webhook = { url: webhookUrl, secret: readSetting("INQUIRY_WEBHOOK_SECRET", env) };
    if (!isUrl(webhookUrl, ["http:", "https:"]))
      problems.push("INQUIRY_WEBHOOK_URL must be an http:// or https:// URL");
  }
  return { email, webhook, problems };
};

/**
 * This deployment's inquiry settings, from the environment, with content/inquiry.json's `delivery` for what the
 * content promises. A value out of its range throws, naming the variable and what it allows (the catalogue's
 * checks): the server reads this as it starts and stops there, a function answers 503 until the value is fixed.
 */
export const readInquiryConfig = (
  delivery: ContentDelivery,
  env: Environment = runtimeEnvironment(),
  cwd: string = process.cwd(),
): InquiryConfig => {
  // Another name is refused by the catalogue rather than defaulted: a typo must not send inquiries to a folder that
  // vanishes with the instance.
  const databaseUrl = readSetting("INQUIRY_DATABASE_URL", env);
  const postgresNamed = databaseUrl !== null || isSet("NETLIFY_DB_URL", env);
  const outbox: OutboxKind =
    postgresNamed && !isSet("INQUIRY_OUTBOX", env) ? "postgres" : readSetting("INQUIRY_OUTBOX", env);
  // A database named but not used would leave an operator who moved to Postgres writing to SQLite unawares.
  if (databaseUrl !== null && outbox !== "postgres") {
    throw new Error(
      `INQUIRY_DATABASE_URL is set but INQUIRY_OUTBOX is ${outbox}: set INQUIRY_OUTBOX=postgres or unset it`,
    );
  }
  return {
    outbox,
    dataDir: path.resolve(cwd, readSetting("INQUIRY_DATA_DIR", env)),
    databaseUrl,
    // A Postgres outlives every function instance, whatever INQUIRY_OUTBOX_EPHEMERAL says.
    durableOutbox: outbox !== "sqlite" || !readSetting("INQUIRY_OUTBOX_EPHEMERAL", env),
    ...transportsOf(env),
    ...operationsOf(env),
    minFillSeconds: readSetting("INQUIRY_MIN_FILL_SECONDS", env) ?? delivery.minFillSeconds,
    clientIpHeader: readSetting("INQUIRY_CLIENT_IP_HEADER", env)?.toLowerCase() ?? null,
    allowedOrigins: (readSetting("INQUIRY_ALLOWED_ORIGINS", env) ?? "")
      .split(",")
      .map((origin) => origin.trim().replace(/\/+$/, ""))
      .filter((origin) => origin !== ""),
    // From content only, never from the environment: the privacy page states the same number.
    retention: delivery.retention,
    // A short release secret is refused by the catalogue: it would make links someone could forge.
    digest: {
      hour: readSetting("INQUIRY_DIGEST_HOUR", env),
      releaseLinks: releaseLinksOf(env),
    },
  };
};

/** The transports an inquiry accepted now must go through. */
export const configuredTransports = (config: InquiryConfig): TransportName[] => [
  ...(config.email ? (["email"] as const) : []),
  ...(config.webhook ? (["webhook"] as const) : []),
];
