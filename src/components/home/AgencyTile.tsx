import { useEffect, useRef, useState } from "react";
import { css } from "@emotion/react";
import { Building2 } from "lucide-react";
import { colors, radii, space } from "../../styles/theme";

export interface AgencyContent {
  readonly name: string;
  readonly logo: string;
  readonly logoFile?: { readonly publicURL: string | null } | null;
  readonly alt: string;
  readonly showLogo: boolean;
}

/** Where the logo can be loaded from: the built copy of a local file, or the https address itself. */
const logoSource = (agency: AgencyContent): string | null =>
  agency.logoFile?.publicURL ?? (agency.logo.startsWith("https://") ? agency.logo : null);

/** Fixed sizes so the tile is the same height with a logo, without one, or before it loads. */
const tileStyles = css`
  display: flex;
  flex-direction: column;
  align-items: center;
  justify-content: flex-start;
  gap: ${space.sm};
  height: 11.5rem;
  margin: 0;
  padding: ${space.md};
  background: ${colors.white};
  border: 1px solid ${colors.border};
  border-radius: ${radii.md};
  text-align: center;
`;

const markBox = css`
  flex: 0 0 auto;
  display: grid;
  place-items: center;
  width: 5rem;
  height: 5rem;
`;

const logoStyles = css`
  width: 5rem;
  height: 5rem;
  object-fit: contain;
`;

const placeholderStyles = css`
  display: grid;
  place-items: center;
  width: 4.5rem;
  height: 4.5rem;
  border-radius: ${radii.round};
  background: ${colors.surface};
  color: ${colors.blue};
  border: 2px solid ${colors.border};
`;

const nameStyles = css`
  font-weight: 700;
  color: ${colors.navy};
  line-height: 1.3;
`;

export const AgencyTile = ({ agency }: { agency: AgencyContent }) => {
  const source = agency.showLogo ? logoSource(agency) : null;
  const [failed, setFailed] = useState(false);
  const imageRef = useRef<HTMLImageElement>(null);

  // An image that failed before hydration has already fired its error event.
  useEffect(() => {
    const image = imageRef.current;
    if (image && image.complete && image.naturalWidth === 0) setFailed(true);
  }, []);

  return (
    <figure css={tileStyles}>
      <span css={markBox}>
        {source && !failed ? (
          <img
            ref={imageRef}
            css={logoStyles}
            src={source}
            alt={agency.alt}
            width={80}
            height={80}
            loading="lazy"
            decoding="async"
            onError={() => setFailed(true)}
          />
        ) : (
          <span css={placeholderStyles} data-testid="agency-placeholder" aria-hidden="true">
            <Building2 size={32} strokeWidth={1.75} />
          </span>
        )}
      </span>
      <figcaption css={nameStyles}>{agency.name}</figcaption>
    </figure>
  );
};
