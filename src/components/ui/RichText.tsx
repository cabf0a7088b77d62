import { Fragment, type ReactElement } from "react";
import type { TextToken } from "../../content-contract/schema";

export interface CompanyDetailsForText {
  readonly contact: { readonly email: string; readonly phone: { readonly display: string; readonly tel: string } };
  readonly hours: { readonly display: string };
}

/**
 * Page text may name the company's email, phone or hours as {email},
 * {phone} or {hours}, so those facts live only in company.json; email and
 * phone become links. A page may also name figures that other content
 * files set (`values`, such as {inquiryRetentionMonths}), so that the page
 * and the code that keeps the promise read one constant.
 */
export const RichText = ({
  text,
  company,
  values = {},
}: {
  text: string;
  company: CompanyDetailsForText;
  values?: Readonly<Record<string, string>>;
}) => {
  const render: Record<TextToken, ReactElement> = {
    email: <a href={`mailto:${company.contact.email}`}>{company.contact.email}</a>,
    phone: <a href={`tel:${company.contact.phone.tel}`}>{company.contact.phone.display}</a>,
    hours: <>{company.hours.display}</>,
  };
  const renderToken = (token: string): ReactElement | string => {
    if (token in render) return render[token as TextToken];
    const value = values[token];
    // The content contract allows only known placeholders; one without a value here is a page that forgot to pass it.
    if (value === undefined) throw new Error(`The text uses {${token}}, which this page does not provide`);
    return value;
  };
  const parts = text.split(/\{(\w+)\}/);
  return (
    <>
      {parts.map((part, index) => (
        <Fragment key={index}>{index % 2 === 1 ? renderToken(part) : part}</Fragment>
      ))}
    </>
  );
};
