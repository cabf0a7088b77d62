import { createContext, useContext, type ReactNode } from "react";

/**
 * What a page needs the browser to run, recorded while the server renders it. A component whose work is
 * done by script (the carousel, the inquiry form, a print button) declares it here, and gatsby-ssr.tsx
 * leaves the app's scripts out of every page on which nothing declared anything: such a page works as
 * HTML and CSS alone and ships no script.
 */
export interface BrowserNeeds {
  /** Records that the page being rendered needs script, and what for. */
  declare: (reason: string) => void;
}

const BrowserNeedsContext = createContext<BrowserNeeds | null>(null);

/** Collects the declarations of one server render; the reasons, in the order first declared. */
export const recordBrowserNeeds = (): BrowserNeeds & { readonly reasons: readonly string[] } => {
  const reasons: string[] = [];
  return {
    reasons,
    declare: (reason) => {
      if (!reasons.includes(reason)) reasons.push(reason);
    },
  };
};

/** Gives the components below it a recorder to declare their needs to (server rendering only). */
export const BrowserNeedsRecorder = ({ recorder, children }: { recorder: BrowserNeeds; children: ReactNode }) => (
  <BrowserNeedsContext.Provider value={recorder}>{children}</BrowserNeedsContext.Provider>
);

/**
 * Declares, during the server render, that the calling component needs script to work. In the browser (and
 * in unit tests) there is no recorder and it does nothing: by then the page has its scripts.
 */
export const useNeedsBrowser = (reason: string): void => {
  useContext(BrowserNeedsContext)?.declare(reason);
};
