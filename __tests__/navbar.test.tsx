import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { NavBar } from "../src/components/layout/NavBar";
import { siteData } from "./fixtures/content";

const navigation = siteData.navigationJson!;

const renderNavBar = (currentPath = "/") =>
  render(<NavBar companyName="Fixture Supply" navigation={navigation} currentPath={currentPath} />);

describe("NavBar", () => {
  it("links to every main destination and offers Request Quote", async () => {
    renderNavBar();
    await userEvent.click(screen.getByRole("button", { name: "Open menu" }));
    const nav = screen.getByRole("navigation", { name: "Primary" });
    const hrefs = within(nav)
      .getAllByRole("link")
      .map((link) => link.getAttribute("href"));
    expect(hrefs).toEqual(["/", "/products/", "/services/", "/about/", "/contact/", "/contact/quote/"]);
    expect(within(nav).getByRole("link", { name: "Request Quote" })).toBeInTheDocument();
  });

  it("keeps the section's link marked on the pages below it", async () => {
    renderNavBar("/products/tactical/");
    await userEvent.click(screen.getByRole("button", { name: "Open menu" }));
    expect(screen.getByRole("link", { name: "Products" })).toHaveAttribute("aria-current", "page");
    expect(screen.getByRole("link", { name: "Home" })).not.toHaveAttribute("aria-current");
  });

  it("marks the current page's link", async () => {
    renderNavBar("/about/");
    await userEvent.click(screen.getByRole("button", { name: "Open menu" }));
    expect(screen.getByRole("link", { name: "About" })).toHaveAttribute("aria-current", "page");
    expect(screen.getByRole("link", { name: "Home" })).not.toHaveAttribute("aria-current");
  });

  it("toggles the menu with its button, which says whether it is open and what it controls", async () => {
    const user = userEvent.setup();
    renderNavBar();
    const button = screen.getByRole("button", { name: "Open menu" });
    const nav = screen.getByRole("navigation", { hidden: true });
    expect(button).toHaveAttribute("aria-expanded", "false");
    expect(button).toHaveAttribute("aria-controls", nav.id);
    expect(nav).not.toBeVisible();

    await user.click(button);
    expect(button).toHaveAttribute("aria-expanded", "true");
    expect(nav).toBeVisible();

    await user.click(button);
    expect(button).toHaveAttribute("aria-expanded", "false");
    expect(nav).not.toBeVisible();
  });

  it("closes on Escape and gives focus back to the menu button", async () => {
    const user = userEvent.setup();
    renderNavBar();
    const button = screen.getByRole("button", { name: "Open menu" });
    await user.click(button);
    await user.tab();
    expect(screen.getByRole("link", { name: "Home" })).toHaveFocus();
    await user.keyboard("{Escape}");
    expect(button).toHaveAttribute("aria-expanded", "false");
    expect(button).toHaveFocus();
  });

  it("closes when the page changes under it (back and forward keep the same layout)", async () => {
    const user = userEvent.setup();
    const { rerender } = renderNavBar("/products/uniforms/");
    const button = screen.getByRole("button", { name: "Open menu" });
    await user.click(button);
    expect(button).toHaveAttribute("aria-expanded", "true");
    rerender(<NavBar companyName="Fixture Supply" navigation={navigation} currentPath="/products/tactical/" />);
    expect(button).toHaveAttribute("aria-expanded", "false");
  });

  it("closes when the visitor follows a link", async () => {
    const user = userEvent.setup();
    renderNavBar();
    const button = screen.getByRole("button", { name: "Open menu" });
    await user.click(button);
    await user.click(screen.getByRole("link", { name: "Services" }));
    expect(button).toHaveAttribute("aria-expanded", "false");
  });
});
