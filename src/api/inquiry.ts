import certifications from "../../content/certifications.json";
import company from "../../content/company.json";
import inquiry from "../../content/inquiry.json";
import { commonHeaders } from "../../server/site/common-headers";
import { inquiryContentFrom } from "../../server/inquiries/content";
import { createGatsbyFunction } from "../../server/inquiries/netlify/gatsby-function";

const productFiles = require.context("../../content/products", false, /\.json$/);

const content = inquiryContentFrom({
  inquiry,
  company,
  certifications,
  productCategories: productFiles.keys().map((key) => productFiles(key)),
});
const inquiryFunction = createGatsbyFunction({ content, siteHeaders: commonHeaders });
export default inquiryFunction;

/**
 * Read by Gatsby's function wrapper at run time: the body's bytes, within the single server's limit, for
 * the function to parse. Exported by destructuring on purpose: Gatsby's query extraction takes an
 * `export const config =` in any file under src/ for a page's rendering config, and one such file makes
 * the build generate the DSG/SSR rendering engines, which this site has no page for and whose validation
 * fails on sharp's native module. Should a Gatsby release see this form too, the build fails there, and
 * `npm run test:netlify` finds a function more than this one.
 */
export const { config } = inquiryFunction;
