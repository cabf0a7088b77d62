/**
 * Every content file, keyed by its path under content/, with the GraphQL type
 * its node gets: the transformer would otherwise merge all single-object
 * files of one folder into one inferred type. Kept free of zod so that
 * gatsby-config can import it cheaply.
 */
export const contentTypeNames = {
  "company.json": "CompanyJson",
  "navigation.json": "NavigationJson",
  "home.json": "HomeJson",
  "agencies.json": "AgenciesJson",
  "inquiry.json": "InquiryJson",
  "system-pages.json": "SystemPagesJson",
} as const;

export type ContentFileName = keyof typeof contentTypeNames;

export const isContentFileName = (name: string): name is ContentFileName =>
  Object.prototype.hasOwnProperty.call(contentTypeNames, name);
