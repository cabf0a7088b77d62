import type { AnchorHTMLAttributes, ReactNode } from "react";

/** Gatsby's runtime is replaced in tests: queries come from fixtures, links are plain anchors. */
const gatsby = jest.requireActual<typeof import("gatsby")>("gatsby");

interface MockLinkProps extends AnchorHTMLAttributes<HTMLAnchorElement> {
  to: string;
  children?: ReactNode;
  activeClassName?: string;
  activeStyle?: object;
  partiallyActive?: boolean;
  replace?: boolean;
  state?: unknown;
}

const navigate = jest.fn();

/** Like Gatsby's Link, a click routes on the client (here: records the call) instead of loading a page. */
const Link = ({
  to,
  children,
  activeClassName,
  activeStyle,
  partiallyActive,
  replace,
  state,
  onClick,
  ...rest
}: MockLinkProps) => (
  <a
    href={to}
    {...rest}
    onClick={(event) => {
      onClick?.(event);
      event.preventDefault();
      navigate(to);
    }}
  >
    {children}
  </a>
);

module.exports = {
  ...gatsby,
  graphql: jest.fn(),
  Link,
  navigate,
  useStaticQuery: jest.fn(),
  StaticQuery: jest.fn(),
};
