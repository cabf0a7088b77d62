import fs from "node:fs";
import path from "node:path";
import { inquiryContentFrom, type InquiryContent } from "./content";
import { inquirySchema } from "../../src/content-contract/schema";

/** The inquiry content read from a content folder on disk, for scripts and tests; the form's file is checked on the way. */
export const readInquiryContent = (contentDir: string): InquiryContent => {
  const read = (file: string): unknown => JSON.parse(fs.readFileSync(path.join(contentDir, file), "utf8"));
  const productsDir = path.join(contentDir, "products");
  return inquiryContentFrom({
    inquiry: inquirySchema.parse(read("inquiry.json")),
    company: read("company.json"),
    certifications: read("certifications.json"),
    productCategories: fs
      .readdirSync(productsDir)
      .filter((file) => file.endsWith(".json"))
      .map((file) => read(path.join("products", file))),
  });
};
