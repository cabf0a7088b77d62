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
 * The browser paints nothing until the parser reaches <main>, so a page that arrives in pieces never shows
 * half a header that then moves. The HTML standard allows `blocking` on rel="expect"; the Nu Html Checker
 * does not yet, so e2e/html-valid.test.ts ignores that one message on this link.
 */
const renderBlockingUntilMain = { rel: "expect", href: `#${MAIN_CONTENT_ID}`, blocking: "render" };

/** lang is declared here as well as in each page's Head so that no page, not even a failing one, lacks it. */
export const onRenderBody: GatsbySSR["onRenderBody"] = ({ setHtmlAttributes, setHeadComponents }) => {
  setHtmlAttributes({ lang: "en" });
  setHeadComponents([<link key="expect-main" {...renderBlockingUntilMain} />]);
};

/** What each page declared it needs script for, by path: replaceRenderer writes it, onPreRenderHTML reads it. */
const browserNeedsByPath = new Map<string, readonly string[]>();

/**
 * Puts each page's emotion CSS in <head>: emotion's client would otherwise move inline <style> tags there as
 * it starts, and the page would re-lay out on a slow phone. CSS already in <head> is adopted as is.
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
 * Takes Gatsby's scripts out of their inert <template> once the browser reports its first paint: a frame
 * drawn by requestAnimationFrame can reach the screen much later, and scripts requested in that gap delay
 * the paint. Without paint timing it falls back to the next frame.
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
 * A page on which no component declared that it needs the browser works as HTML and CSS alone, so it ships
 * no script, inline or fetched, nor a hint to fetch one; its Content-Security-Policy then allows none.
 *
 * Every other page keeps Gatsby's script markup in an inert <template> until the first paint, so that the
 * hero is painted before React and the app evaluate; the page is complete HTML meanwhile. Preloading the
 * scripts would compete with the hero image for bandwidth on a slow connection.
 *
 * The build stops if the scripts slice is missing (Gatsby renders its scripts differently) or the page was
 * not rendered by replaceRenderer, rather than ship pages whose app starts wrongly. `gatsby develop` adds
 * its scripts after this hook, so there is nothing to move there.
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
