import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { renderToString } from "react-dom/server";
import { NavBar } from "../src/components/layout/NavBar";
import { siteData } from "./fixtures/content";

const navigation = siteData.navigationJson!;

const navBar = (currentPath: string) => (
  <NavBar companyName="Fixture Supply" navigation={navigation} currentPath={currentPath} />
);
const renderNavBar = (currentPath = "/") => render(navBar(currentPath));

/** The menu button the app renders: a real button, named by its label. */
const menuButton = () => screen.getByRole("button", { name: navigation.menuLabel });
/** The menu's list, shown or not. */
const menu = () => document.querySelector("header nav")!;

/** The bar at "/" with its menu opened by a click, and the user who opened it, to go on. */
const renderWithMenuOpen = async () => {
  const user = userEvent.setup();
  renderNavBar();
  await user.click(menuButton());
  return user;
};

/** The server's HTML of the bar in the document, as a page arrives before its app has started. */
const serverHtml = (currentPath: string) => {
  const page = document.createElement("div");
  page.innerHTML = renderToString(navBar(currentPath));
  document.body.append(page);
  return page;
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

  it("holds the skip link first, inside the banner landmark", () => {
    renderNavBar();
    const banner = screen.getByRole("banner");
    const skip = within(banner).getByRole("link", { name: navigation.skipLinkLabel });
    expect(skip).toHaveAttribute("href", "#main-content");
    expect(banner.querySelector("a")).toBe(skip);
  });

  it("serves a disclosure the browser toggles by itself, whose summary says what it controls", () => {
    // The server's HTML, as a page without script keeps it: the open state lives in HTML (details[open])
    // and the list follows it by CSS.
    const page = serverHtml("/");
    const summary = page.querySelector("summary")!;
    const nav = page.querySelector("nav")!;
    expect(summary.parentElement?.tagName).toBe("DETAILS");
    expect(summary).toHaveAttribute("aria-controls", nav.id);
    expect(nav).not.toBeVisible();
    summary.click();
    expect(summary.closest("details")!.open).toBe(true);
    expect(nav).toBeVisible();
    summary.click();
    expect(nav).not.toBeVisible();
    page.remove();
  });

  it("is a real button where the app runs, saying what it controls and whether it is open", async () => {
    const user = userEvent.setup();
    renderNavBar();
    const button = menuButton();
    expect(button.tagName).toBe("BUTTON");
    expect(button).toHaveAttribute("type", "button");
    expect(button).toHaveAttribute("aria-controls", menu().id);
    expect(button).toHaveAttribute("aria-expanded", "false");
    expect(document.querySelector("header details")).toBeNull();
    expect(menu()).not.toBeVisible();

    await user.click(button);
    expect(button).toHaveAttribute("aria-expanded", "true");
    expect(menu()).toBeVisible();

    await user.click(button);
    expect(button).toHaveAttribute("aria-expanded", "false");
    expect(menu()).not.toBeVisible();
  });

  it("closes on Escape and gives focus back to the menu button", async () => {
    const user = await renderWithMenuOpen();
    await user.tab();
    expect(screen.getByRole("link", { name: "Home" })).toHaveFocus();
    await user.keyboard("{Escape}");
    expect(menuButton()).toHaveAttribute("aria-expanded", "false");
    expect(menuButton()).toHaveFocus();
  });

  it("closes when the page changes under it (back and forward keep the same layout)", async () => {
    const user = userEvent.setup();
    const { rerender } = renderNavBar("/products/uniforms/");
    await user.click(menuButton());
    expect(menuButton()).toHaveAttribute("aria-expanded", "true");
    rerender(navBar("/products/tactical/"));
    expect(menuButton()).toHaveAttribute("aria-expanded", "false");
  });

  // That the button also takes the summary's focus is tested in a browser (e2e/menu.test.ts): jsdom's summary takes none.
  it("takes over a menu the visitor opened before the app started, open", () => {
    const page = serverHtml("/about/");
    page.querySelector("summary")!.click();
    render(navBar("/about/"), { container: page, hydrate: true });
    expect(page.querySelector("details")).toBeNull();
    expect(menuButton()).toHaveAttribute("aria-expanded", "true");
    expect(menu()).toBeVisible();
  });

  it("takes over a closed menu closed, leaving focus where it was", () => {
    const page = serverHtml("/about/");
    render(navBar("/about/"), { container: page, hydrate: true });
    expect(menuButton()).toHaveAttribute("aria-expanded", "false");
    expect(menuButton()).not.toHaveFocus();
    expect(menu()).not.toBeVisible();
  });

  it("closes when the visitor follows a link", async () => {
    const user = await renderWithMenuOpen();
    await user.click(screen.getByRole("link", { name: "Services" }));
    expect(menuButton()).toHaveAttribute("aria-expanded", "false");
  });

  it("closes on a click outside the menu, and stays open on a click inside it", async () => {
    const user = await renderWithMenuOpen();
    await user.click(screen.getByRole("navigation", { name: "Primary" }));
    expect(menuButton()).toHaveAttribute("aria-expanded", "true");
    await user.click(document.body);
    expect(menuButton()).toHaveAttribute("aria-expanded", "false");
  });
});
