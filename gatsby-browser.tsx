import { startTransition, type ReactElement } from "react";
import { createRoot, hydrateRoot, type Root } from "react-dom/client";
import type { GatsbyBrowser } from "gatsby";

export { wrapPageElement } from "./src/wrap-page-element";

type Renderer = ReturnType<NonNullable<GatsbyBrowser["replaceHydrateFunction"]>>;

const renderInTransition = (element: ReactElement, container: Element) => {
  let root: Root | undefined;
  startTransition(() => {
    // A built page arrives server-rendered and is hydrated. `gatsby develop` sends an empty root and
    // renders on the client, and so does Gatsby for its own loading indicator: hydrating nothing
    // would fail ("Hydration failed …"), so an empty container gets a fresh root, as Gatsby's
    // default renderer does.
    if (container.children.length > 0) {
      root = hydrateRoot(container, element);
    } else {
      root = createRoot(container);
      root.render(element);
    }
  });
  return () => root?.unmount();
};

/**
 * Renders inside a transition, which React renders in slices that yield to the browser every few
 * milliseconds, instead of one long task on a slow phone during which a tap or a keypress waits.
 * Gatsby's Renderer type still describes React 17's render(), hence the cast.
 */
export const replaceHydrateFunction: GatsbyBrowser["replaceHydrateFunction"] = () =>
  renderInTransition as unknown as Renderer;

/**
 * Gatsby waits for a promise from onClientEntry before it asks for the page and its data: its browser
 * runtime chains this API's returns (apiRunnerAsync, gatsbyjs/gatsby#1735), though GatsbyBrowser types
 * the return as void, hence no annotation with that type. Resolving it from a new task ends the task
 * that evaluated the app's modules before the page's data is requested, so the two are separate, shorter
 * tasks.
 */
export const onClientEntry = (): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, 0);
  });

/**
 * Marks the page as running: `<html data-hydrated>`. Gatsby calls this from an
 * effect of its root component, and React runs a tree's effects only after it
 * has committed that tree, the transition above included, so from here on a
 * click or a client-side navigation is handled by the app. The browser tests
 * wait for it.
 */
export const onInitialClientRender: GatsbyBrowser["onInitialClientRender"] = () => {
  document.documentElement.dataset.hydrated = "true";
};
