import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { renderToString } from "react-dom/server";
import { NavBar } from "../src/components/layout/NavBar";
import { siteData } from "./fixtures/content";

const navigation = siteData.navigationJson!;

const renderNavBar = (currentPath = "/") =>
  render(<NavBar companyName="Fixture Supply" navigation={navigation} currentPath={currentPath} />);

/** The menu button: the summary of the header's disclosure, which the browser opens and closes itself. */
const menuButton = () => screen.getByText(navigation.menuLabel).closest("summary")!;
const disclosure = () => menuButton().closest("details")!;

/** The bar at "/" with its menu opened by a click, and the user who opened it, to go on. */
const renderWithMenuOpen = async () => {
  const user = userEvent.setup();
  renderNavBar();
  await user.click(menuButton());
  return user;
};

describe("NavBar", () => {
  it("links to every main destination and offers Request Quote", async () => {
    renderNavBar();
    await userEvent.click(menuButton());
    const nav = screen.getByRole("navigation", { name: "Primary" });
    const hrefs = within(nav)
      .getAllByRole("link")
      .map((link) => link.getAttribute("href"));
    expect(hrefs).toEqual(["/", "/products/", "/services/", "/about/", "/contact/", "/contact/quote/"]);
    expect(within(nav).getByRole("link", { name: "Request Quote" })).toBeInTheDocument();
  });

  it("keeps the section's link marked on the pages below it", async () => {
    renderNavBar("/products/tactical/");
    await userEvent.click(menuButton());
    expect(screen.getByRole("link", { name: "Products" })).toHaveAttribute("aria-current", "page");
    expect(screen.getByRole("link", { name: "Home" })).not.toHaveAttribute("aria-current");
  });

  it("marks the current page's link", async () => {
    renderNavBar("/about/");
    await userEvent.click(menuButton());
    expect(screen.getByRole("link", { name: "About" })).toHaveAttribute("aria-current", "page");
    expect(screen.getByRole("link", { name: "Home" })).not.toHaveAttribute("aria-current");
  });

  it("is a disclosure the browser toggles by itself, whose summary says what it controls", async () => {
    const user = userEvent.setup();
    renderNavBar();
    const button = menuButton();
    const nav = screen.getByRole("navigation", { hidden: true });
    // The open state lives in HTML (details[open]) and the list follows it by CSS, not by script.
    expect(button.parentElement?.tagName).toBe("DETAILS");
    expect(button).toHaveAttribute("aria-controls", nav.id);
    expect(button).not.toHaveAttribute("aria-expanded");
    expect(disclosure().open).toBe(false);
    expect(nav).not.toBeVisible();

    await user.click(button);
    expect(disclosure().open).toBe(true);
    expect(nav).toBeVisible();

    await user.click(button);
    expect(disclosure().open).toBe(false);
    expect(nav).not.toBeVisible();
  });

  it("closes on Escape and gives focus back to the menu button", async () => {
    const user = await renderWithMenuOpen();
    await user.tab();
    expect(screen.getByRole("link", { name: "Home" })).toHaveFocus();
    await user.keyboard("{Escape}");
    expect(disclosure().open).toBe(false);
    expect(menuButton()).toHaveFocus();
  });

  it("closes when the page changes under it (back and forward keep the same layout)", async () => {
    const user = userEvent.setup();
    const { rerender } = renderNavBar("/products/uniforms/");
    await user.click(menuButton());
    expect(disclosure().open).toBe(true);
    rerender(<NavBar companyName="Fixture Supply" navigation={navigation} currentPath="/products/tactical/" />);
    expect(disclosure().open).toBe(false);
  });

  it("leaves open a menu the visitor opened before the app started", () => {
    // The server's HTML, with the menu opened as a visitor's tap on the summary leaves it.
    const page = document.createElement("div");
    page.innerHTML = renderToString(
      <NavBar companyName="Fixture Supply" navigation={navigation} currentPath="/about/" />,
    );
    document.body.append(page);
    disclosure().open = true;
    render(<NavBar companyName="Fixture Supply" navigation={navigation} currentPath="/about/" />, {
      container: page,
      hydrate: true,
    });
    expect(disclosure().open).toBe(true);
  });

  it("closes when the visitor follows a link", async () => {
    const user = await renderWithMenuOpen();
    await user.click(screen.getByRole("link", { name: "Services" }));
    expect(disclosure().open).toBe(false);
  });

  it("closes on a click outside the menu, and stays open on a click inside it", async () => {
    const user = await renderWithMenuOpen();
    await user.click(screen.getByRole("navigation", { name: "Primary" }));
    expect(disclosure().open).toBe(true);
    await user.click(document.body);
    expect(disclosure().open).toBe(false);
  });
});
