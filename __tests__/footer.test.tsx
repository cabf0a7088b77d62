import { render, screen, within } from "@testing-library/react";
import { renderToString } from "react-dom/server";
import { Footer } from "../src/components/layout/Footer";
import { procurement, siteData } from "./fixtures/content";

const company = siteData.companyJson!;
const footer = siteData.navigationJson!.footer;

describe("Footer", () => {
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it("shows the year from the visitor's clock, not the build's", () => {
    jest.useFakeTimers({ now: new Date("2031-06-15T12:00:00Z") });
    render(<Footer company={company} footer={footer} procurement={procurement} buildYear={2024} />);
    expect(screen.getByTestId("footer-year")).toHaveTextContent("2031");
    expect(screen.getByText(/Fixture Supply Co., LLC/)).toHaveTextContent(
      "© 2031 Fixture Supply Co., LLC. All rights reserved.",
    );
  });

  it("serves the build's year and switches to the visitor's once hydrated, without a mismatch", () => {
    jest.useFakeTimers({ now: new Date("2031-06-15T12:00:00Z") });
    const errors = jest.spyOn(console, "error").mockImplementation(() => undefined);
    const footerElement = <Footer company={company} footer={footer} procurement={procurement} buildYear={2024} />;
    const container = document.body.appendChild(document.createElement("div"));
    container.innerHTML = renderToString(footerElement);
    expect(within(container).getByTestId("footer-year")).toHaveTextContent("2024");

    render(footerElement, { container, hydrate: true });
    expect(within(container).getByTestId("footer-year")).toHaveTextContent("2031");
    expect(errors).not.toHaveBeenCalled();
  });

  it("links to the pages in content, grouped under their headings", () => {
    render(<Footer company={company} footer={footer} procurement={procurement} buildYear={2024} />);
    const nav = screen.getByRole("navigation", { name: "Site footer" });
    expect(within(nav).getByRole("heading", { name: "Product lines" })).toBeInTheDocument();
    expect(
      within(nav)
        .getAllByRole("link")
        .map((link) => link.getAttribute("href")),
    ).toEqual(["/products/uniforms/", "/products/tactical/", "/privacy/", "/terms/"]);
  });

  it("states the company's identifiers in one line", () => {
    render(<Footer company={company} footer={footer} procurement={procurement} buildYear={2024} />);
    expect(screen.getByText("UEI: FIXTURE12345 · CAGE: 1FX23 · NAICS: 315210, 423210")).toBeInTheDocument();
  });

  it("repeats the contact details", () => {
    render(<Footer company={company} footer={footer} procurement={procurement} buildYear={2024} />);
    expect(screen.getByRole("heading", { name: "Get in touch" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "(919) 555-0100" })).toHaveAttribute("href", "tel:+19195550100");
    expect(screen.getByRole("link", { name: "desk@fixture.example" })).toHaveAttribute(
      "href",
      "mailto:desk@fixture.example",
    );
  });
});
