import type { IGatsbyImageData } from "gatsby-plugin-image";

interface PriorityImageProps {
  image: IGatsbyImageData;
  alt: string;
  className?: string;
}

/**
 * The largest paint of a page, rendered from gatsby-plugin-image's processed
 * data (AVIF, WebP and JPEG at each width) as a plain <picture>. GatsbyImage
 * would add its lazy-hydration bundle (about 21 KB gzip) and cannot ask for
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
        width={image.width}
        height={image.height}
        alt={alt}
        loading="eager"
        decoding="async"
        {...{ fetchpriority: "high" }}
      />
    </picture>
  );
};
