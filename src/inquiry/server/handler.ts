import type { GatsbyFunctionRequest, GatsbyFunctionResponse } from "gatsby";
import { configuredTransports, readInquiryConfig, type InquiryConfig } from "./config";
import type { InquiryContent } from "./content";
import { deliver } from "./deliver";
import { outboxRecord } from "./message";
import { DuplicateReferenceError, Outbox } from "./outbox";
import { takeRateLimit } from "./rate-limit";
import { newReference } from "./reference";
import { renderResultPage, type ResultPage } from "./result-page";
import { fillTimeField, honeypotField, type InquiryFailure, type InquiryResponseBody } from "../protocol";
import { checkInquiry } from "../validation";

export interface InquiryHandlerOptions {
  readonly content: InquiryContent;
  /** Read for every request, so a server picks up the environment it runs in. */
  readonly config?: () => InquiryConfig;
  readonly now?: () => Date;
  /** Where operational lines go; they carry references and outcomes, never what a visitor wrote. */
  readonly log?: (line: string) => void;
}

type BodyKind = "json" | "form";

const bodyKind = (contentType: string | undefined): BodyKind | null => {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase();
  if (type === "application/json") return "json";
  if (type === "application/x-www-form-urlencoded") return "form";
  return null;
};

const clientOf = (req: GatsbyFunctionRequest, header: string | null): string => {
  const forwarded = header ? req.headers[header] : undefined;
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim();
  return first || req.socket.remoteAddress || "unknown";
};

/** Software fills in the field nobody sees, or sends faster than a person can type. */
const looksAutomated = (body: Record<string, unknown>, minFillSeconds: number): string | null => {
  const honeypot = body[honeypotField];
  if (typeof honeypot === "string" ? honeypot.trim() !== "" : honeypot !== undefined && honeypot !== null)
    return "honeypot filled";
  const fill = body[fillTimeField];
  // A post without JavaScript has no fill time to report; the honeypot is its only check.
  if (fill === undefined || fill === null || fill === "") return null;
  const milliseconds = Number(fill);
  if (!Number.isFinite(milliseconds) || milliseconds < minFillSeconds * 1000) return "sent too fast";
  return null;
};

const MAX_REFERENCE_TRIES = 3;

/** The /api/inquiry function: checks, stores, then delivers an inquiry, answering in JSON or, for a plain form post, a page. */
export const createInquiryHandler = (options: InquiryHandlerOptions) => {
  const { content } = options;
  const readConfig = options.config ?? (() => readInquiryConfig(content.form.delivery));
  const now = options.now ?? (() => new Date());
  const log = options.log ?? ((line: string) => console.info(`[inquiry] ${line}`));

  return async (req: GatsbyFunctionRequest, res: GatsbyFunctionResponse): Promise<void> => {
    res.setHeader("Cache-Control", "no-store");
    if (req.method !== "POST") {
      res.setHeader("Allow", "POST");
      res.status(405).json({ error: "Send inquiries with POST." } satisfies InquiryFailure);
      return;
    }
    const kind = bodyKind(req.headers["content-type"]);
    if (!kind) {
      res.status(415).json({
        error: "Send inquiries as application/json or application/x-www-form-urlencoded.",
      } satisfies InquiryFailure);
      return;
    }
    const answer = (status: number, json: InquiryResponseBody, page: ResultPage) => {
      res.status(status);
      if (kind === "json") res.json(json);
      else {
        res.setHeader("Content-Type", "text/html; charset=utf-8");
        res.send(renderResultPage(page, content));
      }
    };

    const declaredLength = Number(req.headers["content-length"] ?? 0);
    if (declaredLength > content.form.delivery.maxBodyKilobytes * 1024) {
      answer(413, { error: "The inquiry is larger than this form can send." }, { kind: "failed" });
      return;
    }

    let config: InquiryConfig;
    try {
      config = readConfig();
    } catch (error) {
      log(`not accepted: ${(error as Error).message}`);
      answer(503, { error: "Inquiries cannot be accepted right now." }, { kind: "failed" });
      return;
    }

    const body = (typeof req.body === "object" && req.body !== null ? req.body : {}) as Record<string, unknown>;
    const client = clientOf(req, config.clientIpHeader);
    const automated = looksAutomated(body, config.minFillSeconds);
    if (automated) {
      // The sender is told it worked, so it learns nothing to work around; nothing is stored or sent.
      await takeRateLimit(config.rateLimit, client);
      log(`discarded as automated (${automated})`);
      const reference = newReference(content.form.delivery.referencePrefix);
      answer(201, { reference }, { kind: "received", reference });
      return;
    }

    const checked = checkInquiry(content.form, content.choices, body, now());
    if (!checked.ok) {
      answer(422, { errors: checked.errors }, { kind: "rejected", errors: checked.errors });
      return;
    }

    const limit = await takeRateLimit(config.rateLimit, client);
    if (!limit.allowed) {
      log(`refused: rate limit (${config.rateLimit.requests} per ${config.rateLimit.windowSeconds} s)`);
      res.setHeader("Retry-After", String(limit.retryAfterSeconds));
      answer(429, { retryAfterSeconds: limit.retryAfterSeconds }, { kind: "tooMany", ...limit });
      return;
    }

    const outbox = new Outbox(config.dataDir);
    const transports = configuredTransports(config);
    let record = outboxRecord(
      content,
      checked.values,
      newReference(content.form.delivery.referencePrefix),
      now(),
      transports,
    );
    for (let attempt = 1; ; attempt += 1) {
      try {
        await outbox.add(record);
        break;
      } catch (error) {
        if (error instanceof DuplicateReferenceError && attempt < MAX_REFERENCE_TRIES) {
          record = { ...record, reference: newReference(content.form.delivery.referencePrefix) };
          continue;
        }
        log(`not stored: ${(error as NodeJS.ErrnoException).code ?? (error as Error).name}`);
        answer(503, { error: "The inquiry could not be stored." }, { kind: "failed" });
        return;
      }
    }

    const results = await deliver(record, transports, config, outbox, now);
    const outcome = results.map((result) => `${result.transport}: ${result.ok ? "sent" : `failed (${result.detail})`}`);
    log(
      `${record.reference} stored (${record.values.inquiryType})${outcome.length ? `; ${outcome.join("; ")}` : "; no transport configured"}`,
    );
    // Where the outbox does not outlive this request, an inquiry no transport took is as good as lost:
    // say so, and the visitor still has every answer in the form.
    if (!config.durableOutbox && !results.some((result) => result.ok)) {
      answer(503, { error: "The inquiry could not be delivered." }, { kind: "failed" });
      return;
    }
    answer(201, { reference: record.reference }, { kind: "received", reference: record.reference });
  };
};
