import { css } from "@emotion/react";
import { Printer } from "lucide-react";
import { buttonStyles } from "../ui/button-styles";

const printHidden = css`
  @media print {
    display: none;
  }
`;

/** Opens the browser's print dialog, where "Save as PDF" is one of the destinations. */
export const PrintButton = ({ label }: { label: string }) => (
  <button type="button" css={[buttonStyles("secondary"), printHidden]} onClick={() => window.print()}>
    <Printer aria-hidden="true" size={20} />
    {label}
  </button>
);
