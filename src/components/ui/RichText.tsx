import { Fragment, type ReactElement } from "react";
import type { TextToken } from "../../content-contract/schema";

export interface CompanyDetailsForText {
  readonly contact: { readonly email: string; readonly phone: { readonly display: string; readonly tel: string } };
  readonly hours: { readonly display: string };
}

/**
 * Page text may name the company's email, phone or hours as {email},
 * {phone} or {hours}, so those facts live only in company.json; email and
 * phone become links.
 */
export const RichText = ({ text, company }: { text: string; company: CompanyDetailsForText }) => {
  const render: Record<TextToken, ReactElement> = {
    email: <a href={`mailto:${company.contact.email}`}>{company.contact.email}</a>,
    phone: <a href={`tel:${company.contact.phone.tel}`}>{company.contact.phone.display}</a>,
    hours: <>{company.hours.display}</>,
  };
  const parts = text.split(/\{(email|phone|hours)\}/);
  return (
    <>
      {parts.map((part, index) =>
        index % 2 === 1 ? (
          <Fragment key={index}>{render[part as TextToken]}</Fragment>
        ) : (
          <Fragment key={index}>{part}</Fragment>
        ),
      )}
    </>
  );
};
