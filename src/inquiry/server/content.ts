import type { z } from "zod";
import type { inquirySchema } from "../../content-contract/schema";
import { categoryOptions, complianceOptions } from "../displayed-fields";
import type { LabelledChoices } from "../displayed-fields";

/** What the inquiry function needs from content/: the form's rules and copy, and the company's contact details. */
export interface InquiryContent {
  readonly form: z.infer<typeof inquirySchema>;
  readonly company: CompanyContact;
  readonly choices: LabelledChoices;
}

interface CompanyContact {
  readonly name: string;
  readonly contact: { readonly email: string; readonly phone: { readonly display: string; readonly tel: string } };
  readonly hours: { readonly display: string };
}

interface ComplianceMarks {
  readonly compliance: { readonly items: readonly { readonly id: string; readonly name: string }[] };
}

interface ProductCategory {
  readonly slug: string;
  readonly shortTitle: string;
  readonly order: number;
}

/** The JSON of the files involved. */
export interface InquiryContentFiles {
  readonly inquiry: unknown;
  readonly company: unknown;
  readonly certifications: unknown;
  readonly productCategories: readonly unknown[];
}

/**
 * Picks what the function needs out of content files the build has already checked against the
 * content contract (src/content-contract/schema.ts); checking them again here would put the whole contract
 * into the function, which Gatsby's server loads afresh for every request.
 */
export const inquiryContentFrom = (files: InquiryContentFiles): InquiryContent => {
  const categories = [...(files.productCategories as ProductCategory[])].sort((a, b) => a.order - b.order);
  const company = files.company as CompanyContact;
  return {
    form: files.inquiry as InquiryContent["form"],
    company: { name: company.name, contact: company.contact, hours: company.hours },
    choices: {
      productCategories: categoryOptions(categories),
      complianceOptions: complianceOptions((files.certifications as ComplianceMarks).compliance.items),
    },
  };
};
