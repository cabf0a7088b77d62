import { useSyncExternalStore } from "react";
import { css } from "@emotion/react";
import { Printer } from "lucide-react";
import { buttonStyles } from "../ui/button-styles";
import { useNeedsBrowser } from "../browser/needs-browser";

const printHidden = css`
  @media print {
    display: none;
  }
`;

/**
 * Until the app runs the button has its place but is not shown, focusable or announced (visibility:
 * hidden), so nothing moves when it appears and no visitor meets a button that does nothing: without
 * script it never appears, and the browser's own Print stays.
 */
const notYetWorking = css`
  visibility: hidden;
`;

// Whether the app runs: false on the server and in the hydrating render (its server snapshot), so both
// match; true from the render after hydration on, when the click handler is attached.
const neverChanges = () => () => undefined;
const inTheBrowser = () => true;
const onTheServer = () => false;

/** Opens the browser's print dialog, where "Save as PDF" is one of the destinations. */
export const PrintButton = ({ label }: { label: string }) => {
  useNeedsBrowser("print button");
  const working = useSyncExternalStore(neverChanges, inTheBrowser, onTheServer);
  return (
    <button
      type="button"
      css={[buttonStyles("secondary"), printHidden, working ? undefined : notYetWorking]}
      onClick={() => window.print()}
    >
      <Printer aria-hidden="true" size={20} />
      {label}
    </button>
  );
};
