import { Fragment, type Ref } from "react";
import { css } from "@emotion/react";
import { colors, radii, space } from "../../styles/theme";
import { buttonStyles } from "../ui/button-styles";
import { RichText, type CompanyDetailsForText } from "../ui/RichText";
import type { SendResult, SendStatusContent } from "../../inquiry/form-state";

interface SendStatusProps {
  result: SendResult;
  content: SendStatusContent;
  company: CompanyDetailsForText;
  headingLevel: 3 | 4;
  /** Receives the panel, so the form can move focus to it. */
  panelRef: Ref<HTMLDivElement>;
  /** The visitor's inquiry as a mailto: link, offered when sending failed. */
  mailto?: string;
  onAgain: () => void;
  onRetry: () => void;
}

const panelStyles = (tone: "error" | "info") => css`
  padding: ${space.md} ${space.lg};
  border-left: 6px solid ${tone === "error" ? colors.error : colors.info};
  background: ${tone === "error" ? colors.errorSurface : colors.infoSurface};
  border-radius: ${radii.sm};
  p {
    margin-bottom: ${space.md};
  }
  p:last-child {
    margin-bottom: 0;
  }
`;

const titleStyles = css`
  font-size: 1.125rem;
  margin-bottom: ${space.sm};
`;

const actionsStyles = css`
  display: flex;
  flex-wrap: wrap;
  gap: ${space.sm} ${space.md};
`;

/** Replaces {reference} with the reference in bold; the rest may name {email}, {phone} and {hours}. */
const withReference = (text: string, reference: string, company: CompanyDetailsForText) =>
  text.split("{reference}").map((part, index) => (
    <Fragment key={index}>
      {index > 0 ? <strong>{reference}</strong> : null}
      <RichText text={part} company={company} />
    </Fragment>
  ));

/** What became of the inquiry: received (with its reference), not sent, or refused for now. */
export const SendStatus = ({
  result,
  content,
  company,
  headingLevel,
  panelRef,
  mailto,
  onAgain,
  onRetry,
}: SendStatusProps) => {
  const Heading = `h${headingLevel}` as const;

  if (result.kind === "sent") {
    return (
      <div css={panelStyles("info")} role="status" tabIndex={-1} ref={panelRef}>
        <Heading css={titleStyles}>{content.sent.title}</Heading>
        <p>{withReference(content.sent.text, result.reference, company)}</p>
        <p>
          <button type="button" css={buttonStyles("secondary")} onClick={onAgain}>
            {content.sent.againLabel}
          </button>
        </p>
      </div>
    );
  }

  if (result.kind === "tooMany") {
    return (
      <div css={panelStyles("error")} role="alert" tabIndex={-1} ref={panelRef}>
        <Heading css={titleStyles}>{content.tooMany.title}</Heading>
        <p>
          <RichText text={content.tooMany.text.split("{minutes}").join(String(result.minutes))} company={company} />
        </p>
      </div>
    );
  }

  return (
    <div css={panelStyles("error")} role="alert" tabIndex={-1} ref={panelRef}>
      <Heading css={titleStyles}>{content.failed.title}</Heading>
      <p>
        <RichText text={content.failed.text} company={company} />
      </p>
      <p css={actionsStyles}>
        <button type="button" css={buttonStyles("secondary")} onClick={onRetry}>
          {content.failed.retryLabel}
        </button>
        <a href={mailto ?? `mailto:${company.contact.email}`} css={buttonStyles("secondary")}>
          {content.failed.emailActionLabel}
        </a>
      </p>
    </div>
  );
};
