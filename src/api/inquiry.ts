import certifications from "../../content/certifications.json";
import company from "../../content/company.json";
import inquiry from "../../content/inquiry.json";
import { inquiryContentFrom } from "../inquiry/server/content";
import { createInquiryHandler } from "../inquiry/server/handler";

const productFiles = require.context("../../content/products", false, /\.json$/);

const content = inquiryContentFrom({
  inquiry,
  company,
  certifications,
  productCategories: productFiles.keys().map((key) => productFiles(key)),
});

// No `export const config` for the body parser: Gatsby 5 takes any module in src/ that exports
// `config` for a page with rendering options and then builds its server rendering engines for a
// fully static site. Gatsby's default parser limit (100 kB) applies, and the handler refuses
// anything over the smaller limit in content/inquiry.json itself.
export default createInquiryHandler({ content });
