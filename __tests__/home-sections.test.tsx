import { render, screen, within } from "@testing-library/react";
import { Hero } from "../src/components/home/Hero";
import { Solutions } from "../src/components/home/Solutions";
import { About } from "../src/components/home/About";
import { ContactSection } from "../src/components/home/ContactSection";
import type { IGatsbyImageData } from "gatsby-plugin-image";
import {
  aboutContent,
  categories,
  complianceOptions,
  company,
  contactContent,
  heroContent,
  inquiryContent,
  solutionsContent,
} from "./fixtures/content";

const heroImage: IGatsbyImageData = {
  layout: "fullWidth",
  width: 1920,
  height: 1080,
  images: {
    fallback: { src: "/static/hero.jpg", srcSet: "/static/hero-768.jpg 768w, /static/hero.jpg 1920w", sizes: "100vw" },
    sources: [{ type: "image/avif", srcSet: "/static/hero.avif 1920w", sizes: "100vw" }],
  },
};

describe("Hero", () => {
  it("shows the headline as the page's h1, the supporting text and both actions", () => {
    render(<Hero content={heroContent} image={heroImage} />);
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent(heroContent.headline);
    expect(screen.getByText(heroContent.text)).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Explore Products" })).toHaveAttribute("href", "/products/");
    expect(screen.getByRole("link", { name: "Contact Us" })).toHaveAttribute("href", "/#contact");
  });

  it("loads the optimised background photo first, since it is the largest paint", () => {
    const { container } = render(<Hero content={heroContent} image={heroImage} />);
    const image = container.querySelector("img");
    expect(image).toHaveAttribute("src", "/static/hero.jpg");
    expect(image).toHaveAttribute("srcset", "/static/hero-768.jpg 768w, /static/hero.jpg 1920w");
    expect(image).toHaveAttribute("loading", "eager");
    expect(image).toHaveAttribute("fetchpriority", "high");
    expect(image).not.toHaveAttribute("width");
    expect(container.querySelector("source[type='image/avif']")).toHaveAttribute("srcset", "/static/hero.avif 1920w");
  });
});

describe("Solutions", () => {
  it("renders every card with its title, description and icon", () => {
    render(<Solutions content={solutionsContent} />);
    expect(screen.getByRole("heading", { level: 2, name: "Our Specialized Solutions" })).toBeInTheDocument();
    const cards = screen.getAllByRole("article");
    expect(cards).toHaveLength(4);
    solutionsContent.cards.forEach((card, index) => {
      const article = cards[index]!;
      expect(within(article).getByRole("heading", { level: 3 })).toHaveTextContent(card.title);
      expect(within(article).getByText(card.description)).toBeInTheDocument();
      expect(article.querySelector("svg[aria-hidden='true']")).not.toBeNull();
    });
  });

  it("refuses an icon name that has no icon, rather than showing an empty badge", () => {
    // React reports the render error on the console as well.
    const consoleError = jest.spyOn(console, "error").mockImplementation(() => undefined);
    const broken = { ...solutionsContent, cards: [{ title: "T", description: "D", icon: "rocket" }] };
    expect(() => render(<Solutions content={broken} />)).toThrow(/Unknown icon "rocket"/);
    expect(consoleError).toHaveBeenCalledWith(
      expect.stringContaining("The above error occurred in the <Icon> component"),
    );
  });
});

describe("About", () => {
  it("shows the mission statement and links to the about page", () => {
    render(<About content={aboutContent} />);
    expect(screen.getByRole("heading", { level: 2 })).toHaveTextContent("About Fixture Supply");
    expect(screen.getByText(aboutContent.mission)).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Learn More About Us" })).toHaveAttribute("href", "/about/");
  });
});

describe("ContactSection", () => {
  it("shows the form beside the address, a tel: link, a mailto: link and the business hours", () => {
    render(
      <ContactSection
        content={contactContent}
        form={inquiryContent}
        categories={categories}
        complianceOptions={complianceOptions}
        company={company}
      />,
    );
    const section = screen.getByRole("region", { name: "Contact Us" });
    expect(within(section).getByText(contactContent.intro)).toBeInTheDocument();
    expect(within(section).getByRole("button", { name: "Submit Inquiry" })).toBeInTheDocument();
    const details = within(section).getByRole("complementary", { name: "Or reach us directly" });
    expect(within(details).getByText("1 Fixture Way", { exact: false })).toBeInTheDocument();
    expect(within(details).getByText("Durham, NC 27701", { exact: false })).toBeInTheDocument();
    expect(within(details).getByRole("link", { name: "(919) 555-0100" })).toHaveAttribute("href", "tel:+19195550100");
    expect(within(details).getByRole("link", { name: "desk@fixture.example" })).toHaveAttribute(
      "href",
      "mailto:desk@fixture.example",
    );
    expect(within(details).getByText("Weekdays, 8:00 AM to 5:00 PM EST")).toBeInTheDocument();
    expect(within(details).getByText("Opening hours")).toBeInTheDocument();
  });
});
