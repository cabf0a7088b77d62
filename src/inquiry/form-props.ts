import { requireContent } from "../content-contract/require-content";
import { categoryOptions, complianceOptions } from "./choices";

/** The form's content and choices, from a page query that spreads the InquiryFormData fragment. */
export const inquiryFormProps = (data: Queries.InquiryFormDataFragment) => ({
  form: requireContent(data.inquiryJson, "content/inquiry.json"),
  categories: categoryOptions(data.allProductCategoryJson.nodes),
  complianceOptions: complianceOptions(
    requireContent(data.certificationsJson, "content/certifications.json").compliance.items,
  ),
});
