import { Section } from "../ui/Section";
import { ContactPanel, type ContactPanelProps } from "../inquiry/ContactPanel";

interface ContactSectionContent {
  readonly heading: string;
  readonly intro: string;
}

interface ContactSectionProps extends Omit<ContactPanelProps, "headingLevel"> {
  content: ContactSectionContent;
}

export const ContactSection = ({ content, ...panel }: ContactSectionProps) => (
  <Section id="contact" heading={content.heading} intro={content.intro}>
    <ContactPanel {...panel} headingLevel={3} />
  </Section>
);
