import { graphql, type PageProps } from "gatsby";
import { css } from "@emotion/react";
import { Layout } from "../components/layout/Layout";
import { pageHead } from "../components/layout/page-head";
import { Container } from "../components/ui/Container";
import { FactList } from "../components/certifications/FactList";
import { identifierFacts } from "../components/certifications/identifier-facts";
import { PrintButton } from "../components/certifications/PrintButton";
import { useSiteData } from "../hooks/use-site-data";
import { requireContent } from "../content-contract/require-content";
import { colors, fontSizes, mq, space } from "../styles/theme";

/**
 * Sized to print on one US Letter page: the site header and footer are
 * hidden in print (global styles), margins shrink and the two columns stay.
 */
const sheetStyles = css`
  padding: ${space.xxl} 0 ${space.xxxl};
  h1 {
    margin-bottom: ${space.sm};
  }
  h2 {
    font-size: 1.25rem;
    margin: ${space.lg} 0 ${space.sm};
    padding-bottom: ${space.xs};
    border-bottom: 2px solid ${colors.gold};
  }
  ul {
    margin: 0;
    padding-left: 1.25rem;
  }
  @media print {
    padding: 0;
    font-size: 10pt;
    line-height: 1.35;
    h1 {
      font-size: 20pt;
    }
    h2 {
      font-size: 12pt;
      margin: 10pt 0 4pt;
    }
    p {
      margin-bottom: 6pt;
    }
  }
`;

const titleRowStyles = css`
  display: flex;
  flex-wrap: wrap;
  justify-content: space-between;
  align-items: flex-start;
  gap: ${space.md};
  p {
    color: ${colors.muted};
    font-weight: 700;
    margin: 0;
  }
`;

const summaryStyles = css`
  font-size: ${fontSizes.lg};
  max-width: 60rem;
  margin-top: ${space.md};
  @media print {
    font-size: 11pt;
  }
`;

const columnsStyles = css`
  display: grid;
  gap: ${space.xl};
  ${mq.md} {
    grid-template-columns: minmax(0, 1.2fr) minmax(0, 1fr);
  }
  @media print {
    grid-template-columns: 1.2fr 1fr;
    gap: 18pt;
  }
`;

const CapabilityStatementPage = ({ data, location }: PageProps<Queries.CapabilityStatementPageQuery>) => {
  const facts = requireContent(data.certificationsJson, "content/certifications.json");
  const sheet = facts.capability;
  const { company } = useSiteData();
  const { address } = company.contact;
  return (
    <Layout currentPath={location.pathname}>
      <Container>
        <article css={sheetStyles} aria-labelledby="capability-statement-heading">
          <div css={titleRowStyles}>
            <div>
              <p>{company.legalName}</p>
              <h1 id="capability-statement-heading">{sheet.heading}</h1>
            </div>
            <PrintButton label={sheet.printLabel} />
          </div>
          <p css={summaryStyles}>{sheet.summary}</p>
          <div css={columnsStyles}>
            <div>
              <h2>{sheet.competenciesHeading}</h2>
              <ul>
                {sheet.competencies.map((item) => (
                  <li key={item}>{item}</li>
                ))}
              </ul>
              <h2>{sheet.differentiatorsHeading}</h2>
              <ul>
                {sheet.differentiators.map((item) => (
                  <li key={item}>{item}</li>
                ))}
              </ul>
              <h2>{facts.contractVehicles.heading}</h2>
              <ul>
                {facts.contractVehicles.items.map((item) => (
                  <li key={item.name}>
                    <strong>{item.name}</strong> — {item.detail}
                  </li>
                ))}
              </ul>
            </div>
            <div>
              <h2>{sheet.identifiersHeading}</h2>
              <FactList facts={identifierFacts(facts.identifiers, facts.identifierLabels)} />
              <h2>{facts.naics.heading}</h2>
              <ul>
                {facts.naics.codes.map((code) => (
                  <li key={code.code}>
                    {code.code} — {code.title}
                  </li>
                ))}
              </ul>
              <h2>{facts.smallBusiness.heading}</h2>
              <ul>
                {facts.smallBusiness.items.map((item) => (
                  <li key={item.name}>{item.name}</li>
                ))}
              </ul>
              <h2>{sheet.contactHeading}</h2>
              <p>
                {sheet.contactName}
                <br />
                <a href={`tel:${company.contact.phone.tel}`}>{company.contact.phone.display}</a>
                <br />
                <a href={`mailto:${company.contact.email}`}>{company.contact.email}</a>
                <br />
                {address.street}, {address.locality}, {address.region} {address.postalCode}
                <br />
                {company.siteUrl.replace(/^https:\/\//, "")}
              </p>
            </div>
          </div>
        </article>
      </Container>
    </Layout>
  );
};

export default CapabilityStatementPage;

export const Head = pageHead<Queries.CapabilityStatementPageQuery>((data) => data.certificationsJson?.capability.seo);

export const query = graphql`
  query CapabilityStatementPage {
    certificationsJson {
      ...ProcurementFacts
      capability {
        seo {
          title
          description
        }
        heading
        printLabel
        summary
        competenciesHeading
        competencies
        differentiatorsHeading
        differentiators
        identifiersHeading
        contactHeading
        contactName
      }
    }
  }
`;
