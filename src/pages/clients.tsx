import { graphql, type PageProps } from "gatsby";
import { PageShell } from "../components/layout/PageShell";
import { pageHead } from "../components/layout/page-head";
import { SectorList } from "../components/clients/SectorList";
import { AgencyTile } from "../components/home/AgencyTile";
import { Disclaimer } from "../components/home/Disclaimer";
import { cardGrid } from "../components/ui/card-grid";
import { requireContent } from "../content-contract/require-content";
import { space } from "../styles/theme";

const ClientsPage = ({ data, location }: PageProps<Queries.ClientsPageQuery>) => {
  const copy = requireContent(data.sitePagesJson, "content/site-pages.json").clients;
  const agencies = requireContent(data.agenciesJson, "content/agencies.json");
  return (
    <PageShell currentPath={location.pathname} title={copy.heading} intro={copy.intro}>
      <section aria-labelledby="sectors-heading">
        <h2 id="sectors-heading">{copy.sectorsHeading}</h2>
        <SectorList sectors={copy.sectors} />
      </section>
      <section aria-labelledby="agencies-heading">
        <h2 id="agencies-heading">{copy.agenciesHeading}</h2>
        <ul css={cardGrid({ md: 3, lg: 4, gap: space.md })}>
          {agencies.agencies.map((agency) => (
            <li key={agency.name}>
              <AgencyTile agency={agency} />
            </li>
          ))}
        </ul>
        <Disclaimer text={agencies.disclaimer} />
      </section>
    </PageShell>
  );
};

export default ClientsPage;

export const Head = pageHead<Queries.ClientsPageQuery>((data) => data.sitePagesJson?.clients.seo);

export const query = graphql`
  query ClientsPage {
    sitePagesJson {
      clients {
        seo {
          title
          description
        }
        heading
        intro
        sectorsHeading
        sectors {
          name
          description
          icon
        }
        agenciesHeading
      }
    }
    agenciesJson {
      ...AgencyList
    }
  }
`;
