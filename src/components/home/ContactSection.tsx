import { css } from "@emotion/react";
import { colors, mq, radii, space } from "../../styles/theme";
import { Section } from "../ui/Section";
import { ContactDetails } from "../layout/ContactDetails";
import { InquiryForm, type InquiryFormContent } from "../inquiry/InquiryForm";
import type { Company } from "../../hooks/use-site-data";

export interface ContactSectionContent {
  readonly heading: string;
  readonly intro: string;
}

interface ContactSectionProps {
  content: ContactSectionContent;
  form: InquiryFormContent & { readonly detailsHeading: string };
  company: Pick<Company, "contact" | "contactLabels" | "hours">;
  requestedType?: string | null;
}

const gridStyles = css`
  display: grid;
  gap: ${space.xl};
  ${mq.lg} {
    grid-template-columns: minmax(0, 2fr) minmax(0, 1fr);
    gap: ${space.xxl};
  }
`;

const asideStyles = css`
  align-self: start;
  padding: ${space.lg};
  background: ${colors.surface};
  border: 1px solid ${colors.border};
  border-radius: ${radii.md};
`;

export const ContactSection = ({ content, form, company, requestedType }: ContactSectionProps) => (
  <Section id="contact" heading={content.heading} intro={content.intro}>
    <div css={gridStyles}>
      <InquiryForm content={form} email={company.contact.email} requestedType={requestedType} />
      <aside css={asideStyles} aria-labelledby="contact-details-heading">
        <h3 id="contact-details-heading">{form.detailsHeading}</h3>
        <ContactDetails company={company} />
      </aside>
    </div>
  </Section>
);
