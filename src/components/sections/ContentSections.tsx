import { css } from "@emotion/react";
import { mq, space } from "../../styles/theme";
import { IconBadge } from "../ui/IconBadge";
import { RichText, type CompanyDetailsForText } from "../ui/RichText";

export interface ContentSection {
  readonly heading: string;
  readonly icon?: string | null;
  readonly paragraphs?: readonly string[] | null;
  readonly items?: readonly string[] | null;
}

const listStyles = css`
  display: grid;
  gap: ${space.xl};
  max-width: 52rem;
`;

const sectionStyles = (withIcon: boolean) => css`
  ${
    withIcon
      ? css`
          ${mq.md} {
            display: grid;
            grid-template-columns: 3.5rem minmax(0, 1fr);
            gap: ${space.lg};
          }
        `
      : ""
  }
  h2 {
    font-size: 1.5rem;
  }
  ul {
    margin: 0 0 ${space.md};
    padding-left: 1.25rem;
  }
  li + li {
    margin-top: ${space.xs};
  }
  p:last-child,
  ul:last-child {
    margin-bottom: 0;
  }
`;

/**
 * The headed sections of a text page (services, about, policies), each with paragraphs and an optional list.
 * `values` fills the figures a page may name from other content files, such as {inquiryRetentionMonths}.
 */
export const ContentSections = ({
  sections,
  company,
  values,
}: {
  sections: readonly ContentSection[];
  company: CompanyDetailsForText;
  values?: Readonly<Record<string, string>>;
}) => (
  <div css={listStyles}>
    {sections.map((section) => (
      <section key={section.heading} css={sectionStyles(Boolean(section.icon))}>
        {section.icon ? (
          <IconBadge
            name={section.icon}
            css={css`
              margin-bottom: ${space.sm};
            `}
          />
        ) : null}
        <div>
          <h2>{section.heading}</h2>
          {section.paragraphs?.map((paragraph) => (
            <p key={paragraph}>
              <RichText text={paragraph} company={company} values={values} />
            </p>
          ))}
          {section.items?.length ? (
            <ul>
              {section.items.map((item) => (
                <li key={item}>
                  <RichText text={item} company={company} values={values} />
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      </section>
    ))}
  </div>
);
