import { css } from "@emotion/react";
import { colors, mq, radii, space } from "../../styles/theme";
import { ContactDetails } from "../layout/ContactDetails";
import { panelHeadingStyles } from "./field-styles";
import { InquiryForm } from "./InquiryForm";
import type { LabelledOption } from "../../inquiry/displayed-fields";
import type { InquiryFormContent } from "../../inquiry/form-state";
import type { Company } from "../../hooks/use-site-data";

export interface ContactPanelProps {
  form: InquiryFormContent & { readonly detailsHeading: string };
  categories: readonly LabelledOption[];
  /** The compliance requirements a quote can ask for. */
  complianceOptions: readonly LabelledOption[];
  company: Pick<Company, "contact" | "contactLabels" | "hours">;
  requested?: { readonly type?: string | null; readonly category?: string | null };
  /** The inquiry type the form starts with, in the page's HTML as well. */
  initialType?: string;
  /** The level of the form's and the details' headings, one below the heading they stand under. */
  headingLevel: 2 | 3;
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

/** The inquiry form with the ways to reach the company beside it: on the home page and the contact page. */
export const ContactPanel = ({
  form,
  categories,
  complianceOptions,
  company,
  requested,
  initialType,
  headingLevel,
}: ContactPanelProps) => {
  const Heading = `h${headingLevel}` as const;
  return (
    <div css={gridStyles}>
      <InquiryForm
        // A new address on the same page (a link asking for another type or category) starts the form
        // afresh: it restores the draft, then applies what the address asks for.
        key={`${requested?.type ?? ""}|${requested?.category ?? ""}`}
        content={form}
        categories={categories}
        complianceOptions={complianceOptions}
        company={company}
        requested={requested}
        initialType={initialType}
        headingLevel={headingLevel}
      />
      <aside css={asideStyles} aria-labelledby="contact-details-heading">
        <Heading id="contact-details-heading" css={panelHeadingStyles}>
          {form.detailsHeading}
        </Heading>
        <ContactDetails company={company} />
      </aside>
    </div>
  );
};
