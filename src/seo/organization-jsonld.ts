import type { Company, Procurement } from "../hooks/use-site-data";

/**
 * schema.org Organization data for search engines, built from the same
 * content as the visible contact details so the two cannot disagree.
 */
export const organizationJsonLd = (
  company: Pick<Company, "name" | "legalName" | "description" | "siteUrl" | "contact" | "hours">,
  procurement: Pick<Procurement, "identifiers" | "naics">,
) => {
  const { address, phone, email } = company.contact;
  const primaryNaics = procurement.naics.codes.find((code) => code.primary)?.code;
  return {
    "@context": "https://schema.org",
    "@type": "Organization",
    name: company.name,
    legalName: company.legalName,
    description: company.description,
    url: company.siteUrl,
    email,
    telephone: phone.tel,
    address: {
      "@type": "PostalAddress",
      streetAddress: address.street,
      addressLocality: address.locality,
      addressRegion: address.region,
      postalCode: address.postalCode,
      addressCountry: address.country,
    },
    openingHoursSpecification: [
      {
        "@type": "OpeningHoursSpecification",
        dayOfWeek: company.hours.days.map((day) => `https://schema.org/${day}`),
        opens: company.hours.opens,
        closes: company.hours.closes,
      },
    ],
    ...(primaryNaics ? { naics: primaryNaics } : {}),
    identifier: [
      { "@type": "PropertyValue", propertyID: "UEI", value: procurement.identifiers.uei },
      { "@type": "PropertyValue", propertyID: "CAGE", value: procurement.identifiers.cage },
    ],
  };
};
