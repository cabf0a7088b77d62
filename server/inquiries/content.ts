import type {
  CertificationsContent,
  CompanyContent,
  InquiryFormContent,
  ProductCategoryContent,
} from "../../src/content-contract/types";
import { categoryOptions, complianceOptions } from "../../src/inquiry/displayed-fields";
import type { LabelledChoices } from "../../src/inquiry/displayed-fields";

/** What the inquiry function needs from content/: the form's rules and copy, and the company's contact details. */
export interface InquiryContent {
  readonly form: InquiryFormContent;
  readonly company: CompanyContact;
  readonly choices: LabelledChoices;
}

/**
 * The company's details that a reply names (who to write or call, and when someone answers), and what the
 * digest of held inquiries needs: the time zone its hour is in. Not siteUrl: editors change it, so the digest's
 * release links point to INQUIRY_RELEASE_ORIGIN, the operator's.
 */
interface CompanyContact {
  readonly name: CompanyContent["name"];
  readonly contact: Pick<CompanyContent["contact"], "email" | "phone">;
  readonly hours: Pick<CompanyContent["hours"], "display" | "timeZone">;
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
  const categories = [...(files.productCategories as ProductCategoryContent[])].sort((a, b) => a.order - b.order);
  return {
    ...heldContentFrom(files),
    choices: {
      productCategories: categoryOptions(categories),
      complianceOptions: complianceOptions((files.certifications as CertificationsContent).compliance.items),
    },
  };
};

/**
 * The form's copy and the company's details alone, as inquiryContentFrom picks them: what the digest of held
 * inquiries and its release page need (the scheduled delivery's and the release function's content).
 */
export const heldContentFrom = (
  files: Pick<InquiryContentFiles, "inquiry" | "company">,
): Pick<InquiryContent, "form" | "company"> => {
  const company = files.company as CompanyContent;
  return {
    form: files.inquiry as InquiryContent["form"],
    company: { name: company.name, contact: company.contact, hours: company.hours },
  };
};
