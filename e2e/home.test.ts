import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { openPage, waitForHydration, WIDTHS } from "./support/browser";
import { useSiteAndBrowser } from "./support/suite";
import { readContent } from "./support/server";

interface Home {
  hero: { headline: string; text: string };
  solutions: { heading: string; cards: { title: string; description: string }[] };
  agencies: { heading: string };
  about: { heading: string; mission: string };
  contact: { heading: string };
}
interface Agencies {
  disclaimer: string;
  agencies: { name: string }[];
}

const home = readContent<Home>("home.json");
const agencyNames = readContent<Agencies>("agencies.json").agencies.map((agency) => agency.name);
const expectedPerView: Record<(typeof WIDTHS)[number], number> = { 375: 1, 800: 3, 1280: 4 };

const suite = useSiteAndBrowser();

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
      .map(({ name }) => name ?? "");
  });

const waitForSlider = (page: Page) =>
  waitForHydration(page).then(() => page.waitForSelector(".slick-initialized .slick-slide"));

/** After a move: wait until the first visible agency is `name` (the slide animates for 400 ms). */
const waitForFirst = (page: Page, name: string) =>
  page.waitForFunction(
    (expected) => {
      const viewport = document.querySelector(".slick-list")!.getBoundingClientRect();
      const first = [...document.querySelectorAll(".slick-slide")]
        .map((slide) => ({ rect: slide.getBoundingClientRect(), name: slide.querySelector("figcaption")?.textContent }))
        .filter(({ rect }) => Math.abs(rect.left - viewport.left) < 2);
      return first.some((slide) => slide.name === expected);
    },
    name,
    { timeout: 5000 },
  );

for (const width of WIDTHS) {
  describe(`home page at ${width}px`, () => {
    test("shows navigation, hero, solutions, agencies, about, contact and footer in order, from content", async () => {
      const { page, close } = await openPage(suite.browser, suite.site.origin, width);
      await page.goto(suite.site.url("/"));
      const order = await page.evaluate(() =>
        [...document.querySelectorAll("body header, body h1, main h2, body footer")]
          .filter((element) => !element.closest("main section header") || element.tagName === "H2")
          .map((element) =>
            /^H[1-6]$/.test(element.tagName) ? element.textContent?.trim() : element.tagName.toLowerCase(),
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
      assert.deepEqual(
        order.filter((item) => expected.includes(item ?? "")),
        expected,
      );
      const main = await page.locator("main").innerText();
      for (const text of [
        home.hero.text,
        home.about.mission,
        ...home.solutions.cards.flatMap((card) => [card.title, card.description]),
      ]) {
        assert.ok(main.includes(text), `main content shows "${text.slice(0, 40)}..."`);
      }
      assert.ok(main.includes(readContent<Agencies>("agencies.json").disclaimer));
      await close();
    });

    test(`the carousel shows exactly ${expectedPerView[width]} logo(s) and loops both ways`, async () => {
      const { page, close } = await openPage(suite.browser, suite.site.origin, width);
      await page.goto(suite.site.url("/"));
      await waitForSlider(page);
      const perView = expectedPerView[width];
      assert.deepEqual(await fullyVisibleAgencies(page), agencyNames.slice(0, perView));

      await page.getByRole("button", { name: "Next agencies" }).click();
      await waitForFirst(page, agencyNames[1]!);
      assert.deepEqual(await fullyVisibleAgencies(page), [...agencyNames, ...agencyNames].slice(1, 1 + perView));

      await page.getByRole("button", { name: "Previous agencies" }).click();
      await waitForFirst(page, agencyNames[0]!);
      await page.getByRole("button", { name: "Previous agencies" }).click();
      await waitForFirst(page, agencyNames.at(-1)!);
      assert.equal((await fullyVisibleAgencies(page))[0], agencyNames.at(-1));

      // And forwards past the last agency back to the first.
      await page.getByRole("button", { name: "Next agencies" }).click();
      await waitForFirst(page, agencyNames[0]!);
      assert.equal((await fullyVisibleAgencies(page)).length, perView);
      await close();
    });

    test("the carousel answers ← and → when it has focus, and hides clones and off-screen slides from focus", async () => {
      const { page, close } = await openPage(suite.browser, suite.site.origin, width);
      await page.goto(suite.site.url("/"));
      await waitForSlider(page);
      await page.getByRole("region", { name: "Government agencies we have supplied" }).focus();
      await page.keyboard.press("ArrowRight");
      await waitForFirst(page, agencyNames[1]!);
      await page.keyboard.press("ArrowLeft");
      await waitForFirst(page, agencyNames[0]!);
      await page.keyboard.press("ArrowLeft");
      await waitForFirst(page, agencyNames.at(-1)!);

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
      assert.equal(focusable, 0, "no element inside a hidden or cloned slide takes focus");
      await close();
    });
  });
}

describe("mobile menu", () => {
  test("is collapsed at 375px; its button opens and closes it, and so does Escape", async () => {
    const { page, close } = await openPage(suite.browser, suite.site.origin, 375);
    await page.goto(suite.site.url("/"));
    await waitForHydration(page);
    const button = page.getByRole("button", { name: "Menu" });
    const products = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Products" });
    assert.equal(await products.isVisible(), false);
    assert.equal(await button.getAttribute("aria-expanded"), "false");
    await button.click();
    assert.equal(await button.getAttribute("aria-expanded"), "true");
    assert.equal(await products.isVisible(), true);
    await button.click();
    assert.equal(await products.isVisible(), false);
    await button.click();
    await page.keyboard.press("Escape");
    assert.equal(await products.isVisible(), false);
    assert.equal(await button.getAttribute("aria-expanded"), "false");
    await close();
  });

  for (const width of [800, 1280]) {
    test(`shows the links without a menu button at ${width}px`, async () => {
      const { page, close } = await openPage(suite.browser, suite.site.origin, width);
      await page.goto(suite.site.url("/"));
      assert.equal(await page.getByRole("button", { name: "Menu" }).isVisible(), false);
      for (const name of ["Home", "Products", "Services", "About", "Contact", "Request Quote"]) {
        assert.equal(
          await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name }).isVisible(),
          true,
          name,
        );
      }
      await close();
    });
  }
});

test("every link of the home page leads to a page that is not the 404 page", async () => {
  const { page, close } = await openPage(suite.browser, suite.site.origin, 1280);
  await page.goto(suite.site.url("/"));
  const hrefs = await page.evaluate(() => [
    ...new Set([...document.querySelectorAll<HTMLAnchorElement>("a[href]")].map((link) => link.getAttribute("href")!)),
  ]);
  const internal = hrefs.filter((href) => href.startsWith("/"));
  assert.ok(internal.length >= 15, `found ${internal.length} internal links`);
  for (const href of internal) {
    const response = await page.goto(suite.site.url(href));
    assert.equal(response?.status(), 200, `${href} answers 200`);
    assert.equal(
      await page.getByText("The page you're looking for cannot be found.").count(),
      0,
      `${href} is not the 404 page`,
    );
  }
  await close();
});
