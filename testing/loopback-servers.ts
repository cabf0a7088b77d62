import http from "node:http";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

/** The receiving ends of inquiry delivery, on loopback, for jest and the browser tests alike. */

/** An HTTP server that records what is posted to it and answers with a status the test can change. */
export const startWebhookReceiver = async (status = 204) => {
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const state = { status };
  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.statusCode = state.status;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    answerWith: (next: number) => {
      state.status = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

interface ReceivedMail {
  readonly from: string | undefined;
  readonly to: readonly string[];
  /** The message as sent, with folded header lines joined back up. */
  readonly raw: string;
  /** The message as sent, byte for byte: for reading its body (mailParts), where joining lines would corrupt it. */
  readonly source: string;
}

/** A real SMTP server (the smtp-server package) that keeps every message it is given. */
export const startMailServer = async (port = 0) => {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      let raw = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => (raw += chunk));
      stream.on("end", () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
          raw: raw.replace(/\r?\n[ \t]+/g, " "),
          source: raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const address = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${address.port}`,
    port: address.port,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

const decodeBody = (body: string, encoding: string): string => {
  if (encoding === "base64") return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  if (encoding !== "quoted-printable") return body;
  const bytes = body
    .replace(/=\r?\n/g, "")
    .split(/(=[0-9A-Fa-f]{2})/)
    .flatMap((piece) =>
      /^=[0-9A-Fa-f]{2}$/.test(piece) ? [Buffer.from([parseInt(piece.slice(1), 16)])] : [Buffer.from(piece)],
    );
  return Buffer.concat(bytes).toString("utf8");
};

/**
 * The text and HTML of a message (its `source`) as nodemailer writes one (a multipart/alternative, each part quoted-printable,
 * base64 or as it is), decoded: what a mail client shows, for a test to read links and wording from.
 */
export const mailParts = (raw: string): { text: string; html: string } => {
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(raw)?.[1];
  const parts = boundary === undefined ? [raw] : raw.split(`--${boundary}`).slice(1, -1);
  const found = { text: "", html: "" };
  for (const part of parts) {
    const split = /\r?\n\r?\n/.exec(part);
    if (!split) continue;
    const head = part.slice(0, split.index);
    const body = part.slice(split.index + split[0].length);
    const encoding = (/Content-Transfer-Encoding: *(\S+)/i.exec(head)?.[1] ?? "7bit").toLowerCase();
    const type = /Content-Type: *text\/(plain|html)/i.exec(head)?.[1]?.toLowerCase();
    if (type === "plain") found.text = decodeBody(body, encoding).replace(/\r\n/g, "\n");
    if (type === "html") found.html = decodeBody(body, encoding);
  }
  return found;
};
