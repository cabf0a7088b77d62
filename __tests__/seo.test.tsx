import { renderToStaticMarkup } from "react-dom/server";
import type { ReactElement } from "react";
import { Seo } from "../src/components/layout/Seo";

/** What Gatsby's Head API would put in <head>, as a queryable fragment plus the raw markup. */
const renderHead = (element: ReactElement) => {
  const markup = renderToStaticMarkup(element);
  const head = document.createElement("div");
  head.innerHTML = markup;
  return { markup, head };
};

describe("Seo", () => {
  it("gives a page its title, description, canonical address, Open Graph tags and language", () => {
    const { markup, head } = renderHead(
      <Seo title="Tactical Gear" description="Plate carriers and duty belts." pathname="/products/tactical/" />,
    );
    expect(head.querySelector("title")).toHaveTextContent("Tactical Gear | Fixture Supply");
    expect(head.querySelector('meta[name="description"]')).toHaveAttribute("content", "Plate carriers and duty belts.");
    expect(head.querySelector('link[rel="canonical"]')).toHaveAttribute(
      "href",
      "https://fixture.example/products/tactical/",
    );
    expect(head.querySelector('meta[property="og:title"]')).toHaveAttribute(
      "content",
      "Tactical Gear | Fixture Supply",
    );
    expect(head.querySelector('meta[property="og:url"]')).toHaveAttribute(
      "content",
      "https://fixture.example/products/tactical/",
    );
    expect(head.querySelector('meta[property="og:description"]')).toHaveAttribute(
      "content",
      "Plate carriers and duty belts.",
    );
    expect(head.querySelector('meta[property="og:site_name"]')).toHaveAttribute("content", "Fixture Supply");
    expect(markup).toContain('<html lang="en">');
  });

  it("names no canonical address for a page search engines must not list, and says noindex", () => {
    const { head } = renderHead(<Seo title="Page not found" pathname="/404.html" indexable={false} />);
    expect(head.querySelector('link[rel="canonical"]')).toBeNull();
    expect(head.querySelector('meta[property="og:url"]')).toBeNull();
    expect(head.querySelector('meta[name="robots"]')).toHaveAttribute("content", "noindex");
  });

  it("falls back to the company description and lets the home page title stand alone", () => {
    const { head } = renderHead(<Seo title="Fixture Supply — Home" pathname="/" standaloneTitle />);
    expect(head.querySelector("title")?.textContent).toBe("Fixture Supply — Home");
    expect(head.querySelector('meta[name="description"]')).toHaveAttribute("content", "Fixture company description");
  });
});
