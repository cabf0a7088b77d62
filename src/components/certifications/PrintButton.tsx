import { useEffect, useRef } from "react";
import { css } from "@emotion/react";
import { Printer } from "lucide-react";
import { buttonStyles } from "../ui/button-styles";

/**
 * Set on <html> by the button's script or its component (below), whichever runs first: a Print button on
 * the page prints on a click. On <html>, outside what React renders, so that hydration finds the button as
 * the server rendered it.
 */
const READY = "data-print-ready";

/**
 * Until it prints on a click the button has its place but is not shown, focusable or announced (visibility:
 * hidden), so nothing moves when it appears and no visitor meets a button that does nothing: without script
 * it never appears, and the browser's own Print stays.
 */
const hiddenUntilReady = css`
  html:not([${READY}]) & {
    visibility: hidden;
  }
  @media print {
    display: none;
  }
`;

/**
 * The button's own script, written into the page right after it and run by the browser as it parses the
 * page, before the first paint: the page needs no app (React and Gatsby's runtime) for one button, and its
 * policy allows this text by its hash
 * (build/security-headers.ts reads it from the built page). Plain ES5, as every browser runs it. The click
 * goes to the button's `onclick` property, which React does not use (it listens at its root).
 */
export const PRINT_BUTTON_SCRIPT =
  `(function(b){b.onclick=function(){window.print()};` +
  `document.documentElement.setAttribute("${READY}","")})(document.currentScript.previousElementSibling)`;

/** Opens the browser's print dialog, where "Save as PDF" is one of the destinations. */
export const PrintButton = ({ label }: { label: string }) => {
  const button = useRef<HTMLButtonElement>(null);
  // Where the app renders the page itself (a client-side navigation to it, gatsby develop, the editing
  // screen's preview), the script above is inserted as markup, which a browser never runs: the component
  // does the same then. Where the script ran first, this sets the same one handler again: one print a click.
  useEffect(() => {
    const element = button.current;
    if (!element) return;
    element.onclick = () => window.print();
    // The button's own document: the editing screen's preview renders it in a frame.
    element.ownerDocument.documentElement.setAttribute(READY, "");
    return () => {
      element.onclick = null;
    };
  }, []);
  return (
    <>
      <button ref={button} type="button" css={[buttonStyles("secondary"), hiddenUntilReady]}>
        <Printer aria-hidden="true" size={20} />
        {label}
      </button>
      <script dangerouslySetInnerHTML={{ __html: PRINT_BUTTON_SCRIPT }} />
    </>
  );
};
