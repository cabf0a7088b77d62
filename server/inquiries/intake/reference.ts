import { randomBytes } from "node:crypto";

// Crockford's base-32: no I, L, O or U, so a reference read out over the phone cannot be misheard as another.
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * A short reference for the visitor and the sales desk, like CRS-7K4M-2Q9D: 40 random bits, so two
 * inquiries share one with odds below one in a million until the outbox holds about 1,500 of them,
 * and the outbox refuses a duplicate anyway.
 */
export const newReference = (prefix: string): string => {
  const bytes = randomBytes(5);
  let bits = 0n;
  for (const byte of bytes) bits = (bits << 8n) | BigInt(byte);
  let code = "";
  for (let index = 0; index < 8; index += 1) {
    code = ALPHABET.charAt(Number(bits & 31n)) + code;
    bits >>= 5n;
  }
  return `${prefix}-${code.slice(0, 4)}-${code.slice(4)}`;
};

export const referencePattern = /^[A-Z]{2,5}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/;
