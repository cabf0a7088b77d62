import type { Page } from "@playwright/test";
import { WIDTHS } from "../testing/browser";
import { atWidth, expect, expectHydrated, test } from "./support/fixtures";
import { readContent } from "../testing/site-server";

const home = readContent("home.json");
const agencyNames = readContent("agencies.json").agencies.map((agency) => agency.name);
const expectedPerView: Record<(typeof WIDTHS)[number], number> = { 375: 1, 800: 3, 1280: 4 };

/** Names of the agency tiles wholly inside the carousel's viewport, left to right. */
const fullyVisibleAgencies = (page: Page) =>
  page.evaluate(() => {
    const viewport = document.querySelector(".slick-list")!.getBoundingClientRect();
    return [...document.querySelectorAll<HTMLElement>(".slick-slide")]
      .map((slide) => ({
        rect: slide.querySelector("figure")!.getBoundingClientRect(),
        name: slide.querySelector("figcaption")!.textContent,
      }))
      .filter(({ rect }) => rect.width > 0 && rect.left >= viewport.left - 1 && rect.right <= viewport.right + 1)
      .sort((a, b) => a.rect.left - b.rect.left)
      .map(({ name }) => name);
  });

/** The slider's code loads as the carousel nears the viewport, so a visitor (and the test) scrolls to it. */
const expectSlider = async (page: Page) => {
  await expectHydrated(page);
  await page.getByRole("region", { name: "Government agencies we have supplied" }).scrollIntoViewIfNeeded();
  await expect(page.locator(".slick-initialized .slick-slide").first()).toBeVisible();
};

/** The names of the slides whose left edge is at the carousel's left edge. */
const slidesAtLeftEdge = (page: Page) =>
  page.evaluate(() => {
    const viewport = document.querySelector(".slick-list")!.getBoundingClientRect();
    return [...document.querySelectorAll(".slick-slide")]
      .map((slide) => ({ rect: slide.getBoundingClientRect(), name: slide.querySelector("figcaption")?.textContent }))
      .filter(({ rect }) => Math.abs(rect.left - viewport.left) < 2)
      .map(({ name }) => name);
  });

/** After a move: wait until the first visible agency is `name` (the slide animates for 400 ms). */
const expectFirst = (page: Page, name: string) => expect.poll(() => slidesAtLeftEdge(page)).toContain(name);

for (const width of WIDTHS) {
  test.describe(`home page at ${width}px`, () => {
    test.use(atWidth(width));

    test("shows navigation, hero, solutions, agencies, about, contact and footer in order, from content", async ({
      page,
    }) => {
      await page.goto("/");
      const order = await page.evaluate(() =>
        [...document.querySelectorAll("body header, body h1, main h2, body footer")]
          .filter((element) => !element.closest("main section header") || element.tagName === "H2")
          .map((element) =>
            /^H[1-6]$/.test(element.tagName) ? element.textContent.trim() : element.tagName.toLowerCase(),
          ),
      );
      const expected = [
        "header",
        home.hero.headline,
        home.solutions.heading,
        home.agencies.heading,
        home.about.heading,
        home.contact.heading,
        "footer",
      ];
      expect(order.filter((item) => expected.includes(item))).toEqual(expected);
      const main = page.locator("main");
      for (const text of [
        home.hero.text,
        home.about.mission,
        ...home.solutions.cards.flatMap((card) => [card.title, card.description]),
      ]) {
        await expect(main, `main content shows "${text.slice(0, 40)}..."`).toContainText(text);
      }
      await expect(main).toContainText(readContent("agencies.json").disclaimer);
    });

    test(`the carousel shows exactly ${expectedPerView[width]} logo(s) and loops both ways`, async ({ page }) => {
      await page.goto("/");
      await expectSlider(page);
      const perView = expectedPerView[width];
      expect(await fullyVisibleAgencies(page)).toEqual(agencyNames.slice(0, perView));

      await page.getByRole("button", { name: "Next agencies" }).click();
      await expectFirst(page, agencyNames[1]!);
      expect(await fullyVisibleAgencies(page)).toEqual([...agencyNames, ...agencyNames].slice(1, 1 + perView));

      await page.getByRole("button", { name: "Previous agencies" }).click();
      await expectFirst(page, agencyNames[0]!);
      await page.getByRole("button", { name: "Previous agencies" }).click();
      await expectFirst(page, agencyNames.at(-1)!);
      expect((await fullyVisibleAgencies(page))[0]).toBe(agencyNames.at(-1));

      // And forwards past the last agency back to the first.
      await page.getByRole("button", { name: "Next agencies" }).click();
      await expectFirst(page, agencyNames[0]!);
      expect(await fullyVisibleAgencies(page)).toHaveLength(perView);
    });

    test("the carousel answers ← and → on its buttons, and hides clones and off-screen slides from focus", async ({
      page,
    }) => {
      await page.goto("/");
      await expectSlider(page);
      await page.getByRole("button", { name: "Next agencies" }).focus();
      await page.keyboard.press("ArrowRight");
      await expectFirst(page, agencyNames[1]!);
      await page.keyboard.press("ArrowLeft");
      await expectFirst(page, agencyNames[0]!);
      await page.keyboard.press("ArrowLeft");
      await expectFirst(page, agencyNames.at(-1)!);

      const focusable = await page.evaluate(() => {
        const hidden = [
          ...document.querySelectorAll<HTMLElement>(".slick-slide.slick-cloned, .slick-slide[aria-hidden='true']"),
        ];
        const candidates = hidden.flatMap((slide) => [slide, ...slide.querySelectorAll<HTMLElement>("*")]);
        return candidates.filter((element) => {
          element.focus();
          return document.activeElement === element;
        }).length;
      });
      expect(focusable, "no element inside a hidden or cloned slide takes focus").toBe(0);
    });
  });
}

test.describe("mobile menu", () => {
  test.describe(() => {
    test.use(atWidth(375));

    test("is collapsed at 375px; its button opens and closes it, and so does Escape", async ({ page }) => {
      await page.goto("/");
      await expectHydrated(page);
      // Where the app runs, a real button that says whether the menu is open.
      const button = page.getByRole("button", { name: "Menu" });
      const products = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Products" });
      await expect(products).toBeHidden();
      await expect(button).toHaveAttribute("aria-expanded", "false");
      await button.click();
      await expect(button).toHaveAttribute("aria-expanded", "true");
      await expect(products).toBeVisible();
      await button.click();
      await expect(products).toBeHidden();
      await button.click();
      await page.keyboard.press("Escape");
      await expect(products).toBeHidden();
      await expect(button).toHaveAttribute("aria-expanded", "false");
      await expect(button).toBeFocused();
    });
  });

  for (const width of [800, 1280]) {
    test.describe(() => {
      test.use(atWidth(width));

      test(`shows the links without a menu button at ${width}px`, async ({ page }) => {
        await page.goto("/");
        await expect(page.locator("header summary, header button", { hasText: "Menu" })).toBeHidden();
        for (const name of ["Home", "Products", "Services", "About", "Contact", "Request Quote"]) {
          await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name }), name).toBeVisible();
        }
      });
    });
  }
});

test.describe(() => {
  test.use(atWidth(1280));

  test("every link of the home page leads to a page that is not the 404 page", async ({ page }) => {
    await page.goto("/");
    const hrefs = await page.evaluate(() => [
      ...new Set(
        [...document.querySelectorAll<HTMLAnchorElement>("a[href]")].map((link) => link.getAttribute("href")!),
      ),
    ]);
    const internal = hrefs.filter((href) => href.startsWith("/"));
    expect(internal.length, `found ${internal.length} internal links`).toBeGreaterThanOrEqual(15);
    for (const href of internal) {
      const response = await page.goto(href);
      expect(response?.status(), `${href} answers 200`).toBe(200);
      await expect(
        page.getByText("The page you're looking for cannot be found."),
        `${href} is not the 404 page`,
      ).toHaveCount(0);
    }
  });
});

test.describe(() => {
  test.use(atWidth(375));

  test("every script of the home page, the ones it loads as the visitor scrolls included, asks V8 to compile it eagerly", async ({
    page,
  }) => {
    const scripts = new Map<string, string>();
    page.on("response", async (response) => {
      if (response.request().resourceType() === "script")
        scripts.set(new URL(response.url()).pathname, await response.text());
    });
    await page.goto("/");
    await expectSlider(page);
    await page.locator("#contact form").scrollIntoViewIfNeeded();
    await expect.poll(() => [...scripts.keys()].some((path) => path.startsWith("/inquiry-submission-"))).toBe(true);
    await expect.poll(() => [...scripts.keys()].some((path) => path.startsWith("/agency-slider-"))).toBe(true);
    expect(scripts.size, [...scripts.keys()].join(" ")).toBeGreaterThanOrEqual(6);
    for (const [path, text] of scripts) {
      expect(text.split("\n", 1)[0], path).toBe("//# allFunctionsCalledOnLoad");
    }
  });
});
