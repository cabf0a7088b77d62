import type { IGatsbyImageData } from "gatsby-plugin-image";

/** Renders a plain img so tests can see that an image with the right alt text is on the page. */
const actual = jest.requireActual<typeof import("gatsby-plugin-image")>("gatsby-plugin-image");

// Partial: a fixture may hold only part of the image data, or none.
const GatsbyImage = ({ image, alt, loading }: { image?: Partial<IGatsbyImageData>; alt: string; loading?: string }) => (
  <img src={image?.images?.fallback?.src ?? ""} alt={alt} data-loading={loading} />
);

const StaticImage = ({ src, alt }: { src: string; alt: string }) => <img src={src} alt={alt} />;

module.exports = { ...actual, GatsbyImage, StaticImage, getImage: (data: unknown) => data ?? undefined };
