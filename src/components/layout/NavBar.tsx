import { useCallback, useEffect, useId, useRef, useState } from "react";
import { css } from "@emotion/react";
import { Menu, X } from "lucide-react";
import { colors, fonts, layout, mq, radii, space, printHidden, visuallyHidden } from "../../styles/theme";
import { Container } from "../ui/Container";
import { SmartLink } from "../ui/SmartLink";
import { ButtonLink } from "../ui/ButtonLink";
import { SkipLink } from "./SkipLink";
import type { Navigation } from "../../hooks/use-site-data";

interface NavBarProps {
  companyName: string;
  navigation: Pick<Navigation, "skipLinkLabel" | "primaryLabel" | "menuLabel" | "main" | "quoteAction">;
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

/**
 * The menu's control, disclosure or button: shown below md only, where the links fold away. It keeps its
 * own width beside a long company name, so that the two forms, shrunk by the bar, do not come out of it a
 * pixel apart.
 */
const menuStyles = css`
  flex-shrink: 0;
  ${mq.md} {
    display: none;
  }
`;

/**
 * The menu's control, in either of its two forms, which look and measure the same: the server's <summary>
 * of a <details> disclosure, which the browser opens and closes with no script, and the <button> the app
 * puts in its place. As the summary is a block inside its disclosure, the disclosure is exactly as tall as
 * the button that replaces it. The summary's marker gives way to the icons, one per state.
 */
const menuButtonStyles = css`
  display: flex;
  align-items: center;
  gap: ${space.xs};
  min-height: 2.75rem;
  margin: 0;
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
  details:not([open]) > & .menu-open-icon,
  &[aria-expanded="true"] .menu-closed-icon,
  &[aria-expanded="false"] .menu-open-icon {
    display: none;
  }
`;

const iconStyles = css`
  display: inline-flex;
  flex-shrink: 0;
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
  details[open] + &,
  [aria-expanded="true"] + & {
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
 * The header. As served, its menu opens and closes with HTML and CSS alone (a <details> disclosure), so it
 * works before the app has started and on pages that ship no script. Where the app runs, it replaces the
 * disclosure with a real button (aria-expanded, aria-controls), which every assistive technology reports
 * as one, in the state the visitor left the disclosure in, and with focus if the summary had it: a tap
 * before the app started is kept. The app adds what a disclosure lacks as well: Escape closes the menu and
 * gives focus back to its button, and following a link, a new page or a click outside closes it.
 */
export const NavBar = ({ companyName, navigation, currentPath }: NavBarProps) => {
  const menuId = useId();
  const disclosureRef = useRef<HTMLDetailsElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const navRef = useRef<HTMLElement>(null);
  // False in the server's HTML and while the app hydrates it, so both render the disclosure.
  const [hasButton, setHasButton] = useState(false);
  const [expanded, setExpanded] = useState(false);
  const focusButton = useRef(false);
  const close = useCallback(() => setExpanded(false), []);

  useEffect(() => {
    const disclosure = disclosureRef.current;
    focusButton.current = disclosure?.contains(document.activeElement) ?? false;
    setExpanded(disclosure?.open ?? false);
    setHasButton(true);
  }, []);
  useEffect(() => {
    if (!hasButton) return;
    if (focusButton.current) buttonRef.current?.focus();
    focusButton.current = false;
  }, [hasButton]);

  // A new page closes the menu (back and forward keep the same layout). The first page does not: a menu
  // the visitor opened before the app started stays open as the app starts.
  const menuPath = useRef(currentPath);
  useEffect(() => {
    if (menuPath.current === currentPath) return;
    menuPath.current = currentPath;
    close();
  }, [close, currentPath]);

  useEffect(() => {
    if (!expanded) return undefined;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      close();
      buttonRef.current?.focus();
    };
    const onClick = (event: MouseEvent) => {
      const target = event.target instanceof Node ? event.target : null;
      if (target && (buttonRef.current?.contains(target) || navRef.current?.contains(target))) return;
      close();
    };
    document.addEventListener("keydown", onKeyDown);
    document.addEventListener("click", onClick);
    return () => {
      document.removeEventListener("keydown", onKeyDown);
      document.removeEventListener("click", onClick);
    };
  }, [close, expanded]);

  const menuIcons = (
    <>
      <span css={iconStyles} className="menu-closed-icon">
        <Menu aria-hidden="true" size={20} />
      </span>
      <span css={iconStyles} className="menu-open-icon">
        <X aria-hidden="true" size={20} />
      </span>
      {navigation.menuLabel}
    </>
  );

  const initials = companyName
    .split(/\s+/)
    .slice(0, 2)
    .map((word) => word[0])
    .join("");

  return (
    <header css={[headerStyles, printHidden]}>
      {/* First in the page, and inside the banner landmark: no content lies outside a landmark. */}
      <SkipLink label={navigation.skipLinkLabel} />
      <Container>
        <div css={barStyles}>
          <SmartLink to="/" css={brandStyles}>
            <span css={brandMark} aria-hidden="true">
              {initials}
            </span>
            <span css={brandNameStyles}>{companyName}</span>
          </SmartLink>
          {hasButton ? (
            <button
              ref={buttonRef}
              type="button"
              css={[menuButtonStyles, menuStyles]}
              aria-expanded={expanded}
              aria-controls={menuId}
              onClick={() => setExpanded((open) => !open)}
            >
              {menuIcons}
            </button>
          ) : (
            // The browser sets `open` as the visitor taps, before the app may have started: not a mismatch.
            <details ref={disclosureRef} css={menuStyles} suppressHydrationWarning>
              <summary css={menuButtonStyles} aria-controls={menuId}>
                {menuIcons}
              </summary>
            </details>
          )}
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
