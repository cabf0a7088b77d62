import { useCallback, useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import type Slider from "react-slick";
import type { Settings } from "react-slick";
import { css } from "@emotion/react";
import { ChevronLeft, ChevronRight } from "lucide-react";
import { breakpoints, colors, mq, radii, space, visuallyHidden } from "../../styles/theme";
import { useMediaQuery } from "../../hooks/use-media-query";
import { lazyCode, useWhenNear } from "../../hooks/use-when-near";
import { AgencyTile, type AgencyContent } from "./AgencyTile";
import { useNeedsBrowser } from "../browser/needs-browser";

interface CarouselLabels {
  readonly carouselLabel: string;
  readonly previousLabel: string;
  readonly nextLabel: string;
  readonly positionTemplate: string;
}

interface AgencyCarouselProps {
  agencies: readonly AgencyContent[];
  labels: CarouselLabels;
}

/** Slides per view: 1 on phones, 3 from md, 4 from lg (the spec's rule). */
const SLIDES_PER_VIEW = { base: 1, md: 3, lg: 4 } as const;

const useSlidesPerView = (): number | null => {
  const isLg = useMediaQuery(`(min-width: ${breakpoints.lg}px)`);
  const isMd = useMediaQuery(`(min-width: ${breakpoints.md}px)`);
  if (isLg === null || isMd === null) return null;
  return isLg ? SLIDES_PER_VIEW.lg : isMd ? SLIDES_PER_VIEW.md : SLIDES_PER_VIEW.base;
};

/**
 * react-slick and what it brings (about 16 KB gzip) load as a chunk of their own once the carousel
 * comes within a screen of the viewport or is touched: on the home page it sits below the fold, and
 * the page's first load was over its 100 KB budget with it. Until then the server's track is shown,
 * and the buttons already move it.
 */
const sliderCode = lazyCode(() =>
  import(/* webpackChunkName: "agency-slider" */ "react-slick").then((module) => module.default),
);

/** The agencies in the order the track shows them, starting from the one first in view. */
const startingAt = <T,>(items: readonly T[], first: number): readonly T[] => [
  ...items.slice(first),
  ...items.slice(0, first),
];

const positionText = (template: string, first: number, last: number, total: number) =>
  template.replace("{first}", String(first)).replace("{last}", String(last)).replace("{total}", String(total));

const regionStyles = css`
  display: grid;
  grid-template-columns: auto minmax(0, 1fr) auto;
  align-items: center;
  gap: ${space.sm};
  border-radius: ${radii.md};
  ${mq.md} {
    gap: ${space.md};
  }
`;

const arrowStyles = css`
  display: inline-grid;
  place-items: center;
  width: 2.75rem;
  height: 2.75rem;
  padding: 0;
  border: 2px solid ${colors.blue};
  border-radius: ${radii.round};
  background: ${colors.white};
  color: ${colors.blue};
  cursor: pointer;
  &:hover:not(:disabled) {
    background: ${colors.blue};
    color: ${colors.white};
  }
  &:disabled {
    border-color: ${colors.border};
    color: ${colors.muted};
    cursor: not-allowed;
  }
`;

/** The previous or next button: the arrow keys work on both. */
const ArrowButton = ({
  label,
  enabled,
  onClick,
  onKeyDown,
  children,
}: {
  label: string;
  enabled: boolean;
  onClick: () => void;
  onKeyDown: (event: KeyboardEvent<HTMLButtonElement>) => void;
  children: ReactNode;
}) => (
  <button
    type="button"
    css={arrowStyles}
    aria-label={label}
    disabled={!enabled}
    onClick={onClick}
    onKeyDown={onKeyDown}
  >
    {children}
  </button>
);

const slidePadding = css`
  padding: 0 ${space.sm};
`;

/**
 * The server's version of the first view: the same tiles at the same widths
 * as the slider will give them, sized per breakpoint in CSS, so nothing moves
 * when the slider takes over once its code has arrived. Tiles past the first view are
 * hidden from sight, focus and screen readers.
 */
const staticTrackStyles = css`
  display: flex;
  list-style: none;
  margin: 0;
  padding: 0;
  overflow: hidden;
  > li {
    flex: 0 0 ${100 / SLIDES_PER_VIEW.base}%;
    ${slidePadding};
  }
  > li:nth-of-type(n + ${SLIDES_PER_VIEW.base + 1}) {
    visibility: hidden;
  }
  ${mq.md} {
    > li {
      flex-basis: ${100 / SLIDES_PER_VIEW.md}%;
    }
    > li:nth-of-type(n + ${SLIDES_PER_VIEW.base + 1}) {
      visibility: visible;
    }
    > li:nth-of-type(n + ${SLIDES_PER_VIEW.md + 1}) {
      visibility: hidden;
    }
  }
  ${mq.lg} {
    > li {
      flex-basis: ${100 / SLIDES_PER_VIEW.lg}%;
    }
    > li:nth-of-type(n + ${SLIDES_PER_VIEW.md + 1}) {
      visibility: visible;
    }
    > li:nth-of-type(n + ${SLIDES_PER_VIEW.lg + 1}) {
      visibility: hidden;
    }
  }
`;

/**
 * The rules of slick-carousel's slick.css that react-slick's markup needs here, so that they come with
 * the carousel, on the one page that has one, instead of in every page's <head>; the rest of that file is
 * for what this carousel leaves off (arrows, dots, vertical and right-to-left sliders) or for classes
 * react-slick never sets (`dragging`, `slick-loading`), among them the `cursor: hand` that is not CSS.
 * The slides float side by side in a track as wide as all of them, which react-slick moves with a
 * transform inside a list that clips it; a slide is shown once react-slick has measured the widths.
 */
const sliderStyles = css`
  .slick-slider {
    position: relative;
    display: block;
    box-sizing: border-box;
    user-select: none;
    -webkit-touch-callout: none;
    touch-action: pan-y;
    -webkit-tap-highlight-color: transparent;
  }
  .slick-list {
    position: relative;
    display: block;
    overflow: hidden;
    margin: 0;
    padding: 0;
  }
  .slick-track,
  .slick-list {
    transform: translate3d(0, 0, 0);
  }
  .slick-track {
    position: relative;
    top: 0;
    left: 0;
    display: block;
    margin-left: auto;
    margin-right: auto;
  }
  .slick-track::before,
  .slick-track::after {
    display: table;
    content: "";
  }
  .slick-track::after {
    clear: both;
  }
  .slick-slide {
    display: none;
    float: left;
    height: 100%;
    min-height: 1px;
  }
  .slick-slide img {
    display: block;
  }
  .slick-initialized .slick-slide {
    display: block;
  }
  .slick-slide > div {
    ${slidePadding};
  }
`;

/**
 * react-slick marks clones and off-view slides aria-hidden but leaves them
 * focusable, and gives every slide tabindex="-1". Slides hold no controls, so
 * none needs focus; inert takes the hidden ones out of the accessibility tree
 * as well, so no agency is read twice.
 */
const syncSlides = (root: HTMLElement) => {
  root.querySelectorAll<HTMLElement>(".slick-slide").forEach((slide) => {
    if (slide.hasAttribute("tabindex")) slide.removeAttribute("tabindex");
    const hidden = slide.getAttribute("aria-hidden") === "true";
    if (hidden && !slide.hasAttribute("inert")) slide.setAttribute("inert", "");
    if (!hidden && slide.hasAttribute("inert")) slide.removeAttribute("inert");
  });
};

export const AgencyCarousel = ({ agencies, labels }: AgencyCarouselProps) => {
  // Its arrows, its sliding track and its logos' fallback work by script.
  useNeedsBrowser("agency carousel");
  const slidesPerView = useSlidesPerView();
  const reducedMotion = useMediaQuery("(prefers-reduced-motion: reduce)");
  const sliderRef = useRef<Slider>(null);
  const regionRef = useRef<HTMLDivElement>(null);
  const viewportRef = useRef<HTMLDivElement>(null);
  const [SliderView, setSliderView] = useState(() => sliderCode.loaded());
  const [current, setCurrent] = useState(0);
  const [announce, setAnnounce] = useState(false);

  const showSlider = useCallback(() => {
    sliderCode.load().then(
      (arrived) => setSliderView(() => arrived),
      // Offline: the server's track stays, and its buttons still move it.
      () => undefined,
    );
  }, []);
  useWhenNear(regionRef, showSlider, SliderView !== undefined);

  const total = agencies.length;
  const sliding = SliderView !== undefined && slidesPerView !== null;
  const perView = Math.min(slidesPerView ?? SLIDES_PER_VIEW.base, total);
  const loops = slidesPerView !== null && total > perView;
  const canPrevious = loops;
  const canNext = loops;

  // react-slick re-renders its own slides on every move; mirror its aria-hidden whenever it changes.
  useEffect(() => {
    const viewport = viewportRef.current;
    if (!viewport || !sliding) return undefined;
    syncSlides(viewport);
    const observer = new MutationObserver(() => syncSlides(viewport));
    observer.observe(viewport, {
      subtree: true,
      attributes: true,
      attributeFilter: ["aria-hidden", "tabindex"],
      childList: true,
    });
    return () => observer.disconnect();
  }, [sliding, slidesPerView]);

  // Before the slider has arrived, a move turns the server's track, and the slider starts where it was left.
  const move = useCallback(
    (step: 1 | -1) => {
      setAnnounce(true);
      const slider = sliderRef.current;
      if (slider) {
        if (step === 1) slider.slickNext();
        else slider.slickPrev();
      } else {
        setCurrent((from) => (((from + step) % total) + total) % total);
      }
    },
    [total],
  );
  const previous = useCallback(() => move(-1), [move]);
  const next = useCallback(() => move(1), [move]);

  const onKeyDown = (event: KeyboardEvent<HTMLButtonElement>) => {
    if (event.key === "ArrowLeft" && canPrevious) {
      event.preventDefault();
      previous();
    } else if (event.key === "ArrowRight" && canNext) {
      event.preventDefault();
      next();
    }
  };

  const settings: Settings = {
    slidesToShow: perView,
    slidesToScroll: 1,
    infinite: loops,
    arrows: false,
    dots: false,
    // Arrow keys are handled on the carousel's own buttons below, not on slick's unfocusable list.
    accessibility: false,
    speed: reducedMotion ? 0 : 400,
    // A keyboard user pressing → twice expects two moves, not one swallowed by the animation.
    waitForAnimate: false,
    swipeToSlide: true,
    initialSlide: current,
    beforeChange: (_from, to) => setCurrent(to),
  };

  const first = ((current % total) + total) % total;
  const shown = Array.from({ length: perView }, (_, offset) => ((first + offset) % total) + 1);

  return (
    // The carousel is a labelled region, not itself a tab stop: a region is no widget, and may not take keys.
    // ← and → work on its previous and next buttons, which are; the keys only repeat what the buttons do.
    <div
      role="region"
      aria-roledescription="carousel"
      aria-label={labels.carouselLabel}
      ref={regionRef}
      css={regionStyles}
    >
      <ArrowButton label={labels.previousLabel} enabled={canPrevious} onClick={previous} onKeyDown={onKeyDown}>
        <ChevronLeft aria-hidden="true" size={24} />
      </ArrowButton>
      <div ref={viewportRef}>
        {!sliding ? (
          <ul css={staticTrackStyles}>
            {startingAt(agencies, current).map((agency) => (
              <li key={agency.name}>
                <AgencyTile agency={agency} />
              </li>
            ))}
          </ul>
        ) : (
          <div css={sliderStyles}>
            <SliderView ref={sliderRef} {...settings}>
              {agencies.map((agency) => (
                <AgencyTile key={agency.name} agency={agency} />
              ))}
            </SliderView>
          </div>
        )}
      </div>
      <ArrowButton label={labels.nextLabel} enabled={canNext} onClick={next} onKeyDown={onKeyDown}>
        <ChevronRight aria-hidden="true" size={24} />
      </ArrowButton>
      <p css={visuallyHidden} aria-live="polite" data-testid="carousel-position">
        {announce ? positionText(labels.positionTemplate, shown[0] ?? 1, shown[shown.length - 1] ?? 1, total) : ""}
      </p>
    </div>
  );
};
