/**
 * react-slick loads only once the carousel is about to be seen. Each test starts from a fresh module
 * registry, so that its code is not loaded yet, and counts how often the browser would have fetched it.
 */
import { agencies, agencyNames, carouselLabels } from "./fixtures/content";
import { removeIntersectionObserver } from "./support/intersection-observer";
import { onDemandCodeHarness } from "./support/on-demand-code";

let fetchesOfSlider = 0;
const harness = onDemandCodeHarness();

beforeEach(() => {
  fetchesOfSlider = 0;
  jest.doMock("react-slick", () => {
    fetchesOfSlider += 1;
    return jest.requireActual<typeof import("react-slick")>("react-slick");
  });
});

const freshCarousel = async () => {
  const { fireEvent, render, screen, settle } = await harness.testingLibrary();
  const { AgencyCarousel } = await import("../src/components/home/AgencyCarousel");
  const { container } = render(<AgencyCarousel agencies={agencies} labels={carouselLabels} />);
  const region = screen.getByRole("region", { name: "Fixture agencies carousel" });
  const slider = () => container.querySelector(".slick-initialized");
  /** The names in the server's track, left to right (on a phone, the first is the one in view). */
  const trackNames = () => [...container.querySelectorAll("ul > li figcaption")].map((caption) => caption.textContent);
  return { fireEvent, screen, region, settle, slider, trackNames };
};

describe("the carousel's slider code", () => {
  it("is not loaded with the page: the server's track is shown until the carousel nears the viewport", async () => {
    const { region, settle, slider, trackNames } = await freshCarousel();
    await settle();
    expect(fetchesOfSlider).toBe(0);
    expect(slider()).toBeNull();
    expect(trackNames()).toEqual(agencyNames);

    const observer = harness.observers().find((candidate) => candidate.observed.includes(region));
    expect(observer?.options).toEqual({ rootMargin: "100% 0px" });
    observer!.callback([{ isIntersecting: false }]);
    await settle();
    expect(fetchesOfSlider).toBe(0);
    observer!.callback([{ isIntersecting: true }]);
    await settle();
    expect(fetchesOfSlider).toBe(1);
    expect(slider()).not.toBeNull();
    expect(observer!.connected).toBe(false);
  });

  it("loads when the carousel takes focus before it was reported near, and the keys move it meanwhile", async () => {
    const { fireEvent, screen, region, settle, trackNames } = await freshCarousel();
    // A key pressed on its button before the code has arrived turns the server's track at once.
    const next = screen.getByRole("button", { name: "Show next agencies" });
    expect(region).toContainElement(next);
    fireEvent.focusIn(next);
    fireEvent.keyDown(next, { key: "ArrowRight" });
    expect(trackNames()[0]).toBe(agencyNames[1]);
    expect(screen.getByTestId("carousel-position")).toHaveTextContent("Agencies 2 to 2 of 8");
    await settle();
    expect(fetchesOfSlider).toBe(1);
  });

  it("starts the slider where the visitor left the track", async () => {
    const { fireEvent, screen, region, settle, slider } = await freshCarousel();
    fireEvent.pointerDown(screen.getByRole("button", { name: "Show previous agencies" }));
    fireEvent.click(screen.getByRole("button", { name: "Show previous agencies" }));
    fireEvent.click(screen.getByRole("button", { name: "Show previous agencies" }));
    await settle();
    expect(slider()).not.toBeNull();
    expect(region.querySelector(".slick-slide.slick-current figcaption")).toHaveTextContent(agencyNames[6]!);
    expect(fetchesOfSlider).toBe(1);
  });

  it("loads at once where there is no IntersectionObserver", async () => {
    removeIntersectionObserver();
    const { settle, slider } = await freshCarousel();
    await settle();
    expect(fetchesOfSlider).toBe(1);
    expect(slider()).not.toBeNull();
  });
});
