import { render, screen } from "@testing-library/react";
import { PageErrorBoundary } from "../src/components/layout/PageErrorBoundary";
import { wrapPageElement } from "../src/wrap-page-element";

const Broken = (): never => {
  throw new Error("The product list could not be read");
};

describe("page error boundary", () => {
  beforeEach(() => {
    jest.spyOn(console, "error").mockImplementation(() => undefined);
  });

  it("shows the Unexpected Application Error! screen with the error's message", () => {
    render(
      <PageErrorBoundary>
        <Broken />
      </PageErrorBoundary>,
    );
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("Unexpected Application Error!");
    expect(screen.getByText("The product list could not be read")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Back to the start" })).toHaveAttribute("href", "/");
  });

  it("renders the page untouched when nothing fails", () => {
    render(
      <PageErrorBoundary>
        <p>Healthy page</p>
      </PageErrorBoundary>,
    );
    expect(screen.getByText("Healthy page")).toBeInTheDocument();
    expect(screen.queryByText("Unexpected Application Error!")).not.toBeInTheDocument();
  });

  it("is what gatsby-browser and gatsby-ssr wrap every page in", () => {
    const wrapped = wrapPageElement({ element: <Broken /> });
    render(<>{wrapped}</>);
    expect(screen.getByText("Unexpected Application Error!")).toBeInTheDocument();
  });
});
