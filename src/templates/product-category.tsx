import { graphql, type PageProps } from "gatsby";
import { css } from "@emotion/react";
import { PageShell } from "../components/layout/PageShell";
import { pageHead } from "../components/layout/page-head";
import { PriorityImage } from "../components/ui/PriorityImage";
import { SmartLink } from "../components/ui/SmartLink";
import { CallToAction } from "../components/sections/CallToAction";
import { ComplianceMarks, ProductLines } from "../components/products/ProductLines";
import { requireContent } from "../content-contract/require-content";
import { quoteRequestPath } from "../inquiry/protocol";
import { colors, mq, radii, space } from "../styles/theme";

const overviewStyles = css`
  display: grid;
  gap: ${space.xl};
  align-items: start;
  ${mq.lg} {
    grid-template-columns: minmax(0, 1.2fr) minmax(0, 1fr);
  }
  p {
    font-size: 1.125rem;
  }
`;

const imageStyles = css`
  display: block;
  width: 100%;
  height: auto;
  aspect-ratio: 16 / 9;
  object-fit: cover;
  border-radius: ${radii.md};
  background: ${colors.navy};
`;

const ProductCategoryTemplate = ({ data, location }: PageProps<Queries.ProductCategoryQuery>) => {
  const category = requireContent(data.productCategoryJson, "the category's file in content/products/");
  const labels = requireContent(data.sitePagesJson, "content/site-pages.json").products;
  const allMarks = requireContent(data.certificationsJson, "content/certifications.json").compliance.items;
  const used = new Set(category.lines.flatMap((line) => line.compliance));
  const marks = allMarks.filter((mark) => used.has(mark.id));
  const image = category.image.childImageSharp?.gatsbyImageData;

  return (
    <PageShell
      currentPath={location.pathname}
      title={category.title}
      intro={category.summary}
      eyebrow={<SmartLink to="/products/">{labels.heading}</SmartLink>}
    >
      <section aria-labelledby="overview-heading" css={overviewStyles}>
        <div>
          <h2 id="overview-heading">{labels.overviewHeading}</h2>
          {category.overview.map((paragraph) => (
            <p key={paragraph}>{paragraph}</p>
          ))}
        </div>
        {image ? <PriorityImage image={image} alt={category.imageAlt} css={imageStyles} /> : null}
      </section>
      <section aria-labelledby="lines-heading">
        <h2 id="lines-heading">{labels.linesHeading}</h2>
        <ProductLines lines={category.lines} marks={allMarks} complianceLabel={labels.complianceHeading} />
      </section>
      {marks.length > 0 ? (
        <section aria-labelledby="compliance-heading">
          <h2 id="compliance-heading">{labels.complianceHeading}</h2>
          <ComplianceMarks marks={marks} />
        </section>
      ) : null}
      <CallToAction
        heading={category.cta.heading}
        text={category.cta.text}
        action={{ label: category.cta.label, to: quoteRequestPath(category.slug) }}
      />
    </PageShell>
  );
};

export default ProductCategoryTemplate;

export const Head = pageHead<Queries.ProductCategoryQuery>((data) => data.productCategoryJson?.seo);

export const query = graphql`
  query ProductCategory($id: String!) {
    productCategoryJson(id: { eq: $id }) {
      slug
      title
      summary
      seo {
        title
        description
      }
      overview
      imageAlt
      image {
        childImageSharp {
          gatsbyImageData(width: 720, aspectRatio: 1.7778, quality: 72, placeholder: NONE, formats: [AUTO, WEBP, AVIF])
        }
      }
      lines {
        name
        description
        compliance
      }
      cta {
        heading
        text
        label
      }
    }
    certificationsJson {
      compliance {
        items {
          id
          name
          description
        }
      }
    }
    sitePagesJson {
      products {
        heading
        overviewHeading
        linesHeading
        complianceHeading
      }
    }
  }
`;
