import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { ComponentType } from "react";
import type { PageProps } from "gatsby";
import ProductCategoryTemplate from "../src/templates/product-category";
import ContentPageTemplate from "../src/templates/content-page";
import ProductsPage from "../src/pages/products";
import CertificationsPage from "../src/pages/certifications";
import CapabilityStatementPage from "../src/pages/capability-statement";
import ClientsPage from "../src/pages/clients";
import ContactPage from "../src/pages/contact";
import QuoteRequestPage from "../src/pages/contact/quote";
import { renderToString } from "react-dom/server";
import { agencyNames } from "./fixtures/content";
import {
  quotePageData,
  capabilityPageData,
  certificationsPageData,
  clientsPageData,
  contactPageData,
  contentPageData,
  productCategoryData,
  productsPageData,
} from "./fixtures/pages";

const renderPage = <T,>(Page: ComponentType<PageProps<T>>, data: T, pathname: string, search = "") =>
  render(<Page {...({ data, location: { pathname, search, hash: "" } } as unknown as PageProps<T>)} />);

describe("product category template", () => {
  it("shows the overview, every product line with its compliance marks, and what the marks mean", () => {
    renderPage(ProductCategoryTemplate, productCategoryData, "/products/tactical/");
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("Fixture Tactical Gear");
    expect(screen.getByText("Fixture overview paragraph two.")).toBeInTheDocument();
    const line = screen.getByRole("heading", { name: "Fixture plate carriers" }).closest("article")!;
    expect(within(line).getByRole("list", { name: /Compliance options/ })).toHaveTextContent(
      "Fixture TAAFixture Berry",
    );
    expect(screen.getByText("Fixture Berry meaning.")).toBeInTheDocument();
    // Only the marks this category uses are explained.
    expect(screen.queryByText("Fixture USA meaning.")).not.toBeInTheDocument();
  });

  it("shows its image and asks for a quote for this category", () => {
    const { container } = renderPage(ProductCategoryTemplate, productCategoryData, "/products/tactical/");
    expect(container.querySelector("main img")).toHaveAttribute("src", "/static/tactical.jpg");
    expect(screen.getByRole("link", { name: "Request a fixture quote" })).toHaveAttribute(
      "href",
      "/contact/quote/?category=tactical",
    );
  });
});

describe("content page template", () => {
  it("renders the title, date, sections and call to action, with the company's email and phone as links", () => {
    renderPage(ContentPageTemplate, contentPageData, "/privacy/");
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("Fixture Privacy Policy");
    expect(screen.getByText("Last updated November 22, 2026")).toBeInTheDocument();
    expect(screen.getByRole("heading", { level: 2, name: "Fixture what we collect" })).toBeInTheDocument();
    expect(screen.getByText("Fixture item two")).toBeInTheDocument();
    const main = screen.getByRole("main");
    expect(within(main).getAllByRole("link", { name: "desk@fixture.example" })[0]).toHaveAttribute(
      "href",
      "mailto:desk@fixture.example",
    );
    expect(within(main).getByRole("link", { name: "(919) 555-0100" })).toHaveAttribute("href", "tel:+19195550100");
    expect(main).not.toHaveTextContent("{email}");
    expect(screen.getByRole("link", { name: "Fixture contact" })).toHaveAttribute("href", "/contact/");
  });

  it("states the retention the inquiry settings keep, not a number of its own", () => {
    renderPage(ContentPageTemplate, contentPageData, "/privacy/");
    expect(screen.getByText("Fixture inquiries are deleted 17 months after the last contact.")).toBeInTheDocument();
  });
});

describe("products page", () => {
  it("lists every category as a card linking to its page", () => {
    renderPage(ProductsPage, productsPageData, "/products/");
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("Fixture Products");
    expect(screen.getByRole("link", { name: "View Fixture Uniforms" })).toHaveAttribute("href", "/products/uniforms/");
    expect(screen.getByRole("link", { name: "View Fixture Tactical" })).toHaveAttribute("href", "/products/tactical/");
  });
});

describe("certifications page", () => {
  it("states the identifiers, codes, contract vehicles, certifications and compliance", () => {
    renderPage(CertificationsPage, certificationsPageData, "/certifications/");
    expect(screen.getByText("FIXTURE12345")).toBeInTheDocument();
    expect(screen.getByText("1FX23")).toBeInTheDocument();
    const naics = screen.getByRole("region", { name: "Fixture NAICS" });
    expect(within(naics).getByRole("rowheader", { name: "315210" })).toBeInTheDocument();
    expect(within(naics).getByText("Primary")).toBeInTheDocument();
    expect(screen.getByRole("rowheader", { name: "8415" })).toBeInTheDocument();
    expect(screen.getByText("Fixture contract 47Q")).toBeInTheDocument();
    expect(screen.getByText("Fixture SDVOSB")).toBeInTheDocument();
    expect(screen.getByText("Fixture USA meaning.")).toBeInTheDocument();
  });
});

describe("capability statement", () => {
  it("shows competencies, differentiators, identifiers and contact, and opens the print dialog on request", async () => {
    const print = jest.fn();
    window.print = print;
    renderPage(CapabilityStatementPage, capabilityPageData, "/capability-statement/");
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("Fixture Capability Statement");
    expect(screen.getByText("Fixture competency")).toBeInTheDocument();
    expect(screen.getByText("Fixture differentiator")).toBeInTheDocument();
    expect(screen.getByText("FIXTURE12345")).toBeInTheDocument();
    expect(screen.getByText("315210 — Fixture apparel")).toBeInTheDocument();
    expect(screen.getByText(/Fixture Contracts Desk/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Print / Save as PDF" }));
    expect(print).toHaveBeenCalledTimes(1);
  });
});

describe("clients page", () => {
  it("lists the sectors and every agency from the agencies content", () => {
    renderPage(ClientsPage, clientsPageData, "/clients/");
    expect(screen.getByRole("heading", { name: "Fixture federal" })).toBeInTheDocument();
    for (const name of agencyNames) expect(screen.getByText(name)).toBeInTheDocument();
    expect(screen.getByText("Fixture disclaimer.")).toBeInTheDocument();
  });
});

describe("quote request page", () => {
  it("has the quote fields in its HTML, before any script runs, with the category the link names after", () => {
    const html = renderToString(
      <QuoteRequestPage
        {...({
          data: quotePageData,
          location: { pathname: "/contact/quote/", search: "", hash: "" },
        } as unknown as PageProps<Queries.QuoteRequestPageQuery>)}
      />,
    );
    expect(html).toContain("Fixture Request a Quote");
    for (const name of ["productCategory", "quantities", "needBy", "shipToState", "buyingMethod", "compliance"]) {
      expect(html).toContain(`name="${name}"`);
    }
    renderPage(QuoteRequestPage, quotePageData, "/contact/quote/", "?category=tactical");
    expect(screen.getByLabelText(/Inquiry Type/)).toHaveValue("quote");
    expect(screen.getByLabelText(/Product category/)).toHaveValue("tactical");
  });
});

describe("contact page", () => {
  it("opens the form as a quote request for the category the link names", () => {
    renderPage(ContactPage, contactPageData, "/contact/", "?type=quote&category=tactical");
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("Fixture Contact Us");
    expect(screen.getByRole("heading", { level: 2, name: "Send us a message" })).toBeInTheDocument();
    expect(screen.getByLabelText(/Inquiry Type/)).toHaveValue("quote");
    expect(screen.getByLabelText(/Product category/)).toHaveValue("tactical");
    expect(
      within(screen.getByRole("complementary", { name: "Or reach us directly" })).getByRole("link", {
        name: "desk@fixture.example",
      }),
    ).toBeInTheDocument();
  });
});
