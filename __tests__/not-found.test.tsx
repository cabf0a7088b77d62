import { render, screen } from "@testing-library/react";
import type { PageProps } from "gatsby";
import NotFoundPage from "../src/pages/404";

const data: Queries.NotFoundPageQuery = {
  systemPagesJson: {
    notFound: {
      seoTitle: "Page not found",
      heading: "404",
      text: "The page you're looking for cannot be found.",
      homeLabel: "Return to Home",
      consoleMessage: "404 Not Found: no page exists at {path}",
    },
  },
};

const props = (pathname: string) =>
  ({ data, location: { pathname, search: "", hash: "" } }) as unknown as PageProps<Queries.NotFoundPageQuery>;

describe("404 page", () => {
  it("says the page cannot be found and links home", () => {
    const consoleLog = jest.spyOn(console, "log").mockImplementation(() => undefined);
    render(<NotFoundPage {...props("/no-such-page/")} />);
    expect(consoleLog).toHaveBeenCalledWith("404 Not Found: no page exists at /no-such-page/");
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("404");
    expect(screen.getByText("The page you're looking for cannot be found.")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Return to Home" })).toHaveAttribute("href", "/");
  });

  it("writes the missing path to the console log, not as an error", () => {
    const consoleLog = jest.spyOn(console, "log").mockImplementation(() => undefined);
    const consoleError = jest.spyOn(console, "error");
    render(<NotFoundPage {...props("/products/jetpacks/")} />);
    expect(consoleLog).toHaveBeenCalledWith("404 Not Found: no page exists at /products/jetpacks/");
    expect(consoleError).not.toHaveBeenCalled();
  });
});
