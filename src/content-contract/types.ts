import type { z } from "zod";
import type { SingleFileName } from "./content-files";
import type {
  agenciesSchema,
  certificationsSchema,
  companySchema,
  contentPageSchema,
  homeSchema,
  inquirySchema,
  navigationSchema,
  productCategorySchema,
  sitePagesSchema,
  systemPagesSchema,
} from "./schema";

/**
 * The content files' TypeScript types, derived from the contract, for code
 * that reads the JSON itself rather than through GraphQL: the inquiry server,
 * the browser tests and the bench. (Page components use graphqlTypegen's
 * Queries.* types, which the GraphQL projection of the same contract gives.)
 * `z.input`: the files as written, before the contract's parsing trims them.
 */

export type CompanyContent = z.input<ReturnType<typeof companySchema>>;
type NavigationContent = z.input<typeof navigationSchema>;
type HomeContent = z.input<ReturnType<typeof homeSchema>>;
type AgenciesContent = z.input<ReturnType<typeof agenciesSchema>>;
export type InquiryFormContent = z.input<typeof inquirySchema>;
type SystemPagesContent = z.input<typeof systemPagesSchema>;
type SitePagesContent = z.input<typeof sitePagesSchema>;
export type CertificationsContent = z.input<typeof certificationsSchema>;
/** A file in content/products/. */
export type ProductCategoryContent = z.input<ReturnType<typeof productCategorySchema>>;
/** A file in content/pages/. */
export type ContentPageContent = z.input<typeof contentPageSchema>;

/** Fails to compile when a single content file has no type here. */
type EveryFile<T extends Record<SingleFileName, unknown>> = T;

/** Each single content file's type, by file name. */
export type SingleFileContent = EveryFile<{
  "company.json": CompanyContent;
  "navigation.json": NavigationContent;
  "home.json": HomeContent;
  "agencies.json": AgenciesContent;
  "inquiry.json": InquiryFormContent;
  "system-pages.json": SystemPagesContent;
  "site-pages.json": SitePagesContent;
  "certifications.json": CertificationsContent;
}>;
