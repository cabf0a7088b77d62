import { createElement, type ComponentType, type ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import type { PreRenderHTMLArgs, RenderBodyArgs, ReplaceRendererArgs } from "gatsby";
import { onPreRenderHTML, onRenderBody, replaceRenderer } from "../gatsby-ssr";
import { MAIN_CONTENT_ID } from "../src/components/layout/SkipLink";
import { useNeedsBrowser } from "../src/components/browser/needs-browser";

// Gatsby's own component, so that the element below is the one a build passes, not a look-alike.
const { ServerSliceRenderer } = jest.requireActual<{ ServerSliceRenderer: ComponentType<{ sliceId: string }> }>(
  "gatsby/cache-dir/slice/server-slice-renderer",
);

/** The post-body components that Gatsby 5.16's static-entry.js hands to onPreRenderHTML on every built page. */
const gatsbyPostBodyComponents = (pathname: string): ReactNode[] => [
  <script
    key="script-loader"
    id="gatsby-script-loader"
    dangerouslySetInnerHTML={{ __html: `/*<![CDATA[*/window.pagePath=${JSON.stringify(pathname)};/*]]>*/` }}
  />,
  createElement(ServerSliceRenderer, { sliceId: "_gatsby-scripts" }),
];

/** public/_gatsby/slices/_gatsby-scripts-1.html as a build writes it (chunk map shortened). */
const scriptsSliceHtml = `
          <script
            id="gatsby-chunk-mapping"
          >
            window.___chunkMapping="{\\"app\\":[\\"/app-3.js\\"],\\"component---src-pages-index-tsx\\":[\\"/component---src-pages-index-tsx-4.js\\"]}";
          </script>
        <script>window.___webpackCompilationHash="ea208af693e0ade55fef";</script><script src="/webpack-runtime-1.js" async></script><script src="/framework-2.js" async></script><script src="/app-3.js" async></script>`;

const slicePlaceholder =
  '<slice-start id="_gatsby-scripts-1"></slice-start><slice-end id="_gatsby-scripts-1"></slice-end>';

/** What Gatsby does after rendering (utils/slices/stitching.js): the slice's HTML replaces its placeholder. */
const stitch = (html: string) =>
  html.replace(
    slicePlaceholder,
    `<!-- slice-start id="_gatsby-scripts-1" -->${scriptsSliceHtml}<!-- slice-end id="_gatsby-scripts-1" -->`,
  );

/** A component that works by script, as the carousel, the inquiry form and the print button do. */
const NeedsScript = () => {
  useNeedsBrowser("a control");
  return <button type="button">Works by script</button>;
};

/** The head components Gatsby and its plugins give every page (gatsby-plugin-image's, shortened). */
const gatsbyHeadComponents = (): ReactNode[] => [
  <style key="gatsby-image-style">{".gatsby-image-wrapper{position:relative}"}</style>,
  <script key="gatsby-image-style-script" type="module" dangerouslySetInnerHTML={{ __html: "void 0;" }} />,
  <link key="page-data" rel="preload" as="fetch" href="/page-data/about/page-data.json" crossOrigin="anonymous" />,
  <link key="app" rel="preload" as="script" href="/app-3.js" />,
  <link key="canonical" rel="canonical" href="https://example.test/about/" />,
  <script key="ld" type="application/ld+json" dangerouslySetInnerHTML={{ __html: "{}" }} />,
];

/**
 * Renders a page as a build does: replaceRenderer renders its body (a control that works by script when
 * `needsScript`), then onPreRenderHTML rewrites its head and post-body components.
 */
const renderPage = (pathname: string, components: ReactNode[], { needsScript = true } = {}) => {
  let head = gatsbyHeadComponents();
  let postBody = components;
  void replaceRenderer!(
    {
      pathname,
      bodyComponent: <main>{needsScript ? <NeedsScript /> : <p>Text and links only.</p>}</main>,
      replaceBodyHTMLString: () => undefined,
      setHeadComponents: () => undefined,
    } as unknown as ReplaceRendererArgs,
    { plugins: [] },
  );
  const args: PreRenderHTMLArgs = {
    getHeadComponents: () => head,
    replaceHeadComponents: (replacement) => {
      head = replacement;
    },
    getPreBodyComponents: () => [],
    replacePreBodyComponents: () => undefined,
    getPostBodyComponents: () => postBody,
    replacePostBodyComponents: (replacement) => {
      postBody = replacement;
    },
    pathname,
  };
  onPreRenderHTML!(args, { plugins: [] });
  return { head, postBody };
};

const runHook = (pathname: string, components: ReactNode[]): ReactNode[] => renderPage(pathname, components).postBody;

const render = (components: ReactNode[]) => renderToStaticMarkup(<>{components}</>);

const nodeEnv = process.env.NODE_ENV;
beforeEach(() => {
  process.env.NODE_ENV = "production";
});
afterEach(() => {
  process.env.NODE_ENV = nodeEnv;
  jest.useRealTimers();
  jest.restoreAllMocks();
  document.body.innerHTML = "";
});

describe("onRenderBody", () => {
  it("holds the first paint until the parser reaches the element the skip link leads to, <main>", () => {
    const head: ReactNode[] = [];
    const html: Record<string, unknown> = {};
    onRenderBody!(
      {
        setHeadComponents: (components: ReactNode[]) => head.push(...components),
        setHtmlAttributes: (attributes: Record<string, unknown>) => Object.assign(html, attributes),
      } as unknown as RenderBodyArgs,
      { plugins: [] },
    );
    expect(html).toEqual({ lang: "en" });
    expect(render(head)).toBe(`<link rel="expect" href="#${MAIN_CONTENT_ID}" blocking="render"/>`);
  });
});

describe("onPreRenderHTML", () => {
  it("puts Gatsby's scripts slice, placeholder intact for stitching, in an inert template followed by the loader", () => {
    const html = render(runHook("/", gatsbyPostBodyComponents("/")));
    expect(html.slice(0, html.lastIndexOf("<script>"))).toBe(
      '<script id="gatsby-script-loader">/*<![CDATA[*/window.pagePath="/";/*]]>*/</script>' +
        `<template id="gatsby-app-scripts">${slicePlaceholder}</template>`,
    );
    expect(html).toMatch(/<\/template><script>[^<]+<\/script>$/);
  });

  it("writes the same loader on every page", () => {
    const loaders = ["/", "/contact/", "/products/tactical/"].map(
      (pathname) =>
        /<\/template>(<script>.*?<\/script>)/.exec(render(runHook(pathname, gatsbyPostBodyComponents(pathname))))?.[1],
    );
    expect(loaders[0]).toBeDefined();
    expect(new Set(loaders).size).toBe(1);
  });

  it("leaves no app script for the browser to start while it parses the page", () => {
    document.body.innerHTML = stitch(render(runHook("/", gatsbyPostBodyComponents("/"))));
    // querySelectorAll does not look into a template's content, just as the parser does not run it.
    expect(document.querySelectorAll("script[src]")).toHaveLength(0);
    expect(document.querySelectorAll("script")).toHaveLength(2);
  });

  /** Puts the loader of a built page in the document and runs it, as the parser would. */
  const runLoader = () => {
    document.body.innerHTML = stitch(render(runHook("/", gatsbyPostBodyComponents("/"))));
    const loader = document.querySelector("template + script")!;
    // innerHTML leaves scripts unrun; a copy made with createElement runs when inserted, as the parser's would.
    const running = document.createElement("script");
    running.textContent = loader.textContent;
    loader.replaceWith(running);
  };
  const startedScripts = () =>
    [...document.querySelectorAll("script[src]")].map((script) => script.getAttribute("src"));
  const expectAppStarted = () => {
    expect(startedScripts()).toEqual(["/webpack-runtime-1.js", "/framework-2.js", "/app-3.js"]);
    expect(document.getElementById("gatsby-app-scripts")).toBeNull();
    const globals = window as unknown as { ___chunkMapping?: string; ___webpackCompilationHash?: string };
    expect(JSON.parse(globals.___chunkMapping!)).toHaveProperty("app", ["/app-3.js"]);
    expect(globals.___webpackCompilationHash).toBe("ea208af693e0ade55fef");
  };

  it("starts Gatsby's scripts, inline ones included, in order once the first paint is reported", () => {
    jest.useFakeTimers();
    const frames: FrameRequestCallback[] = [];
    jest.spyOn(window, "requestAnimationFrame").mockImplementation((callback) => frames.push(callback));
    const observers: PaintObserver[] = [];
    class PaintObserver {
      static readonly supportedEntryTypes = ["navigation", "paint", "resource"];
      options?: PerformanceObserverInit;
      disconnected = false;
      constructor(readonly callback: PerformanceObserverCallback) {
        observers.push(this);
      }
      observe(options: PerformanceObserverInit) {
        this.options = options;
      }
      disconnect() {
        this.disconnected = true;
      }
    }
    Object.defineProperty(window, "PerformanceObserver", { value: PaintObserver, configurable: true });
    try {
      runLoader();
      // A frame drawn is not yet a frame on screen: nothing starts until the browser reports the paint.
      frames.forEach((callback) => callback(0));
      jest.runAllTimers();
      expect(startedScripts()).toEqual([]);
      expect(observers).toHaveLength(1);
      expect(observers[0]!.options).toEqual({ type: "paint", buffered: true });

      const [observer] = observers;
      const report = () =>
        observer!.callback({} as PerformanceObserverEntryList, observer as unknown as PerformanceObserver);
      report();
      expect(observer!.disconnected).toBe(true);
      expect(startedScripts()).toEqual([]);
      jest.runAllTimers();
      expectAppStarted();
      // A report already queued when it disconnected must not start the app twice.
      report();
      jest.runAllTimers();
      expect(startedScripts()).toHaveLength(3);
    } finally {
      Reflect.deleteProperty(window, "PerformanceObserver");
    }
  });

  it("starts Gatsby's scripts after the next frame where the browser has no paint timing", () => {
    expect("PerformanceObserver" in window).toBe(false);
    jest.useFakeTimers();
    const frames: FrameRequestCallback[] = [];
    jest.spyOn(window, "requestAnimationFrame").mockImplementation((callback) => frames.push(callback));
    runLoader();
    jest.runAllTimers();
    expect(startedScripts()).toEqual([]);

    frames.forEach((callback) => callback(0));
    jest.runAllTimers();
    expectAppStarted();
  });

  it("fails the build, naming the page, when Gatsby no longer passes its scripts slice", () => {
    const withoutSlice = gatsbyPostBodyComponents("/contact/").slice(0, 1);
    expect(() => runHook("/contact/", withoutSlice)).toThrow(
      /no "_gatsby-scripts" slice among the post-body components of \/contact\/.*update onPreRenderHTML in gatsby-ssr\.tsx/,
    );
  });

  it("leaves gatsby develop's pages alone: it adds its scripts after this hook", () => {
    process.env.NODE_ENV = "development";
    const components = gatsbyPostBodyComponents("/").slice(0, 1);
    expect(runHook("/", components)).toBe(components);
  });

  it("leaves every script out of a page on which nothing declared that it needs one", () => {
    const { head, postBody } = renderPage("/about/", gatsbyPostBodyComponents("/about/"), { needsScript: false });
    document.body.innerHTML = stitch(render(postBody));
    expect(document.querySelectorAll("script, template")).toHaveLength(0);
    expect(render(head)).toBe(
      "<style>.gatsby-image-wrapper{position:relative}</style>" +
        '<link rel="canonical" href="https://example.test/about/"/>' +
        '<script type="application/ld+json">{}</script>',
    );
  });

  it("keeps the scripts, and every hint to them, of a page on which a component declared that it needs one", () => {
    const { head, postBody } = renderPage("/contact/", gatsbyPostBodyComponents("/contact/"));
    expect(head).toEqual(gatsbyHeadComponents());
    document.body.innerHTML = stitch(render(postBody));
    expect(document.getElementById("gatsby-app-scripts")).not.toBeNull();
  });

  it("fails the build, naming the page, when the page's body was not rendered by replaceRenderer", () => {
    const args = {
      getHeadComponents: () => [],
      replaceHeadComponents: () => undefined,
      getPostBodyComponents: () => gatsbyPostBodyComponents("/unrendered/"),
      replacePostBodyComponents: () => undefined,
      pathname: "/unrendered/",
    } as unknown as PreRenderHTMLArgs;
    expect(() => onPreRenderHTML!(args, { plugins: [] })).toThrow(/\/unrendered\/ was not rendered by replaceRenderer/);
  });
});
