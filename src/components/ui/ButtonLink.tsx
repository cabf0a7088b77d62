import { SmartLink, type SmartLinkProps } from "./SmartLink";
import { buttonStyles, type ButtonVariant } from "./button-styles";

interface ButtonLinkProps extends SmartLinkProps {
  variant?: ButtonVariant;
}

/** A link that looks like a button: it goes somewhere, so it stays a link for assistive technology. */
export const ButtonLink = ({ variant = "primary", ...props }: ButtonLinkProps) => (
  <SmartLink css={buttonStyles(variant)} {...props} />
);
