import { css } from "@emotion/react";
import { colors, fonts, mq, space, printHidden } from "../../styles/theme";
import { Container } from "../ui/Container";
import { SmartLink } from "../ui/SmartLink";
import { ContactDetails } from "./ContactDetails";
import { useCurrentYear } from "../../hooks/use-current-year";
import type { Company, Navigation, Procurement } from "../../hooks/use-site-data";

interface FooterProps {
  company: Pick<Company, "name" | "legalName" | "tagline" | "contact" | "contactLabels" | "hours">;
  footer: Navigation["footer"];
  procurement: Pick<Procurement, "identifiers" | "identifierLabels" | "naics">;
  buildYear: number;
}

/** The one-line procurement summary buyers copy into their forms. */
const identifierLine = ({ identifiers, identifierLabels, naics }: FooterProps["procurement"]) =>
  [
    `${identifierLabels.uei}: ${identifiers.uei}`,
    `${identifierLabels.cage}: ${identifiers.cage}`,
    `${naics.heading}: ${naics.codes.map((code) => code.code).join(", ")}`,
  ].join(" · ");

const footerStyles = css`
  background: ${colors.navy};
  color: ${colors.white};
  padding: ${space.xxl} 0 ${space.lg};
  a {
    color: ${colors.white};
  }
  a:hover {
    color: ${colors.goldLight};
  }
  h2 {
    color: ${colors.gold};
    font-family: ${fonts.body};
    font-size: 1rem;
    text-transform: uppercase;
    letter-spacing: 0.08em;
    margin-bottom: ${space.md};
  }
`;

const gridStyles = css`
  display: grid;
  gap: ${space.xl};
  grid-template-areas: "brand" "links" "contact";
  ${mq.md} {
    grid-template-columns: repeat(2, minmax(0, 1fr));
    grid-template-areas: "brand contact" "links links";
  }
  ${mq.lg} {
    grid-template-columns: 1.1fr 3fr 1.3fr;
    grid-template-areas: "brand links contact";
  }
`;

const linksStyles = css`
  grid-area: links;
  display: grid;
  gap: ${space.xl};
  ${mq.md} {
    grid-template-columns: repeat(3, minmax(0, 1fr));
    gap: ${space.lg};
  }
`;

const brandStyles = css`
  grid-area: brand;
  p:first-of-type {
    font-family: ${fonts.heading};
    font-size: 1.25rem;
    font-weight: 700;
    margin-bottom: ${space.sm};
  }
  p {
    color: #d9e1ec;
  }
`;

const linkListStyles = css`
  list-style: none;
  margin: 0;
  padding: 0;
  li + li {
    margin-top: ${space.sm};
  }
`;

const legalStyles = css`
  margin-top: ${space.xl};
  padding-top: ${space.lg};
  border-top: 1px solid rgba(255, 255, 255, 0.25);
  color: #d9e1ec;
  font-size: 0.875rem;
  display: grid;
  gap: ${space.sm};
  p {
    margin: 0;
  }
`;

export const Footer = ({ company, footer, procurement, buildYear }: FooterProps) => {
  const year = useCurrentYear(buildYear);
  return (
    <footer css={[footerStyles, printHidden]}>
      <Container>
        <div css={gridStyles}>
          <div css={brandStyles}>
            <p>{company.name}</p>
            <p>{company.tagline}</p>
          </div>
          <nav aria-label={footer.label} css={linksStyles}>
            {footer.columns.map((column) => (
              <div key={column.heading}>
                <h2>{column.heading}</h2>
                <ul css={linkListStyles}>
                  {column.links.map((link) => (
                    <li key={link.to}>
                      <SmartLink to={link.to}>{link.label}</SmartLink>
                    </li>
                  ))}
                </ul>
              </div>
            ))}
          </nav>
          <div
            css={css`
              grid-area: contact;
            `}
          >
            <h2>{footer.contactHeading}</h2>
            <ContactDetails company={company} />
          </div>
        </div>
        <div css={legalStyles}>
          <p>{identifierLine(procurement)}</p>
          <p>
            © <span data-testid="footer-year">{year}</span> {company.legalName}. {footer.rightsNotice}
          </p>
        </div>
      </Container>
    </footer>
  );
};
