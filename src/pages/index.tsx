import { graphql, type HeadFC, type PageProps } from "gatsby";
import { Layout } from "../components/layout/Layout";
import { Seo } from "../components/layout/Seo";
import { Hero } from "../components/home/Hero";
import { PriorityImagePreload } from "../components/ui/PriorityImage";
import { Solutions } from "../components/home/Solutions";
import { AgencyCarousel } from "../components/home/AgencyCarousel";
import { About } from "../components/home/About";
import { ContactSection } from "../components/home/ContactSection";
import { Section } from "../components/ui/Section";
import { Disclaimer } from "../components/home/Disclaimer";
import { requireContent } from "../content-contract/require-content";
import { useSiteData } from "../hooks/use-site-data";
import { requestFromSearch } from "../inquiry/protocol";
import { inquiryFormProps } from "../fragments/inquiry-form";

const HomePage = ({ data, location }: PageProps<Queries.HomePageQuery>) => {
  const home = requireContent(data.homeJson, "content/home.json");
  const agencies = requireContent(data.agenciesJson, "content/agencies.json");
  const { company } = useSiteData();

  return (
    <Layout currentPath={location.pathname}>
      <Hero content={home.hero} image={home.hero.image.childImageSharp?.gatsbyImageData} />
      <Solutions content={home.solutions} />
      <Section id="agencies" heading={home.agencies.heading} intro={home.agencies.intro} renderedNearViewport>
        <AgencyCarousel agencies={agencies.agencies} labels={home.agencies} />
        <Disclaimer text={agencies.disclaimer} />
      </Section>
      <About content={home.about} />
      <ContactSection
        content={home.contact}
        {...inquiryFormProps(data)}
        company={company}
        requested={requestFromSearch(location.search)}
      />
    </Layout>
  );
};

export default HomePage;

export const Head: HeadFC<Queries.HomePageQuery> = ({ data, location }) => {
  const hero = data.homeJson?.hero.image.childImageSharp?.gatsbyImageData;
  return (
    <Seo
      title={data.homeJson?.seo.title ?? ""}
      description={data.homeJson?.seo.description}
      pathname={location.pathname}
      standaloneTitle
    >
      {hero ? <PriorityImagePreload image={hero} /> : null}
    </Seo>
  );
};

export const query = graphql`
  query HomePage {
    homeJson {
      seo {
        title
        description
      }
      hero {
        headline
        text
        imageAlt
        image {
          childImageSharp {
            gatsbyImageData(
              layout: FULL_WIDTH
              quality: 70
              breakpoints: [480, 768, 1024, 1440, 1920]
              placeholder: DOMINANT_COLOR
              formats: [AUTO, WEBP, AVIF]
            )
          }
        }
        primaryAction {
          label
          to
        }
        secondaryAction {
          label
          to
        }
      }
      solutions {
        heading
        intro
        cards {
          title
          description
          icon
        }
      }
      agencies {
        heading
        intro
        carouselLabel
        previousLabel
        nextLabel
        positionTemplate
      }
      about {
        heading
        mission
        action {
          label
          to
        }
      }
      contact {
        heading
        intro
      }
    }
    agenciesJson {
      ...AgencyList
    }
    ...InquiryFormData
  }
`;
