import type { OutboxRecord } from "../../server/inquiries/store/outbox";
import { sampleRecord } from "./outbox-fixtures";

/** An INQUIRY_RELEASE_SECRET of the length the settings ask for. */
export const RELEASE_SECRET = "0123456789abcdef".repeat(4);

/** The INQUIRY_RELEASE_ORIGIN the links point to: none of the site's content names it. */
export const RELEASE_ORIGIN = "https://desk.example";

/** The environment that sets release links up: the secret and the origin, which go together. */
export const RELEASE_LINKS_ENV = { INQUIRY_RELEASE_SECRET: RELEASE_SECRET, INQUIRY_RELEASE_ORIGIN: RELEASE_ORIGIN };

/** What the sender of a held inquiry wrote: none of it may reach a log line. */
export const visitor = {
  name: "Robin Genuine-Buyer",
  address: "robin.buyer@county.example.gov",
  message: "Forty duty belts before the spring academy, sizes attached.",
} as const;

/** An inquiry from `visitor`, held as suspected spam for `reason`, as the outbox stores one. */
export const heldRecord = (reference: string, receivedAt: string, reason: string): OutboxRecord => ({
  ...sampleRecord(reference, ["webhook"]),
  receivedAt,
  subject: `Website inquiry ${reference}: General question`,
  replyTo: { address: visitor.address },
  fields: [
    { name: "fullName", label: "Full name", value: visitor.name },
    { name: "message", label: "Message", value: visitor.message },
  ],
  quarantine: { reason },
});
