import { render, screen } from "@testing-library/react";
import type { PageProps } from "gatsby";
import HomePage from "../src/pages/index";
import { homePageData } from "./fixtures/pages";
import { installIntersectionObserver, removeIntersectionObserver } from "./support/intersection-observer";

const data = homePageData;

const renderHome = (search = "") =>
  render(
    <HomePage
      {...({ data, location: { pathname: "/", search, hash: "" } } as unknown as PageProps<Queries.HomePageQuery>)}
    />,
  );

describe("home page", () => {
  // The page as it first renders, as a browser at its top shows it: the code that waits until its section
  // nears the viewport (the carousel's slider, the form's checks) has not loaded. Without an
  // IntersectionObserver, which jsdom lacks, it would load at once and arrive after the test's assertions,
  // outside act() (agency-carousel*.test.tsx test it arriving).
  beforeEach(() => {
    installIntersectionObserver();
  });
  afterEach(removeIntersectionObserver);

  it("shows the navigation, hero, solutions, agencies, about, contact and footer in that order", () => {
    const { container } = renderHome();
    const pageParts = Array.from(container.querySelectorAll("header, h1, h2, footer")).filter(
      (element) => !element.matches("section header, footer h2"),
    );
    const landmarks = pageParts.map((element) =>
      element.tagName === "H1" || element.tagName === "H2" ? element.textContent : element.tagName.toLowerCase(),
    );
    const order = [
      "header",
      "Fixture headline for government buyers",
      "Our Specialized Solutions",
      "Trusted By Government Agencies",
      "About Fixture Supply",
      "Contact Us",
      "footer",
    ];
    expect(landmarks.filter((item) => order.includes(item))).toEqual(order);
  });

  it("has exactly one h1, a skip link to the main content, and the disclaimer under the carousel", () => {
    renderHome();
    expect(screen.getAllByRole("heading", { level: 1 })).toHaveLength(1);
    const skip = screen.getByRole("link", { name: "Skip to the content" });
    expect(skip).toHaveAttribute("href", "#main-content");
    expect(document.getElementById("main-content")?.tagName).toBe("MAIN");
    expect(screen.getByText("Logos belong to their owners.")).toBeInTheDocument();
  });

  it("opens the form as a quote request when the address asks for one", () => {
    renderHome("?type=quote&category=uniforms");
    expect(screen.getByLabelText(/Inquiry Type/)).toHaveValue("quote");
    expect(screen.getByLabelText(/Product category/)).toHaveValue("uniforms");
  });
});
