import { failureName, type OperationalLog } from "../operational-log";
import escapeHtml from "escape-html";
import type { InquiryConfig } from "../config";
import { heldReasonText, receivedText, type DigestContent } from "./digest";
import type { InquiryOutbox } from "../store/sql-outbox";
import { checkReleaseLink, RELEASE_FIELDS, RELEASE_PATH, type LinkCheck } from "./release-link";
import { bodyKind } from "../intake/request-body";
import { hostOf, requestHost } from "../intake/request-host";
import { fill, renderPlainPage, resultPagePolicy } from "../intake/result-page";

/**
 * The page a release link in the digest of held inquiries opens (GET), and its one button (POST), on both
 * deploys: a framework-free core, with the server's route (fastify/release-plugin.ts) and a Gatsby function
 * (netlify/release-function.ts) as its adapters.
 *
 * A GET changes nothing, whatever it carries: mail scanners and link previews open every link. It checks the
 * link and says what a release does, with a form that posts the link's own fields back. The POST, only from
 * the site's own page, checks the link again and releases the inquiry: the outbox records a release once,
 * so a link used before, or sent twice at once, releases nothing more. The delivery that follows is the
 * outbox's, as for any inquiry. A link forged, changed, expired or used gets a page saying so, and nothing
 * changes. No page runs script. Logs name the reference of a genuine link, never what the inquiry says; a
 * link that is not genuine is logged without what it carries.
 */

export interface ReleaseRequest {
  readonly method: string;
  /** The query string's fields (a link's), without the "?". */
  readonly query: string;
  readonly contentType: string | undefined;
  /** The body as text (a POST's urlencoded form), or null where there is none. */
  readonly body: string | null;
  readonly host: string | undefined;
  readonly origin: string | undefined;
  readonly secFetchSite: string | undefined;
}

export interface ReleaseReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface ReleaseOutcome {
  readonly reply: ReleaseReply;
  /** The inquiry this request released: the adapter has it delivered. Null when nothing was released. */
  readonly released: string | null;
}

export interface ReleaseHandlerOptions {
  readonly content: DigestContent;
  readonly config: () => InquiryConfig;
  readonly log: OperationalLog;
  readonly now?: () => Date;
}

/** The largest body the button's form posts: three short fields. */
export const MAX_RELEASE_BODY_BYTES = 1024;

type Page =
  | {
      readonly kind: "confirm";
      readonly reference: string;
      readonly received: string;
      readonly reason: string;
      readonly fields: URLSearchParams;
    }
  | { readonly kind: "released"; readonly reference: string }
  | { readonly kind: "forged" | "expired" | "crossSite" | "failed" }
  | { readonly kind: "used" | "gone"; readonly reference: string };

/** Whether a browser sent the post from another site (Fetch Metadata, else Origin against Host). */
const isCrossSite = (request: ReleaseRequest): boolean => {
  const site = request.secFetchSite?.trim().toLowerCase();
  if (site) return site !== "same-origin";
  const origin = request.origin?.trim();
  if (!origin || origin === "null") return origin === "null";
  return hostOf(origin) !== requestHost(request.host);
};

/**
 * Whether the request reached the host release links point to. A deploy at another address (a Netlify deploy
 * preview, whose database is a copy of production's) has no release page, whatever secret it was given.
 */
const isAtReleaseOrigin = (host: string, origin: string): boolean => {
  const expected = new URL(origin);
  const defaultPort = expected.protocol === "https:" ? "443" : "80";
  return host === expected.host || host === `${expected.host}:${defaultPort}`;
};

export const createReleaseHandler = (options: ReleaseHandlerOptions) => {
  const { content, log } = options;
  const now = options.now ?? (() => new Date());
  const copy = content.form.held.releasePage;

  /** A page's title and what it says, in the desk's words. */
  const pageText = (page: Page): [title: string, html: string] => {
    const text = (template: string, values: Record<string, string> = {}) => `<p>${fill(template, content, values)}</p>`;
    switch (page.kind) {
      case "confirm": {
        const hidden = Object.values(RELEASE_FIELDS)
          .map((name) => `<input type="hidden" name="${name}" value="${escapeHtml(page.fields.get(name) ?? "")}">`)
          .join("");
        const form =
          `<form method="post" action="${RELEASE_PATH}">${hidden}` +
          `<button type="submit">${escapeHtml(copy.buttonLabel)}</button></form>`;
        const { reference, received, reason } = page;
        return [copy.title, text(copy.text, { reference, received, reason }) + form];
      }
      case "released":
        return [copy.releasedTitle, text(copy.releasedText, { reference: page.reference })];
      case "used":
        return [copy.refusedTitle, text(copy.usedText, { reference: page.reference })];
      case "gone":
        return [copy.refusedTitle, text(copy.goneText, { reference: page.reference })];
      case "forged":
        return [copy.refusedTitle, text(copy.forgedText)];
      case "expired":
        return [copy.refusedTitle, text(copy.expiredText)];
      case "crossSite":
        return [copy.refusedTitle, text(copy.crossSiteText)];
      case "failed":
        return [copy.refusedTitle, text(copy.failedText)];
    }
  };

  const render = (page: Page): string => {
    const [title, html] = pageText(page);
    const home = `<a href="/">${escapeHtml(content.form.resultPage.homeLabel)}</a>`;
    return renderPlainPage(title, html, home, content.company);
  };

  const answer = (status: number, page: Page, headers: Record<string, string> = {}): ReleaseReply => ({
    status,
    headers: {
      ...headers,
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      "Content-Security-Policy": resultPagePolicy,
      // The page's address holds the link's signature: no other site is told it.
      "Referrer-Policy": "no-referrer",
      "X-Robots-Tag": "noindex",
    },
    body: render(page),
  });

  /** What a link that is not usable gets: its page, with the status that says why. */
  const refusal = (check: Exclude<LinkCheck, { ok: true }>, method: string): ReleaseReply => {
    // An expired link is an ordinary visitor's; a forged or altered one is worth an operator's look.
    const line = `release link refused (${method}): ${check.why === "malformed" ? "not a release link" : check.why}`;
    if (check.why === "expired") log.info(line);
    else log.warn(line);
    return check.why === "expired" ? answer(410, { kind: "expired" }) : answer(400, { kind: "forged" });
  };

  /** The release links' settings, where they are set up and the request reached their host; else null. */
  const linksAt = (request: ReleaseRequest, config: InquiryConfig) => {
    const links = config.digest.releaseLinks;
    if (links === null) return null;
    const host = requestHost(request.host);
    if (isAtReleaseOrigin(host, links.origin)) return links;
    // A proxy that rewrites the host would hide every link from the desk: the operator is told which host came.
    log.warn(
      `release page asked for at ${JSON.stringify(host.slice(0, 100))}, not at INQUIRY_RELEASE_ORIGIN's host: answered as not found`,
    );
    return null;
  };

  /**
   * Null where release links are not set up, or at another host than theirs: the adapters answer as for a path
   * without a page.
   */
  const handle = async (request: ReleaseRequest, outbox: InquiryOutbox): Promise<ReleaseOutcome | null> => {
    const config = options.config();
    const links = linksAt(request, config);
    if (links === null) return null;
    const none = (reply: ReleaseReply): ReleaseOutcome => ({ reply, released: null });
    if (request.method !== "GET" && request.method !== "HEAD" && request.method !== "POST") {
      return none(answer(405, { kind: "forged" }, { Allow: "GET, HEAD, POST" }));
    }
    const posted = request.method === "POST";
    if (posted && isCrossSite(request)) {
      log.warn("release refused: posted from another site");
      return none(answer(403, { kind: "crossSite" }));
    }
    const fields = new URLSearchParams(
      posted ? (bodyKind(request.contentType) === "form" ? (request.body ?? "") : "") : request.query,
    );
    const check = checkReleaseLink(links.secret, fields, now());
    if (!check.ok) return none(refusal(check, request.method));
    const { reference } = check;
    try {
      const entry = await outbox.entry(reference, config.delivery.maxAttempts);
      if (entry === null) {
        log.info(
          { reference },
          `${reference} release refused: no such inquiry (removed after its quarantine, or erased)`,
        );
        return none(answer(410, { kind: "gone", reference }));
      }
      if (entry.state !== "quarantined") {
        log.info({ reference }, `${reference} release refused (${request.method}): released already`);
        return none(answer(409, { kind: "used", reference }));
      }
      if (!posted) {
        return none(
          answer(200, {
            kind: "confirm",
            reference,
            received: receivedText(entry.record, content),
            reason: heldReasonText(content, entry.record.quarantine?.reason),
            fields,
          }),
        );
      }
      if (!(await outbox.release(reference, now()))) {
        log.info({ reference }, `${reference} release refused (POST): released already`);
        return none(answer(409, { kind: "used", reference }));
      }
      log.info({ reference }, `${reference} released from quarantine through the digest's link`);
      return { reply: answer(200, { kind: "released", reference }), released: reference };
    } catch (error) {
      log.error({ err: error, reference }, `${reference} release failed: ${failureName(error)}`);
      return none(answer(503, { kind: "failed" }));
    }
  };

  /** The answer to a body too large or unreadable: nothing is released. */
  const malformed = (): ReleaseReply => answer(400, { kind: "forged" });
  /** The answer when something failed before the link was looked at: nothing is released. */
  const failed = (status = 503): ReleaseReply => answer(status, { kind: "failed" });

  return { handle, malformed, failed };
};

export type ReleaseHandler = ReturnType<typeof createReleaseHandler>;
