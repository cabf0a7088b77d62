/**
 * An inquiry held as suspected spam, through the production server (`npm start`), to the sales desk and back:
 * sent by software that fills the hidden field, held (its sender told it was received), listed in the daily
 * digest that a real SMTP server on loopback receives once a transport is configured, and released from the
 * digest's link in the browser: the page changes nothing, its button releases the inquiry, which is then
 * delivered once; the link used again, altered or expired, is refused with a page saying so.
 *
 * A server of its own: the config's webServer has no delivery and no digest.
 */
import { freeLoopbackPort } from "../server/free-port";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { atWidth, expect, expectHydrated, test } from "./support/fixtures";
import { healthDetailsHeaders, readContent, startSite, type RunningSite } from "../testing/site-server";
import { mailParts, startMailServer } from "../testing/loopback-servers";
import { openSqliteOutbox } from "../server/inquiries/store/sqlite";
import { honeypotField } from "../src/inquiry/protocol";
import { quarantineEndsAt, releaseUrl } from "../server/inquiries/held/release-link";
import { resultPagePolicy } from "../server/inquiries/intake/result-page";

const form = readContent("inquiry.json");
const held = form.held;
const SECRET = "0123456789abcdef".repeat(4);

const visitor = {
  fullName: "Dana Whitfield",
  email: "dana.whitfield@logistics.example.mil",
  message: "Quote needed for the spring issue; delivery to building 2-1105.",
};

/** Delivery and the digest happen in the server's worker, after the answer: these waits allow them 15 s. */
const delivery = { timeout: 15_000 };

test.use(atWidth(1280));

test("a held inquiry reaches the sales desk in the digest, and its link releases it for delivery once", async ({
  page,
  consoleErrors,
  cspViolations,
}) => {
  test.setTimeout(120_000);
  const mail = await startMailServer();
  const port = await freeLoopbackPort();
  const dataDir = mkdtempSync(path.join(tmpdir(), "held-inquiries-"));
  let site: RunningSite | null = null;
  try {
    // No transport configured yet: the inquiry is held all the same.
    site = await startSite({ port, env: { INQUIRY_DATA_DIR: dataDir } });
    await page.goto(`${site.origin}/contact/`);
    await expectHydrated(page);
    await page.getByLabel(form.formFields.fullName.label, { exact: false }).fill(visitor.fullName);
    await page.getByLabel(form.formFields.email.label, { exact: false }).fill(visitor.email);
    await page.getByLabel(form.formFields.message.label, { exact: false }).fill(visitor.message);
    // What form-filling software does: a value in the field no person can reach.
    await page.locator(`input[name="${honeypotField}"]`).evaluate((input: HTMLInputElement) => {
      input.value = "https://spam.example";
    });
    await page.getByRole("button", { name: form.submitLabel }).click();
    const status = page.getByRole("status").filter({ hasText: form.sent.title });
    await expect(status).toBeVisible();
    const heldAt = Date.now();
    const reference = /[A-Z]{2,5}-[0-9A-Z]{4}-[0-9A-Z]{4}/.exec(await status.innerText())?.[0] ?? "";
    expect(reference, "the sender is told the reference, as anyone is").not.toBe("");
    const health = (await (await fetch(`${site.origin}/healthz`, { headers: healthDetailsHeaders })).json()) as {
      held: { count: number };
    };
    expect(health.held.count).toBe(1);
    // Off the site before it stops: the app's own requests (prefetches) would meet a closed port meanwhile.
    await page.goto("about:blank");
    await site.stop();

    // Email is set up: the server starts, and its first pass makes the day's digest (due from midnight here).
    site = await startSite({
      port,
      env: {
        INQUIRY_DATA_DIR: dataDir,
        SMTP_URL: mail.url,
        SMTP_ALLOW_PLAIN: "1",
        INQUIRY_TO: "sales@cardinal.example",
        INQUIRY_FROM: "Website <website@cardinal.example>",
        INQUIRY_DIGEST_HOUR: "0",
        INQUIRY_RELEASE_SECRET: SECRET,
        INQUIRY_RELEASE_ORIGIN: `http://127.0.0.1:${port}`,
      },
    });
    const running = site;
    await expect.poll(() => mail.received.length, { ...delivery, message: "the digest arrived" }).toBe(1);
    const digestAfterMs = Date.now() - heldAt;
    const raw = mail.received[0]?.raw ?? "";
    expect(raw, "the digest, not the inquiry itself").toMatch(/^X-Inquiry-Event: held-digest\r?$/m);
    expect(raw).toMatch(/^Subject: Held as suspected spam: 1 to look at \(\d{4}-\d{2}-\d{2}\)\r?$/m);
    const { text } = mailParts(mail.received[0]?.source ?? "");
    expect(text).toContain(`${reference}: ${held.label}: ${held.reasons.honeypot}`);
    for (const answer of Object.values(visitor)) expect(text).toContain(answer);
    const link = new RegExp(`${held.digest.releaseLabel}: (\\S+)`).exec(text)?.[1] ?? "";
    expect(link.startsWith(`${running.origin}/api/inquiry-release?`)).toBe(true);
    console.info(
      [
        `Quarantine to digest: ${digestAfterMs} ms (a restart with email configured in between).`,
        "The digest as the SMTP stand-in received it, its subject and first lines:",
        /^Subject: .*$/m.exec(raw)?.[0] ?? "",
        ...text.split("\n").slice(0, 14),
      ].join("\n"),
    );

    // The link opens a page that says what will happen, and changes nothing.
    const opened = await page.goto(link);
    expect(opened?.status()).toBe(200);
    expect(opened?.headers()["content-security-policy"]).toBe(resultPagePolicy);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(held.releasePage.title);
    await expect(page.locator("main")).toContainText(reference);
    expect(await page.locator("script").count()).toBe(0);
    await page.reload();
    const outbox = () => openSqliteOutbox(dataDir);
    expect((await outbox().entry(reference, 8))?.state).toBe("quarantined");
    expect(mail.received).toHaveLength(1);

    // The same link open in a second tab, to press its button again once the first has been pressed.
    const second = await page.context().newPage();
    await second.goto(link);
    await expect(second.getByRole("button", { name: held.releasePage.buttonLabel })).toBeVisible();

    // The one button releases it, and the inquiry is delivered, once.
    await page.getByRole("button", { name: held.releasePage.buttonLabel }).click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(held.releasePage.releasedTitle);
    expect(await cspViolations(), "the pages run no script, and their policy blocks nothing they need").toEqual([]);
    // Before the refusals below, whose pages come with a status of 400 or more, as they should.
    expect(consoleErrors).toEqual([]);
    await expect.poll(() => mail.received.length, { ...delivery, message: "the inquiry was delivered" }).toBe(2);
    const delivered = mail.received[1]?.raw ?? "";
    expect(delivered).toMatch(new RegExp(`^X-Inquiry-Reference: ${reference}\\r?$`, "m"));
    expect(delivered).toMatch(new RegExp(`^Reply-To: ${visitor.email.replace(/\./g, "\\.")}\\r?$`, "m"));

    // The button again (the second tab's), and the link again: refused, and nothing more is sent.
    await second.getByRole("button", { name: held.releasePage.buttonLabel }).click();
    await expect(second.getByRole("heading", { level: 1 })).toHaveText(held.releasePage.refusedTitle);
    await expect(second.locator("main")).toContainText("was released already");
    await second.close();
    const again = await page.goto(link);
    expect(again?.status()).toBe(409);
    await expect(page.getByRole("button")).toHaveCount(0);

    // An altered link and an expired one are refused likewise.
    const altered = new URL(link);
    altered.searchParams.set("expires", String(Number(altered.searchParams.get("expires")) + 86_400));
    expect((await page.goto(altered.href))?.status()).toBe(400);
    await expect(page.locator("main")).toContainText("changed on the way");
    const record = (await outbox().entry(reference, 8))?.record;
    expect(record).toBeTruthy();
    const expired = releaseUrl(running.origin, SECRET, reference, new Date(Date.now() - 60_000));
    expect((await page.goto(expired))?.status()).toBe(410);
    await expect(page.locator("main")).toContainText("expired");
    expect(quarantineEndsAt(record ?? { receivedAt: "" }, form.delivery.retention).getTime()).toBeGreaterThan(
      Date.now(),
    );

    // Delivered once, whatever was clicked after.
    await page.waitForTimeout(1_000);
    expect(mail.received).toHaveLength(2);
    expect((await outbox().entry(reference, 8))?.state).toBe("delivered");

    const log = running.output();
    const releaseLines = log.split("\n").filter((line) => line.includes("released from quarantine"));
    expect(releaseLines).toHaveLength(1);
    console.info(
      [
        "The server's log lines of the release:",
        ...log.split("\n").filter((line) => line.includes(reference) || line.includes("release")),
      ].join("\n"),
    );
    for (const answer of Object.values(visitor))
      expect(log, `the log does not contain ${answer}`).not.toContain(answer);
  } finally {
    await site?.stop();
    await mail.close();
  }
});
