import { useEffect, useRef, useState, type ReactElement } from "react";
import { renderToString } from "react-dom/server";
import { waitFor } from "@testing-library/react";
import { onInitialClientRender, replaceHydrateFunction } from "../gatsby-browser";

// Hydration here runs outside act(), as in the browser: React schedules it on its own.
const actEnvironment = (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT;
beforeAll(() => Object.assign(globalThis, { IS_REACT_ACT_ENVIRONMENT: false }));
afterAll(() => Object.assign(globalThis, { IS_REACT_ACT_ENVIRONMENT: actEnvironment }));

/** The arguments Gatsby passes every browser API; these hooks read none of them. */
const pluginArgs = { getResourceURLsForPathname: () => [] };

/** Like the App of Gatsby's production-app.js: its root calls onInitialClientRender from an effect, once. */
const App = () => {
  const ran = useRef(false);
  useEffect(() => {
    if (ran.current) return;
    ran.current = true;
    onInitialClientRender!(pluginArgs, { plugins: [] });
  }, []);
  const [clicks, setClicks] = useState(0);
  return (
    <button type="button" onClick={() => setClicks((count) => count + 1)}>
      Clicked {clicks}
    </button>
  );
};

it("marks <html data-hydrated> once React has committed the hydrated page, not before", async () => {
  const container = document.createElement("div");
  container.id = "___gatsby";
  container.innerHTML = renderToString(<App />);
  document.body.append(container);
  const hydrate = replaceHydrateFunction!(pluginArgs, { plugins: [] }) as unknown as (
    element: ReactElement,
    container: Element,
  ) => void;

  hydrate(<App />, container);
  expect(document.documentElement).not.toHaveAttribute("data-hydrated");

  await waitFor(() => expect(document.documentElement).toHaveAttribute("data-hydrated", "true"));
  container.querySelector("button")!.click();
  await waitFor(() => expect(container).toHaveTextContent("Clicked 1"));
});
