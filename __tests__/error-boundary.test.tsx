import { render, screen } from "@testing-library/react";
import { PageErrorBoundary } from "../src/components/layout/PageErrorBoundary";
import { wrapPageElement } from "../src/wrap-page-element";

const Broken = (): never => {
  throw new Error(brokenMessage);
};

const brokenMessage = "The product list could not be read";

describe("page error boundary", () => {
  // React reports a render error on the console, and so does the boundary (componentDidCatch).
  let consoleError: jest.SpyInstance;
  beforeEach(() => {
    consoleError = jest.spyOn(console, "error").mockImplementation(() => undefined);
  });
  const expectErrorReported = () =>
    expect(consoleError).toHaveBeenCalledWith(
      "Page failed to render:",
      expect.objectContaining({ message: brokenMessage }),
      expect.stringContaining("Broken"),
    );

  it("shows the Unexpected Application Error! screen with the error's message", () => {
    render(
      <PageErrorBoundary>
        <Broken />
      </PageErrorBoundary>,
    );
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("Unexpected Application Error!");
    expect(screen.getByText(brokenMessage)).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Back to the start" })).toHaveAttribute("href", "/");
    expectErrorReported();
  });

  it("renders the page untouched when nothing fails", () => {
    render(
      <PageErrorBoundary>
        <p>Healthy page</p>
      </PageErrorBoundary>,
    );
    expect(screen.getByText("Healthy page")).toBeInTheDocument();
    expect(screen.queryByText("Unexpected Application Error!")).not.toBeInTheDocument();
    expect(consoleError).not.toHaveBeenCalled();
  });

  it("is what gatsby-browser and gatsby-ssr wrap every page in", () => {
    const wrapped = wrapPageElement({ element: <Broken /> });
    render(<>{wrapped}</>);
    expect(screen.getByText("Unexpected Application Error!")).toBeInTheDocument();
    expectErrorReported();
  });
});
