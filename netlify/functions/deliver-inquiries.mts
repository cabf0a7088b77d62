// Netlify runs this every five minutes (UTC): it delivers the inquiries the CDN deploy stored in
// Netlify Blobs and no transport has taken yet, with the single server's backoff, attempt limit and
// dead letters, and once a day, from INQUIRY_DIGEST_HOUR in the company's time zone, the digest of the
// inquiries held as suspected spam (server/inquiries/scheduled-delivery.ts). It reads the same environment
// as the inquiry function: INQUIRY_OUTBOX=blobs, SMTP_URL, INQUIRY_WEBHOOK_URL, INQUIRY_RELEASE_SECRET, ...
import company from "../../content/company.json";
import inquiry from "../../content/inquiry.json";
import type { InquiryContent } from "../../server/inquiries/content";
import { createScheduledDelivery } from "../../server/inquiries/scheduled-delivery";

// content/ is checked against the content contract by every build.
const form = inquiry as unknown as InquiryContent["form"];
const { name, siteUrl, contact, hours } = company as unknown as InquiryContent["company"];

export default createScheduledDelivery(form.delivery, {
  content: { form, company: { name, siteUrl, contact, hours } },
});

export const config = { schedule: "*/5 * * * *" };
