import { WIDTHS } from "../testing/browser";
import { atWidth, expect, test } from "./support/fixtures";
import { startHtmlInPartsRelay } from "./support/html-in-parts";

/** The gate: cumulative layout shift while the home page loads must stay at or below this. */
const MAX_CLS = 0.01;

// The home page, and the quote page opened from a product page: the form's category is chosen after hydration.
const pages = ["/", "/contact/quote/?category=tactical"];

// Three fresh-clone CI runs (2026-11-22 and 2026-11-24) each measured one shift at 800 px once, then 0 on
// a retry: 0.0624 on / (what moved was not kept), the hero's text block on / (0.0160, from y 223 to 190) and
// the header's nav on the quote page (0.0140). The last two match first paints of a page whose HTML had not all
// been parsed: the hero centred its text in a min-height, so the text moved up as its last lines arrived, and
// the header right-aligned its links, so they moved left as the rest arrived. The page's HTML sent in two
// parts reproduced the hero's shift to the pixel; the relay below measured it at 375 and 1280 px (0.1668
// and 0.0585) and the header's (its nav at 1280 px on the quote page, the menu button at 375 px on /). The hero
// now sits at a fixed distance from its top and the browser paints nothing before <main> (gatsby-ssr.tsx),
// so a shift fails the test, with no retry.

// Each page is loaded twice: from the server as it is, and through a relay that sends its HTML in pieces,
// as a slow connection does, so that the browser paints it while the rest is still arriving.
let relay: Awaited<ReturnType<typeof startHtmlInPartsRelay>> | undefined;
test.afterAll(async () => {
  await relay?.close();
  relay = undefined;
});

const cases = (["at once", "in parts"] as const).flatMap((arrival) =>
  pages.flatMap((pathname) => WIDTHS.map((width) => ({ arrival, pathname, width }))),
);

for (const { arrival, pathname, width } of cases)
  test.describe(() => {
    test.use(atWidth(width));

    test(`${pathname} loads without layout shift at ${width}px, its HTML arriving ${arrival}`, async ({
      page,
      baseURL,
    }) => {
      await page.addInitScript(() => {
        const record = window as unknown as { __cls: number; __shifts: string[] };
        record.__cls = 0;
        record.__shifts = [];
        type Shift = PerformanceEntry & {
          value: number;
          hadRecentInput: boolean;
          sources?: { node?: Node | null; previousRect: DOMRectReadOnly; currentRect: DOMRectReadOnly }[];
        };
        const describe = (node: Node | null | undefined) =>
          node instanceof Element
            ? `${node.tagName.toLowerCase()}${node.id ? `#${node.id}` : ""}${node.className && typeof node.className === "string" ? `.${node.className.split(" ").slice(0, 2).join(".")}` : ""}`
            : String(node?.nodeName);
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries() as Shift[]) {
            if (entry.hadRecentInput) continue;
            record.__cls += entry.value;
            // What moved, so that a failure says where to look.
            for (const source of entry.sources ?? [])
              record.__shifts.push(
                `${entry.value.toFixed(4)} at ${Math.round(entry.startTime)} ms: ${describe(source.node)} ` +
                  `${JSON.stringify(source.previousRect)} -> ${JSON.stringify(source.currentRect)}`,
              );
          }
        }).observe({ type: "layout-shift", buffered: true });
      });
      if (arrival === "in parts") relay ??= await startHtmlInPartsRelay(baseURL!);
      await page.goto(arrival === "in parts" ? `${relay!.url}${pathname}` : pathname, { waitUntil: "networkidle" });
      // The slider's code loads as the carousel nears the viewport: brought there, the server's track
      // gives way to react-slick inside the measurement, so that swap is measured too.
      if (pathname === "/") {
        await page.getByRole("region", { name: "Government agencies we have supplied" }).scrollIntoViewIfNeeded();
        await expect(page.locator(".slick-initialized")).toBeVisible();
      }
      // The measurement window, not a wait for a state: whatever shifts in the second after loading counts.
      await page.waitForTimeout(1000);
      const { cls, shifts } = await page.evaluate(() => {
        const record = window as unknown as { __cls: number; __shifts: string[] };
        return { cls: record.__cls, shifts: record.__shifts };
      });
      console.log(
        `CLS of ${pathname} at ${width}px: ${cls.toFixed(4)}${shifts.length ? `\n  ${shifts.join("\n  ")}` : ""}`,
      );
      expect(cls, `CLS ${cls.toFixed(4)} is above ${MAX_CLS}: ${shifts.join("; ")}`).toBeLessThanOrEqual(MAX_CLS);
    });
  });
