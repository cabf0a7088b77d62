import type { AnchorHTMLAttributes, ReactNode } from "react";
import { Link } from "gatsby";

export interface SmartLinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "href"> {
  to: string;
  children: ReactNode;
}

const isInternalPath = (to: string): boolean => to.startsWith("/") && !to.startsWith("//");

/** Gatsby's Link for pages of this site (prefetch, client routing); a plain anchor for everything else. */
export const SmartLink = ({ to, children, ...rest }: SmartLinkProps) =>
  isInternalPath(to) ? (
    <Link to={to} {...rest}>
      {children}
    </Link>
  ) : (
    <a href={to} {...rest}>
      {children}
    </a>
  );
