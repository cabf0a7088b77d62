import "@testing-library/jest-dom";
import { TextEncoder } from "node:util";
import { useStaticQuery } from "gatsby";
import { installMatchMedia, setReducedMotion, setViewportWidth } from "./__tests__/support/media";
import { siteData } from "./__tests__/fixtures/content";

// react-dom/server needs it; jsdom does not provide it.
Object.assign(globalThis, { TextEncoder });
// Suites of server code (the inquiry function) run in node, where there is no window to set up.
const hasWindow = typeof window !== "undefined";
// react-slick's enquire.js asks for matchMedia as soon as it is imported.
if (hasWindow) installMatchMedia();

beforeEach(() => {
  if (hasWindow) {
    installMatchMedia();
    setViewportWidth(375);
    setReducedMotion(false);
  }
  jest.mocked(useStaticQuery).mockReturnValue(siteData);
});
