import { act } from "react";
import { hydrateRoot } from "react-dom/client";
import { renderToString } from "react-dom/server";
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { PRINT_BUTTON_SCRIPT, PrintButton } from "../src/components/certifications/PrintButton";

const label = "Print / Save as PDF";

/** Runs the button's inline script as a browser does while parsing: `document.currentScript` is that <script>. */
const runInlineScript = (script: Element | null) => {
  const documentAsParsing = {
    currentScript: script,
    documentElement: document.documentElement,
  };
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the page's own script text, run as the browser would
  const run = new Function("document", "window", PRINT_BUTTON_SCRIPT) as (doc: object, win: Window) => void;
  run(documentAsParsing, window);
};

/** The page as served: the server's HTML in the document, no app yet. */
const served = () => {
  const container = document.createElement("div");
  container.innerHTML = renderToString(<PrintButton label={label} />);
  document.body.append(container);
  return container;
};

const ready = () => document.documentElement.hasAttribute("data-print-ready");

let print: jest.Mock;
beforeEach(() => {
  print = jest.fn();
  window.print = print;
});
afterEach(() => {
  document.body.innerHTML = "";
  document.documentElement.removeAttribute("data-print-ready");
});

it("is served with its script right after it, which makes a click print and shows it", async () => {
  const container = served();
  const script = container.querySelector("script");
  expect([container.querySelector("button")?.nextElementSibling, script?.textContent]).toEqual([
    script,
    PRINT_BUTTON_SCRIPT,
  ]);
  expect(ready()).toBe(false);

  runInlineScript(script);
  expect(ready()).toBe(true);
  await userEvent.click(screen.getByRole("button", { name: label }));
  expect(print).toHaveBeenCalledTimes(1);
});

it("prints once a click where its script ran before the app hydrated the page, which finds it as served", async () => {
  const container = served();
  runInlineScript(container.querySelector("script"));
  // A hydration mismatch would be a console error, which fails the test (jest.setup.ts).
  await act(async () => {
    hydrateRoot(container, <PrintButton label={label} />);
    // Hydration and its effects finish within act, on the next task.
    await new Promise((resolve) => setTimeout(resolve, 0));
  });
  await userEvent.click(screen.getByRole("button", { name: label }));
  expect(print).toHaveBeenCalledTimes(1);
});

it("prints where the app renders it, as its inserted script never runs", async () => {
  const { unmount } = render(<PrintButton label={label} />);
  const button = screen.getByRole("button", { name: label });
  expect(ready()).toBe(true);
  await userEvent.click(button);
  expect(print).toHaveBeenCalledTimes(1);
  unmount();
  expect(button.onclick).toBeNull();
});
