import { useCallback, useEffect, useId, useRef, useState } from "react";
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
  ${mq.md} {
    display: none;
  }
`;

/**
 * Below md the list is hidden unless open; from md it is always shown, so
 * the server HTML lays out correctly at every width before any script runs.
 */
const navStyles = (open: boolean) => css`
  display: ${open ? "block" : "none"};
  position: absolute;
  top: 100%;
  left: 0;
  right: 0;
  background: ${colors.navy};
  border-bottom: 4px solid ${colors.gold};
  padding: ${space.sm} ${layout.gutter} ${space.lg};
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

export const NavBar = ({ companyName, navigation, currentPath }: NavBarProps) => {
  const [open, setOpen] = useState(false);
  // A new page closes the menu. Set while rendering, not in an effect, so the new page's first paint
  // already has it closed (React's pattern for state that follows a prop).
  const [menuPath, setMenuPath] = useState(currentPath);
  if (menuPath !== currentPath) {
    setMenuPath(currentPath);
    setOpen(false);
  }
  const menuId = useId();
  const buttonRef = useRef<HTMLButtonElement>(null);
  const close = useCallback(() => setOpen(false), []);

  useEffect(() => {
    if (!open) return undefined;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === "Escape") {
        setOpen(false);
        buttonRef.current?.focus();
      }
    };
    document.addEventListener("keydown", onKeyDown);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, [open]);

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
          <button
            ref={buttonRef}
            type="button"
            css={menuButtonStyles}
            aria-expanded={open}
            aria-controls={menuId}
            onClick={() => setOpen((value) => !value)}
          >
            {open ? <X aria-hidden="true" size={20} /> : <Menu aria-hidden="true" size={20} />}
            {navigation.menuLabel}
          </button>
          <nav id={menuId} aria-label={navigation.primaryLabel} css={navStyles(open)}>
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
