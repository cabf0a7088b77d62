import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { renderToString } from "react-dom/server";
import { AgencyCarousel } from "../src/components/home/AgencyCarousel";
import { AgencyTile } from "../src/components/home/AgencyTile";
import { setViewportWidth } from "./support/media";
import { agencies, agencyNames, carouselLabels } from "./fixtures/content";

/**
 * The carousel as a visitor meets it: react-slick's code arrives as a chunk of its own (at once here, where
 * jsdom has no IntersectionObserver), and until it does the server's track is shown.
 */
const renderCarousel = async (items = agencies) => {
  const rendered = render(<AgencyCarousel agencies={items} labels={carouselLabels} />);
  await waitFor(() => expect(rendered.container.querySelector(".slick-initialized")).not.toBeNull());
  return rendered;
};

/** The slide react-slick treats as the first one in view. */
const currentSlide = (container: HTMLElement) =>
  container.querySelector(".slick-slide.slick-current figcaption")?.textContent;

describe("AgencyCarousel", () => {
  it("renders all eight agencies, each with its name and logo", async () => {
    const { container } = await renderCarousel();
    const originals = container.querySelectorAll(".slick-slide:not(.slick-cloned)");
    expect(originals).toHaveLength(8);
    originals.forEach((slide, index) => {
      expect(slide).toHaveTextContent(agencyNames[index]!);
      expect(slide.querySelector("img")).toHaveAttribute("alt", `${agencyNames[index]} emblem`);
    });
  });

  it("brings the layout react-slick needs in its own styles, not from a stylesheet every page loads", async () => {
    const { container } = await renderCarousel();
    const style = (selector: string, ...properties: string[]) => {
      const computed = getComputedStyle(container.querySelector(selector)!);
      return Object.fromEntries(properties.map((property) => [property, computed.getPropertyValue(property)]));
    };
    expect(style(".slick-slider", "position", "display")).toEqual({ position: "relative", display: "block" });
    expect(style(".slick-list", "position", "overflow")).toEqual({ position: "relative", overflow: "hidden" });
    expect(style(".slick-track", "position", "display")).toEqual({ position: "relative", display: "block" });
    expect(style(".slick-slide", "display", "float")).toEqual({ display: "block", float: "left" });
  });

  it("is a labelled carousel region, itself no tab stop, with labelled previous and next buttons", async () => {
    await renderCarousel();
    const region = screen.getByRole("region", { name: "Fixture agencies carousel" });
    expect(region).toHaveAttribute("aria-roledescription", "carousel");
    expect(region).not.toHaveAttribute("tabindex");
    expect(within(region).getByRole("button", { name: "Show previous agencies" })).toBeEnabled();
    expect(within(region).getByRole("button", { name: "Show next agencies" })).toBeEnabled();
  });

  it("moves with the arrow keys when either of its buttons has focus, looping past either end", async () => {
    const user = userEvent.setup();
    const { container } = await renderCarousel();
    expect(currentSlide(container)).toBe(agencyNames[0]);

    screen.getByRole("button", { name: "Show next agencies" }).focus();
    await user.keyboard("{ArrowRight}");
    expect(currentSlide(container)).toBe(agencyNames[1]);
    expect(screen.getByTestId("carousel-position")).toHaveTextContent("Agencies 2 to 2 of 8");

    screen.getByRole("button", { name: "Show previous agencies" }).focus();
    await user.keyboard("{ArrowLeft}");
    await user.keyboard("{ArrowLeft}");
    expect(currentSlide(container)).toBe(agencyNames[7]);
  });

  it("moves with the previous and next buttons", async () => {
    const user = userEvent.setup();
    const { container } = await renderCarousel();
    await user.click(screen.getByRole("button", { name: "Show next agencies" }));
    await user.click(screen.getByRole("button", { name: "Show next agencies" }));
    expect(currentSlide(container)).toBe(agencyNames[2]);
    await user.click(screen.getByRole("button", { name: "Show previous agencies" }));
    expect(currentSlide(container)).toBe(agencyNames[1]);
  });

  it("shows 1 slide on phones, 3 from md and 4 from lg", async () => {
    const { container } = await renderCarousel();
    const visible = () => container.querySelectorAll(".slick-slide.slick-active").length;
    expect(visible()).toBe(1);
    act(() => setViewportWidth(800));
    expect(visible()).toBe(3);
    act(() => setViewportWidth(1280));
    expect(visible()).toBe(4);
  });

  it("keeps cloned and off-screen slides out of the tab order and the accessibility tree", async () => {
    const { container } = await renderCarousel();
    const hidden = container.querySelectorAll(".slick-slide[aria-hidden='true']");
    expect(hidden.length).toBeGreaterThan(0);
    hidden.forEach((slide) => expect(slide).toHaveAttribute("inert"));
    const active = container.querySelectorAll(".slick-slide.slick-active");
    active.forEach((slide) => expect(slide).not.toHaveAttribute("inert"));
    container.querySelectorAll(".slick-slide").forEach((slide) => expect(slide).not.toHaveAttribute("tabindex"));
  });

  it("disables both buttons when every logo fits, since there is nowhere to move", async () => {
    act(() => setViewportWidth(1280));
    await renderCarousel(agencies.slice(0, 3));
    expect(screen.getByRole("button", { name: "Show previous agencies" })).toBeDisabled();
    expect(screen.getByRole("button", { name: "Show next agencies" })).toBeDisabled();
  });

  it("lays out the first view in the server HTML, with every agency named", () => {
    const html = renderToString(<AgencyCarousel agencies={agencies} labels={carouselLabels} />);
    const host = document.createElement("div");
    host.innerHTML = html;
    const items = host.querySelectorAll("ul > li");
    expect(items).toHaveLength(8);
    agencyNames.forEach((name) => expect(host).toHaveTextContent(name));
    expect(host.querySelector(".slick-slider")).toBeNull();
  });
});

describe("AgencyTile", () => {
  const agency = agencies[0]!;

  it("replaces a logo that fails to load with a tidy tile that keeps the name", () => {
    const { container } = render(<AgencyTile agency={agency} />);
    const image = container.querySelector("img")!;
    fireEvent.error(image);
    expect(container.querySelector("img")).toBeNull();
    expect(screen.getByTestId("agency-placeholder")).toBeInTheDocument();
    expect(screen.getByText(agency.name)).toBeInTheDocument();
  });

  it("shows only the name when the entry says not to show the logo", () => {
    const { container } = render(<AgencyTile agency={{ ...agency, showLogo: false }} />);
    expect(container.querySelector("img")).toBeNull();
    expect(screen.getByTestId("agency-placeholder")).toBeInTheDocument();
    expect(screen.getByText(agency.name)).toBeInTheDocument();
  });

  it("loads a logo given as an https address directly", () => {
    const remote = { ...agency, logo: "https://logos.example/agency.svg", logoFile: null };
    const { container } = render(<AgencyTile agency={remote} />);
    expect(container.querySelector("img")).toHaveAttribute("src", "https://logos.example/agency.svg");
  });
});
