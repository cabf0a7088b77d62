import certifications from "../../content/certifications.json";
import company from "../../content/company.json";
import inquiry from "../../content/inquiry.json";
import { inquiryContentFrom } from "../inquiry/server/content";
import { createGatsbyFunction } from "../inquiry/server/gatsby-function";

const productFiles = require.context("../../content/products", false, /\.json$/);

const content = inquiryContentFrom({
  inquiry,
  company,
  certifications,
  productCategories: productFiles.keys().map((key) => productFiles(key)),
});
export default createGatsbyFunction({ content });
