// Netlify runs this every five minutes (UTC): it delivers the inquiries the CDN deploy stored in
// Netlify Database and no transport has taken yet, with the single server's backoff, attempt limit and
// dead letters, and once a day, from INQUIRY_DIGEST_HOUR in the company's time zone, the digest of the
// inquiries held as suspected spam (server/inquiries/netlify/scheduled-delivery.ts). It reads the same environment
// as the inquiry function: NETLIFY_DB_URL (which Netlify sets), SMTP_URL, INQUIRY_WEBHOOK_URL, INQUIRY_RELEASE_SECRET, ...
import company from "../../content/company.json";
import inquiry from "../../content/inquiry.json";
import { heldContentFrom } from "../../server/inquiries/content";
import { createScheduledDelivery } from "../../server/inquiries/netlify/scheduled-delivery";

const content = heldContentFrom({ inquiry, company });

export default createScheduledDelivery(content.form.delivery, { content });

export const config = { schedule: "*/5 * * * *" };
