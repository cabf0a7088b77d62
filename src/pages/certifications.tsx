import { graphql, type PageProps } from "gatsby";
import { css } from "@emotion/react";
import { PageShell } from "../components/layout/PageShell";
import { pageHead } from "../components/layout/page-head";
import { FactList } from "../components/certifications/FactList";
import { CodeTable } from "../components/certifications/CodeTable";
import { DetailList } from "../components/certifications/DetailList";
import { identifierFacts } from "../components/certifications/identifier-facts";
import { ComplianceMarks } from "../components/products/ProductLines";
import { requireContent } from "../content-contract/require-content";
import { mq, space } from "../styles/theme";

const tablesStyles = css`
  display: grid;
  gap: ${space.xxl};
  ${mq.lg} {
    grid-template-columns: repeat(2, minmax(0, 1fr));
  }
`;

const CertificationsPage = ({ data, location }: PageProps<Queries.CertificationsPageQuery>) => {
  const facts = requireContent(data.certificationsJson, "content/certifications.json");
  return (
    <PageShell currentPath={location.pathname} title={facts.heading} intro={facts.intro}>
      <section aria-labelledby="identifiers-heading">
        <h2 id="identifiers-heading">{facts.identifiers.heading}</h2>
        <FactList facts={identifierFacts(facts.identifiers, facts.identifierLabels)} />
      </section>
      <div css={tablesStyles}>
        <section aria-labelledby="naics-heading">
          <h2 id="naics-heading">{facts.naics.heading}</h2>
          <CodeTable rows={facts.naics.codes} headers={facts.tableHeaders} primaryLabel={facts.naics.primaryLabel} />
        </section>
        <section aria-labelledby="psc-heading">
          <h2 id="psc-heading">{facts.psc.heading}</h2>
          <CodeTable rows={facts.psc.codes} headers={facts.tableHeaders} />
        </section>
      </div>
      <section aria-labelledby="vehicles-heading">
        <h2 id="vehicles-heading">{facts.contractVehicles.heading}</h2>
        <DetailList items={facts.contractVehicles.items} />
      </section>
      <section aria-labelledby="small-business-heading">
        <h2 id="small-business-heading">{facts.smallBusiness.heading}</h2>
        <DetailList items={facts.smallBusiness.items} />
      </section>
      <section aria-labelledby="compliance-heading">
        <h2 id="compliance-heading">{facts.compliance.heading}</h2>
        <ComplianceMarks marks={facts.compliance.items} />
      </section>
    </PageShell>
  );
};

export default CertificationsPage;

export const Head = pageHead<Queries.CertificationsPageQuery>((data) => data.certificationsJson?.seo);

export const query = graphql`
  query CertificationsPage {
    certificationsJson {
      seo {
        title
        description
      }
      heading
      intro
      ...ProcurementFacts
    }
  }
`;
