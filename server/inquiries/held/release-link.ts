import { createHmac, timingSafeEqual } from "node:crypto";
import type { RetentionPolicy } from "../config";
import type { OutboxRecord } from "../store/outbox";
import { referencePattern } from "../intake/reference";

/**
 * The links in the digest of held inquiries that release one (release.ts answers them). A link names one
 * inquiry and the moment its quarantine ends, signed with INQUIRY_RELEASE_SECRET: HMAC-SHA256 over both,
 * so that neither can be changed, nor a link made for another inquiry, without the secret. It is refused
 * once that moment has passed. It is used once because a release is recorded once (the outbox's release
 * answers true to one call only), not because the link is remembered.
 */

export const RELEASE_PATH = "/api/inquiry-release";

/** The query (and the page's form) fields of a release link. */
export const RELEASE_FIELDS = { reference: "ref", expires: "expires", signature: "sig" } as const;

/** What a link is signed over: a purpose of its own, so that no other signature of the same secret fits. */
const signedText = (reference: string, expiresSeconds: number) => `inquiry-release:v1:${reference}:${expiresSeconds}`;

const signatureOf = (secret: string, reference: string, expiresSeconds: number): string =>
  createHmac("sha256", secret).update(signedText(reference, expiresSeconds)).digest("base64url");

/** When a held inquiry's quarantine ends, and with it its release link: the day retention removes it. */
export const quarantineEndsAt = (record: Pick<OutboxRecord, "receivedAt">, retention: RetentionPolicy): Date =>
  new Date(Date.parse(record.receivedAt) + retention.quarantinedDays * 86_400_000);

/** The address of the page that releases `reference`, valid until `expiresAt` (whole seconds). */
export const releaseUrl = (origin: string, secret: string, reference: string, expiresAt: Date): string => {
  const expires = Math.floor(expiresAt.getTime() / 1000);
  const query = new URLSearchParams({
    [RELEASE_FIELDS.reference]: reference,
    [RELEASE_FIELDS.expires]: String(expires),
    [RELEASE_FIELDS.signature]: signatureOf(secret, reference, expires),
  });
  return `${origin.replace(/\/+$/, "")}${RELEASE_PATH}?${query.toString()}`;
};

export type LinkCheck =
  | { readonly ok: true; readonly reference: string; readonly expiresAt: Date }
  /** malformed: not a link's fields at all; forged: signed by no one with the secret, or changed since; expired: past its time. */
  | { readonly ok: false; readonly why: "malformed" | "forged" | "expired" };

const EXPIRES = /^\d{1,12}$/;
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Whether `fields` (a link's query, or the page's form posting it on) are a link this site made with
 * `secret` and still valid at `now`. The signature is compared in constant time, before the expiry is
 * believed: an expired link is told apart from a forged one only when it is genuine.
 */
export const checkReleaseLink = (secret: string, fields: URLSearchParams, now: Date): LinkCheck => {
  const reference = fields.get(RELEASE_FIELDS.reference) ?? "";
  const expires = fields.get(RELEASE_FIELDS.expires) ?? "";
  const signature = fields.get(RELEASE_FIELDS.signature) ?? "";
  if (!referencePattern.test(reference) || !EXPIRES.test(expires) || !SIGNATURE.test(signature)) {
    return { ok: false, why: "malformed" };
  }
  const expected = Buffer.from(signatureOf(secret, reference, Number(expires)));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, why: "forged" };
  const expiresAt = new Date(Number(expires) * 1000);
  if (expiresAt.getTime() <= now.getTime()) return { ok: false, why: "expired" };
  return { ok: true, reference, expiresAt };
};
