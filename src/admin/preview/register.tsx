import createCache, { type EmotionCache } from "@emotion/cache";
import { CacheProvider } from "@emotion/react";
import { createRoot, type Root } from "react-dom/client";
import { assetUrlOf, editedContent, type DecapPreviewProps } from "./decap-entry";
import { PREVIEW_CONTENT_FILE, PREVIEW_FOLDER, type PreviewContent } from "./preview-content-types";
import { previewPages, SitePreview } from "./site-preview";

/**
 * The editing screen's preview bundle (preview/preview.js, built by build-preview.ts): registers a preview
 * template with Decap for every content file and folder, each drawing the site's own page.
 *
 * Decap's prebuilt bundle renders the pane with its own React 19 and shares only `createClass` and `h`
 * with the page. The site's components run on React 18 (the one visitors' pages use), so each template is
 * a Decap class component that holds an element of its own and renders the site's page into it with this
 * bundle's React 18 root: two Reacts, neither calling the other's hooks. Emotion's styles go to the
 * preview frame's head (Decap draws the pane in an iframe), not to the editing screen's.
 */

/** What Decap's bundle puts on window (decap-cms.js: `window.CMS`, `window.createClass`, `window.h`). */
interface DecapClassSpec {
  componentDidMount(this: PreviewIsland): void;
  componentDidUpdate(this: PreviewIsland): void;
  componentWillUnmount(this: PreviewIsland): void;
  render(this: PreviewIsland): unknown;
}

interface PreviewIsland {
  readonly props: DecapPreviewProps;
  element?: HTMLDivElement | null;
  root?: Root;
}

interface DecapWindow {
  readonly CMS: { registerPreviewTemplate(name: string, component: unknown): void };
  readonly createClass: (spec: DecapClassSpec) => unknown;
  readonly h: (type: string, props: Record<string, unknown>) => unknown;
}

declare global {
  interface Window {
    /** Called by admin.js once Decap's bundle has loaded and before it starts Decap. */
    registerSitePreviews?: () => Promise<void>;
  }
}

// One emotion cache per preview frame: Decap makes a new frame when the pane is shown again.
const caches = new WeakMap<Document, EmotionCache>();
const cacheFor = (frame: Document) => {
  let cache = caches.get(frame);
  if (!cache) {
    cache = createCache({ key: "site", container: frame.head });
    caches.set(frame, cache);
  }
  return cache;
};

const previewTemplate = (decap: DecapWindow, kind: string, content: PreviewContent) => {
  function draw(this: PreviewIsland) {
    const { element } = this;
    if (!element) return;
    this.root ??= createRoot(element);
    this.root.render(
      <CacheProvider value={cacheFor(element.ownerDocument)}>
        <SitePreview
          content={content}
          edited={editedContent(kind, this.props.entry)}
          assetUrl={assetUrlOf(this.props.getAsset, content.linkedFiles, new URL(PREVIEW_FOLDER, window.location.href))}
        />
      </CacheProvider>,
    );
  }
  return decap.createClass({
    componentDidMount: draw,
    componentDidUpdate: draw,
    componentWillUnmount() {
      const { root } = this;
      // After Decap's React has finished removing the element: this root's React is another one.
      if (root) queueMicrotask(() => root.unmount());
    },
    render() {
      return decap.h("div", {
        ref: (element: HTMLDivElement | null) => {
          this.element = element;
        },
      });
    },
  });
};

window.registerSitePreviews = async () => {
  const decap = window as unknown as DecapWindow;
  const response = await fetch(PREVIEW_CONTENT_FILE, { cache: "no-cache" });
  if (!response.ok) throw new Error(`The previews' content is missing (${response.status})`);
  const content = (await response.json()) as PreviewContent;
  for (const kind of content.kinds) {
    if (previewPages[kind.name])
      decap.CMS.registerPreviewTemplate(kind.name, previewTemplate(decap, kind.name, content));
  }
};
