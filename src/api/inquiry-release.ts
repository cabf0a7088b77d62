import company from "../../content/company.json";
import inquiry from "../../content/inquiry.json";
import { commonHeaders } from "../../server/site/common-headers";
import { heldContentFrom } from "../../server/inquiries/content";
import { createReleaseFunction } from "../../server/inquiries/netlify/release-function";

/** /api/inquiry-release on the CDN deploy: the page of a release link in the digest of held inquiries (server/inquiries/held/release.ts). */
const releaseFunction = createReleaseFunction({
  content: heldContentFrom({ inquiry, company }),
  siteHeaders: commonHeaders,
});
export default releaseFunction;

/**
 * Read by Gatsby's function wrapper at run time: the body's bytes, for the function to parse. Exported by
 * destructuring, as src/api/inquiry.ts does and for the same reason: Gatsby's query extraction takes an
 * `export const config =` in a file under src/ for a page's rendering config.
 */
export const { config } = releaseFunction;
