import { useState, type ReactElement } from "react";
import { renderToString } from "react-dom/server";
import { waitFor } from "@testing-library/react";
import { replaceHydrateFunction } from "../gatsby-browser";

// Rendering here runs outside act(), as in the browser: React schedules it on its own.
const actEnvironment = (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT;
beforeAll(() => Object.assign(globalThis, { IS_REACT_ACT_ENVIRONMENT: false }));
afterAll(() => Object.assign(globalThis, { IS_REACT_ACT_ENVIRONMENT: actEnvironment }));

const pluginArgs = { getResourceURLsForPathname: () => [] };
const render = replaceHydrateFunction!(pluginArgs, { plugins: [] }) as unknown as (
  element: ReactElement,
  container: Element,
) => () => void;

const Counter = ({ label }: { label: string }) => {
  const [clicks, setClicks] = useState(0);
  return (
    <button type="button" onClick={() => setClicks((count) => count + 1)}>
      {label} {clicks}
    </button>
  );
};

const mount = (html: string) => {
  const container = document.createElement("div");
  container.innerHTML = html;
  document.body.append(container);
  return container;
};

let consoleError: jest.SpyInstance;
beforeEach(() => {
  consoleError = jest.spyOn(console, "error").mockImplementation(() => undefined);
});
afterEach(() => consoleError.mockRestore());

it("renders into the empty root that gatsby develop sends, with no hydration error", async () => {
  const container = mount("");
  const unmount = render(<Counter label="Develop" />, container);

  await waitFor(() => expect(container).toHaveTextContent("Develop 0"));
  container.querySelector("button")!.click();
  await waitFor(() => expect(container).toHaveTextContent("Develop 1"));
  expect(consoleError).not.toHaveBeenCalled();

  unmount();
  await waitFor(() => expect(container).toBeEmptyDOMElement());
});

it("hydrates a server-rendered root instead of rendering it again", async () => {
  const container = mount(renderToString(<Counter label="Built" />));
  const button = container.querySelector("button");
  render(<Counter label="Built" />, container);

  await waitFor(() => {
    button!.click();
    expect(container).toHaveTextContent("Built 1");
  });
  // Hydration keeps the server's elements; a fresh render would have replaced them.
  expect(container.querySelector("button")).toBe(button);
  expect(consoleError).not.toHaveBeenCalled();
});
