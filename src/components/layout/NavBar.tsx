import { useCallback, useEffect, useId, useRef } from "react";
import { css } from "@emotion/react";
import { Menu, X } from "lucide-react";
import { colors, fonts, layout, mq, radii, space, printHidden, visuallyHidden } from "../../styles/theme";
import { Container } from "../ui/Container";
import { SmartLink } from "../ui/SmartLink";
import { ButtonLink } from "../ui/ButtonLink";
import type { Navigation } from "../../hooks/use-site-data";

interface NavBarProps {
  companyName: string;
  navigation: Pick<Navigation, "primaryLabel" | "menuLabel" | "main" | "quoteAction">;
  /** The current path, to mark the current page's link. */
  currentPath: string;
}

const headerStyles = css`
  position: relative;
  z-index: 10;
  background: ${colors.navy};
  color: ${colors.white};
  border-bottom: 4px solid ${colors.gold};
`;

const barStyles = css`
  display: flex;
  align-items: center;
  justify-content: space-between;
  gap: ${space.md};
  min-height: ${layout.headerHeight};
`;

const brandStyles = css`
  display: inline-flex;
  align-items: center;
  gap: ${space.sm};
  color: ${colors.white};
  font-family: ${fonts.heading};
  font-size: 1.25rem;
  font-weight: 700;
  text-decoration: none;
  &:hover {
    color: ${colors.goldLight};
  }
`;

const brandMark = css`
  display: inline-grid;
  place-items: center;
  width: 2.25rem;
  height: 2.25rem;
  border-radius: ${radii.round};
  background: ${colors.gold};
  color: ${colors.navy};
  font-size: 1rem;
`;

/** Between md and lg the full link row needs the room: the name is hidden from sight but still names the link. */
const brandNameStyles = css`
  ${mq.md} {
    ${visuallyHidden};
  }
  ${mq.lg} {
    position: static !important;
    width: auto !important;
    height: auto !important;
    margin: 0 !important;
    overflow: visible !important;
    clip: auto !important;
    white-space: normal !important;
  }
`;

/** The disclosure that holds the menu button: shown below md only, where the links fold away. */
const menuStyles = css`
  ${mq.md} {
    display: none;
  }
`;

/**
 * The menu button is the disclosure's <summary>: the browser opens and closes it with no script, and
 * tells assistive technology whether it is open. Its marker gives way to the icons, one per state.
 */
const menuButtonStyles = css`
  display: inline-flex;
  align-items: center;
  gap: ${space.xs};
  min-height: 2.75rem;
  padding: 0.5rem 0.75rem;
  background: transparent;
  color: ${colors.white};
  border: 2px solid ${colors.white};
  border-radius: ${radii.sm};
  font-weight: 700;
  cursor: pointer;
  list-style: none;
  &::-webkit-details-marker {
    display: none;
  }
  details[open] > & .menu-closed-icon,
  details:not([open]) > & .menu-open-icon {
    display: none;
  }
`;

const iconStyles = css`
  display: inline-flex;
`;

/**
 * Below md the list shows while the disclosure before it is open, by CSS alone; from md it is always
 * shown, so the server HTML lays out and works at every width before any script runs, or without one.
 */
const navStyles = css`
  display: none;
  position: absolute;
  top: 100%;
  left: 0;
  right: 0;
  background: ${colors.navy};
  border-bottom: 4px solid ${colors.gold};
  padding: ${space.sm} ${layout.gutter} ${space.lg};
  details[open] + & {
    display: block;
  }
  ${mq.md} {
    display: block;
    position: static;
    padding: 0;
    border: 0;
    background: transparent;
  }
`;

const listStyles = css`
  list-style: none;
  margin: 0;
  padding: 0;
  display: flex;
  flex-direction: column;
  gap: ${space.xs};
  ${mq.md} {
    flex-direction: row;
    align-items: center;
    gap: ${space.xs};
  }
  ${mq.lg} {
    gap: ${space.sm};
  }
`;

const linkStyles = css`
  display: block;
  padding: 0.625rem 0.75rem;
  color: ${colors.white};
  font-weight: 600;
  text-decoration: none;
  border-radius: ${radii.sm};
  &:hover {
    color: ${colors.goldLight};
    text-decoration: underline;
  }
  &[aria-current="page"] {
    color: ${colors.goldLight};
    text-decoration: underline;
    text-decoration-thickness: 2px;
  }
  ${mq.md} {
    padding: 0.5rem 0.5rem;
  }
  ${mq.lg} {
    padding: 0.5rem 0.75rem;
  }
`;

const quoteItemStyles = css`
  margin-top: ${space.sm};
  ${mq.md} {
    margin: 0 0 0 ${space.sm};
  }
`;

/** The link of the page or section the visitor is in: Products stays marked on a product page. */
const isCurrent = (to: string, currentPath: string) => {
  const target = to.split(/[?#]/)[0] ?? to;
  const path = currentPath.endsWith("/") ? currentPath : `${currentPath}/`;
  return target === "/" ? path === "/" : path.startsWith(target);
};

/**
 * The header. Its menu opens and closes with HTML and CSS alone (a <details> disclosure), so it works
 * before the app has started and on pages that ship no script. Where the app runs it adds what a
 * disclosure lacks: Escape closes the menu and gives focus back to its button, and following a link,
 * a new page or a click outside closes it.
 */
export const NavBar = ({ companyName, navigation, currentPath }: NavBarProps) => {
  const menuId = useId();
  const disclosureRef = useRef<HTMLDetailsElement>(null);
  const navRef = useRef<HTMLElement>(null);
  const close = useCallback(() => {
    if (disclosureRef.current) disclosureRef.current.open = false;
  }, []);

  // A new page closes the menu (back and forward keep the same layout). The first page does not: a menu
  // the visitor opened before the app started stays open as the app starts.
  const menuPath = useRef(currentPath);
  useEffect(() => {
    if (menuPath.current === currentPath) return;
    menuPath.current = currentPath;
    close();
  }, [close, currentPath]);

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      const disclosure = disclosureRef.current;
      if (event.key !== "Escape" || !disclosure?.open) return;
      disclosure.open = false;
      disclosure.querySelector("summary")?.focus();
    };
    const onClick = (event: MouseEvent) => {
      const target = event.target instanceof Node ? event.target : null;
      if (target && (disclosureRef.current?.contains(target) || navRef.current?.contains(target))) return;
      close();
    };
    document.addEventListener("keydown", onKeyDown);
    document.addEventListener("click", onClick);
    return () => {
      document.removeEventListener("keydown", onKeyDown);
      document.removeEventListener("click", onClick);
    };
  }, [close]);

  const initials = companyName
    .split(/\s+/)
    .slice(0, 2)
    .map((word) => word[0])
    .join("");

  return (
    <header css={[headerStyles, printHidden]}>
      <Container>
        <div css={barStyles}>
          <SmartLink to="/" css={brandStyles}>
            <span css={brandMark} aria-hidden="true">
              {initials}
            </span>
            <span css={brandNameStyles}>{companyName}</span>
          </SmartLink>
          {/* The browser sets `open` as the visitor taps, before the app may have started: not a mismatch. */}
          <details ref={disclosureRef} css={menuStyles} suppressHydrationWarning>
            <summary css={menuButtonStyles} aria-controls={menuId}>
              <span css={iconStyles} className="menu-closed-icon">
                <Menu aria-hidden="true" size={20} />
              </span>
              <span css={iconStyles} className="menu-open-icon">
                <X aria-hidden="true" size={20} />
              </span>
              {navigation.menuLabel}
            </summary>
          </details>
          <nav ref={navRef} id={menuId} aria-label={navigation.primaryLabel} css={navStyles}>
            <ul css={listStyles}>
              {navigation.main.map((link) => (
                <li key={link.to}>
                  <SmartLink
                    to={link.to}
                    css={linkStyles}
                    aria-current={isCurrent(link.to, currentPath) ? "page" : undefined}
                    onClick={close}
                  >
                    {link.label}
                  </SmartLink>
                </li>
              ))}
              <li css={quoteItemStyles}>
                <ButtonLink to={navigation.quoteAction.to} variant="primary" onClick={close}>
                  {navigation.quoteAction.label}
                </ButtonLink>
              </li>
            </ul>
          </nav>
        </div>
      </Container>
    </header>
  );
};
