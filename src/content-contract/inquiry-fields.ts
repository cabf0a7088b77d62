/**
 * The inquiry form's fields, by name. The contract names them (content/inquiry.json has a label and
 * rules for each), so the list lives here, in the lowest layer; the inquiry feature (src/inquiry/values.ts)
 * builds its values from it.
 */
export const inquiryFieldNames = [
  "fullName",
  "organization",
  "email",
  "phone",
  "inquiryType",
  "productCategory",
  "quantities",
  "needBy",
  "shipToState",
  "buyingMethod",
  "compliance",
  "message",
] as const;
export type InquiryFieldName = (typeof inquiryFieldNames)[number];
