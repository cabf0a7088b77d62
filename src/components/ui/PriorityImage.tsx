import type { IGatsbyImageData } from "gatsby-plugin-image";

interface PriorityImageProps {
  image: IGatsbyImageData;
  alt: string;
  className?: string;
}

/**
 * The largest paint of a page, rendered from gatsby-plugin-image's processed
 * data (AVIF, WebP and JPEG at each width) as a plain <picture>. GatsbyImage
 * would add its lazy-hydration bundle and cannot ask for
 * high fetch priority; neither helps an image that must load first anyway.
 */
export const PriorityImage = ({ image, alt, className }: PriorityImageProps) => {
  const { fallback, sources = [] } = image.images;
  return (
    <picture>
      {sources.map((source) => (
        <source key={source.type} type={source.type} srcSet={source.srcSet} sizes={source.sizes} />
      ))}
      <img
        className={className}
        src={fallback?.src}
        srcSet={fallback?.srcSet}
        sizes={fallback?.sizes}
        // A full-width image's data holds its aspect ratio, not pixels; its box comes from CSS.
        width={image.layout === "fullWidth" ? undefined : image.width}
        height={image.layout === "fullWidth" ? undefined : image.height}
        alt={alt}
        loading="eager"
        // Decoded in the same frame it is painted in, so it is on screen with the first paint.
        decoding="sync"
        {...{ fetchpriority: "high" }}
      />
    </picture>
  );
};

/**
 * For the page's Head: starts downloading the priority image's best format
 * before the body is parsed, so it can paint with the first frame. Browsers
 * that cannot show that format skip the preload by its type.
 */
export const PriorityImagePreload = ({ image }: { image: IGatsbyImageData }) => {
  const source = image.images.sources?.[0];
  const fallback = image.images.fallback;
  const srcSet = source?.srcSet ?? fallback?.srcSet;
  if (!srcSet) return null;
  return (
    <link
      rel="preload"
      as="image"
      imageSrcSet={srcSet}
      imageSizes={source?.sizes ?? fallback?.sizes}
      type={source?.type}
      {...{ fetchpriority: "high" }}
    />
  );
};
