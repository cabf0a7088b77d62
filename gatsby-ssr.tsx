import type { GatsbySSR } from "gatsby";
import { isValidElement, type ReactNode } from "react";
import { renderToString } from "react-dom/server";
import createCache from "@emotion/cache";
import { CacheProvider } from "@emotion/react";
import createEmotionServer from "@emotion/server/create-instance";

import { MAIN_CONTENT_ID } from "./src/components/layout/SkipLink";
import { isRunnableScriptType } from "./server/site/script-types";
import { BrowserNeedsRecorder, recordBrowserNeeds } from "./src/components/browser/needs-browser";

export { wrapPageElement } from "./src/wrap-page-element";

/**
 * HTML's render-blocking "expect" link: the browser paints nothing until the parser has reached the
 * start of <main>, so the first paint never holds part of the header. Sent in pieces, as a slow
 * connection delivers it, a page was otherwise painted with some of its navigation links (1280 px)
 * or the menu button's icon without its label (375 px), and the header moved as the rest arrived
 * (e2e/layout-shift.test.ts). Browsers without it paint as before.
 * `blocking` is allowed here: the HTML standard gives it to links of rel "stylesheet" and "expect"
 * (https://html.spec.whatwg.org/multipage/semantics.html#attr-link-blocking). The Nu Html Checker
 * (vnu-jar 26.9.27) lags the standard and allows it with "stylesheet" only, so e2e/html-valid.test.ts
 * ignores that one message, on this link only.
 */
const renderBlockingUntilMain = { rel: "expect", href: `#${MAIN_CONTENT_ID}`, blocking: "render" };

/** lang is declared here as well as in each page's Head so that no page, not even a failing one, lacks it. */
export const onRenderBody: GatsbySSR["onRenderBody"] = ({ setHtmlAttributes, setHeadComponents }) => {
  setHtmlAttributes({ lang: "en" });
  setHeadComponents([<link key="expect-main" {...renderBlockingUntilMain} />]);
};

/**
 * What each page rendered in this process declared it needs script for (src/components/browser/needs-browser.tsx),
 * by path: written while replaceRenderer renders the page's body, read by onPreRenderHTML just after, for the same
 * page, to leave the scripts out of a page that declared nothing.
 */
const browserNeedsByPath = new Map<string, readonly string[]>();

/**
 * Puts each page's emotion CSS in <head> instead of <style> tags beside the
 * elements. Emotion's client moves those inline tags into <head> as its
 * scripts start, and on a slow phone the page visibly re-lays out while it
 * does (measured: CLS 0.02 at 800 px with the CPU slowed 8x). With the CSS
 * in <head> from the start, emotion's client adopts it as is.
 */
export const replaceRenderer: GatsbySSR["replaceRenderer"] = ({
  bodyComponent,
  replaceBodyHTMLString,
  setHeadComponents,
  pathname,
}) => {
  const cache = createCache({ key: "css" });
  const emotionServer = createEmotionServer(cache);
  const browserNeeds = recordBrowserNeeds();
  const chunks = emotionServer.extractCriticalToChunks(
    renderToString(
      <BrowserNeedsRecorder recorder={browserNeeds}>
        <CacheProvider value={cache}>{bodyComponent}</CacheProvider>
      </BrowserNeedsRecorder>,
    ),
  );
  browserNeedsByPath.set(pathname, browserNeeds.reasons);
  setHeadComponents(
    chunks.styles.map((chunk) => (
      <style
        key={chunk.key}
        data-emotion={`${chunk.key} ${chunk.ids.join(" ")}`}
        dangerouslySetInnerHTML={{ __html: chunk.css }}
      />
    )),
  );
  replaceBodyHTMLString(chunks.html);
};

/** The slice in which Gatsby 5 renders its scripts: chunk map, compilation hash, webpack runtime, framework, app. */
const scriptsSlice = "_gatsby-scripts";
const appScriptsId = "gatsby-app-scripts";

/**
 * The same on every page: it takes Gatsby's scripts out of their inert <template> once the first frame
 * has been presented, as the browser's first paint entry reports it. A frame that the main thread has
 * drawn (requestAnimationFrame) can reach the screen much later: on the 2-core CI machine 50 to 900 ms
 * later (traces of /, 2026-11-23), and scripts requested in that gap delayed the paint and counted
 * before it in Lighthouse's simulation. Without paint timing it falls back to the next frame.
 */
const startAppAfterFirstPaint =
  `(function(){var started=false;function start(){if(started)return;started=true;` +
  `var t=document.getElementById("${appScriptsId}");t.replaceWith(document.importNode(t.content,true))}` +
  `var types=window.PerformanceObserver&&PerformanceObserver.supportedEntryTypes;` +
  `if(types&&types.indexOf("paint")!==-1)new PerformanceObserver(function(list,observer){` +
  `observer.disconnect();setTimeout(start)}).observe({type:"paint",buffered:true});` +
  `else requestAnimationFrame(function(){setTimeout(start)})})()`;

const isScriptsSlice = (component: ReactNode) =>
  isValidElement<{ sliceId?: unknown }>(component) && component.props.sliceId === scriptsSlice;

/** A <script> the browser would run: Gatsby's page path, gatsby-plugin-image's loader, any plugin's. */
const isRunnableScript = (component: ReactNode) =>
  isValidElement<{ type?: unknown }>(component) &&
  component.type === "script" &&
  isRunnableScriptType(typeof component.props.type === "string" ? component.props.type : undefined);

/** A hint to fetch a script or data for one (page data) ahead of time. */
const isScriptHint = (component: ReactNode) =>
  isValidElement<{ rel?: unknown; as?: unknown }>(component) &&
  component.type === "link" &&
  (component.props.rel === "modulepreload" ||
    (component.props.rel === "preload" && (component.props.as === "script" || component.props.as === "fetch")));

/**
 * A page on which no component declared that it needs the browser (needs-browser.tsx) works as HTML and CSS
 * alone, and ships no script at all: not Gatsby's runtime, React or the app (the scripts slice), not
 * Gatsby's page path, not a plugin's inline script, not a hint to fetch any of them. Its links are plain
 * links, and its Content-Security-Policy (build/security-headers.ts) then allows no script.
 *
 * Every other page starts the app just after the first paint instead of as soon as its scripts
 * arrive. On a fast connection Gatsby's async scripts otherwise run before the
 * browser has painted anything, and the hero, the largest paint, waits for
 * React and the app to evaluate; the page is complete HTML, so nothing is
 * missing meanwhile. Gatsby's own script markup is kept as it is, inside a
 * <template> (inert: nothing in it is fetched or run) that a small loader
 * puts in place once the first paint has reached the screen. (Preloading the scripts was measured
 * and made things worse: on a slow connection they compete with the hero
 * image and the first paint for bandwidth.)
 *
 * Gatsby fills the slice in after rendering, so its markup is not visible
 * here; if the slice itself goes missing (a Gatsby release that renders its
 * scripts differently), the build stops instead of shipping pages whose app
 * starts as before or not at all; so it does if a page was not rendered by replaceRenderer above, whose
 * record of the page's needs this reads. `gatsby develop` adds its scripts after
 * this hook, so there is nothing to move there.
 */
export const onPreRenderHTML: GatsbySSR["onPreRenderHTML"] = ({
  getHeadComponents,
  replaceHeadComponents,
  getPostBodyComponents,
  replacePostBodyComponents,
  pathname,
}) => {
  if (process.env.NODE_ENV !== "production") return;
  const components = getPostBodyComponents();
  const index = components.findIndex(isScriptsSlice);
  if (index === -1) {
    throw new Error(
      `gatsby-ssr onPreRenderHTML: no "${scriptsSlice}" slice among the post-body components of ${pathname}, ` +
        "so the app scripts cannot be started after the first paint. Gatsby now renders its scripts " +
        "differently: update onPreRenderHTML in gatsby-ssr.tsx.",
    );
  }
  const browserNeeds = browserNeedsByPath.get(pathname);
  if (browserNeeds === undefined) {
    throw new Error(
      `gatsby-ssr onPreRenderHTML: ${pathname} was not rendered by replaceRenderer in this process, so ` +
        "whether it needs its scripts is unknown.",
    );
  }
  browserNeedsByPath.delete(pathname);
  if (browserNeeds.length === 0) {
    replaceHeadComponents(
      getHeadComponents().filter((component) => !isRunnableScript(component) && !isScriptHint(component)),
    );
    replacePostBodyComponents(
      components.filter((component) => !isScriptsSlice(component) && !isRunnableScript(component)),
    );
    return;
  }
  replacePostBodyComponents([
    ...components.slice(0, index),
    <template key={appScriptsId} id={appScriptsId}>
      {components[index]}
    </template>,
    <script key="start-app-after-first-paint" dangerouslySetInnerHTML={{ __html: startAppAfterFirstPaint }} />,
    ...components.slice(index + 1),
  ]);
};
