// Netlify runs this every five minutes (UTC): it delivers the inquiries the CDN deploy stored in
// Netlify Blobs and no transport has taken yet, with the single server's backoff, attempt limit and
// dead letters (server/inquiries/scheduled-delivery.ts). It reads the same environment as the
// inquiry function: INQUIRY_OUTBOX=blobs, SMTP_URL, INQUIRY_WEBHOOK_URL, ...
import inquiry from "../../content/inquiry.json";
import type { InquiryContent } from "../../server/inquiries/content";
import { createScheduledDelivery } from "../../server/inquiries/scheduled-delivery";

// content/inquiry.json is checked against the content contract by every build.
const delivery = (inquiry as unknown as InquiryContent["form"]).delivery;

export default createScheduledDelivery(delivery);

export const config = { schedule: "*/5 * * * *" };
