/**
 * Inquiries through the production server (`npm start`) to a real SMTP server and a
 * webhook receiver on loopback, with the browser as the visitor, with and without JavaScript; and
 * the outbox keeping an inquiry the mail server was down for until `npm run inquiries -- --retry`.
 *
 * These tests need a server of their own (the config's webServer has no delivery configured): each is a
 * worker fixture, started when the first test of its group needs it and stopped when the worker ends.
 */
import { freeLoopbackPort } from "../server/free-port";
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import type { Page } from "@playwright/test";
import { atWidth, expect, expectHydrated, test as base } from "./support/fixtures";
import { readContent, startSite, type RunningSite } from "../testing/site-server";
import { startMailServer, startWebhookReceiver } from "../testing/loopback-servers";
import { openSqliteOutbox } from "../server/inquiries/store/sqlite";
import type { InquiryFieldName } from "../src/inquiry/values";

const run = promisify(execFile);
const root = path.resolve(__dirname, "..");

const form = readContent("inquiry.json");
const label = (name: InquiryFieldName) => form.formFields[name].label;

const visitor = {
  fullName: "Dana Whitfield",
  organization: "Fort Liberty Directorate of Logistics",
  email: "dana.whitfield@logistics.example.mil",
  phone: "(910) 555-0199",
  quantities: "120 duty belts (40 M, 60 L, 20 XL)",
  message: "Quote needed for the spring issue; delivery to building 2-1105.",
};
const nextYear = `${new Date().getUTCFullYear() + 1}-03-31`;
// The test mail server speaks plain SMTP on loopback, as a local relay would.
const mailEnv = {
  INQUIRY_TO: "sales@cardinal.example",
  INQUIRY_FROM: "Website <website@cardinal.example>",
  SMTP_ALLOW_PLAIN: "1",
};

/** Delivery happens after the answer, in the server's worker: these waits allow it 10 s. */
const delivery = { timeout: 10_000 };

const inquiriesCli = (args: string[], env: Record<string, string>) =>
  run("npm", ["run", "--silent", "inquiries", "--", ...args], { cwd: root, env: { ...process.env, ...env } });

const fillQuote = async (page: Page) => {
  await page.getByLabel(label("fullName"), { exact: false }).fill(visitor.fullName);
  await page.getByLabel(label("organization"), { exact: false }).fill(visitor.organization);
  await page.getByLabel(label("email"), { exact: false }).fill(visitor.email);
  await page.getByLabel(label("phone"), { exact: false }).fill(visitor.phone);
  await page.getByLabel(label("quantities"), { exact: false }).fill(visitor.quantities);
  await page.getByLabel(label("needBy"), { exact: false }).fill(nextYear);
  await page.getByLabel(label("shipToState"), { exact: false }).selectOption("NC");
  await page.getByLabel(label("buyingMethod"), { exact: false }).selectOption("gsa-schedule");
  await page.getByLabel("Berry Amendment", { exact: true }).check();
  await page.getByLabel(label("message"), { exact: false }).fill(visitor.message);
};

interface Delivering {
  site: RunningSite;
  mail: Awaited<ReturnType<typeof startMailServer>>;
  hook: Awaited<ReturnType<typeof startWebhookReceiver>>;
}
interface MailDown {
  site: RunningSite;
  /** The environment `npm run inquiries` needs to reach the same outbox and mail server. */
  env: Record<string, string>;
  /** Where the mail server will be once it is up. */
  smtpPort: number;
}

const test = base.extend<object, { delivering: Delivering; mailDown: MailDown }>({
  delivering: [
    // eslint-disable-next-line no-empty-pattern -- Playwright reads a fixture's dependencies from this pattern; none here.
    async ({}, use) => {
      const [mail, hook] = await Promise.all([startMailServer(), startWebhookReceiver(204)]);
      const site = await startSite({ env: { SMTP_URL: mail.url, ...mailEnv, INQUIRY_WEBHOOK_URL: hook.url } });
      await use({ site, mail, hook });
      await site.stop();
      await mail.close();
      await hook.close();
    },
    // startSite allows the server a minute to answer, as the config's webServer does.
    { scope: "worker", timeout: 90_000 },
  ],
  mailDown: [
    // eslint-disable-next-line no-empty-pattern -- Playwright reads a fixture's dependencies from this pattern; none here.
    async ({}, use) => {
      const smtpPort = await freeLoopbackPort();
      const site = await startSite({ env: { SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, ...mailEnv } });
      await use({
        site,
        smtpPort,
        env: { SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, ...mailEnv, INQUIRY_DATA_DIR: site.dataDir },
      });
      await site.stop();
    },
    // startSite allows the server a minute to answer, as the config's webServer does.
    { scope: "worker", timeout: 90_000 },
  ],
});

test.describe("an inquiry sent from the contact page", () => {
  test.use({ baseURL: async ({ delivering }, use) => use(delivering.site.origin) });

  test.describe(() => {
    test.use(atWidth(1280));

    test("reaches the sales desk by email and webhook, with the reference the visitor is shown", async ({
      page,
      consoleErrors,
      delivering: { site, mail, hook },
    }) => {
      await page.goto("/contact/quote/?category=tactical");
      await expectHydrated(page);
      await fillQuote(page);
      await page.getByRole("button", { name: form.submitLabel }).click();
      const status = page.getByRole("status").filter({ hasText: form.sent.title });
      await expect(status).toBeVisible();
      const reference = /[A-Z]{2,5}-[0-9A-Z]{4}-[0-9A-Z]{4}/.exec(await status.innerText())?.[0];
      expect(reference, "the success message shows a reference").toBeTruthy();
      expect(await status.evaluate((element) => element.contains(document.activeElement))).toBe(true);
      expect(consoleErrors).toEqual([]);

      await expect
        .poll(() => [mail.received.length, hook.received.length], { ...delivery, message: "both deliveries arrived" })
        .toEqual([1, 1]);
      const raw = mail.received[0]!.raw;
      expect(raw).toMatch(new RegExp(`^Subject: .*${reference}`, "m"));
      expect(raw).toMatch(/^Reply-To: dana\.whitfield@logistics\.example\.mil\r?$/m);
      for (const expected of [
        "Tactical Gear",
        visitor.quantities,
        nextYear,
        "North Carolina",
        "GSA Schedule",
        "Berry Amendment",
      ]) {
        expect(raw, `the email includes ${expected}`).toContain(expected);
      }
      expect(hook.received).toHaveLength(1);
      const payload = JSON.parse(hook.received[0]!.body) as { reference: string; values: Record<string, unknown> };
      expect(payload.reference).toBe(reference);
      expect(payload.values.compliance).toEqual(["berry"]);

      await expect
        .poll(async () => (await openSqliteOutbox(site.dataDir).read()).attempts.length, {
          ...delivery,
          message: "both attempts are recorded",
        })
        .toBe(2);
      const { records, attempts } = await openSqliteOutbox(site.dataDir).read();
      expect(records[0]?.reference).toBe(reference);
      expect(attempts.map((attempt) => [attempt.transport, attempt.ok]).sort()).toEqual([
        ["email", true],
        ["webhook", true],
      ]);
      const log = site.output();
      expect(log, "the server log names the reference").toContain(reference);
      for (const secret of [visitor.fullName, visitor.email, visitor.phone, visitor.message, visitor.quantities]) {
        expect(log, `the server log does not contain ${secret}`).not.toContain(secret);
      }
    });
  });

  test.describe(() => {
    test.use({ ...atWidth(375), javaScriptEnabled: false });

    test("without JavaScript, posts the form and lands on a thank-you page with the reference", async ({
      page,
      delivering: { mail },
    }) => {
      const before = mail.received.length;
      await page.goto("/contact/");
      await page.getByLabel(label("fullName"), { exact: false }).fill(visitor.fullName);
      await page.getByLabel(label("email"), { exact: false }).fill(visitor.email);
      await page.getByLabel(label("message"), { exact: false }).fill(visitor.message);
      await page.getByRole("button", { name: form.submitLabel }).click();
      await expect(page).toHaveURL(/\/api\/inquiry$/);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText(form.resultPage.receivedTitle);
      const reference = await page.locator("main strong").innerText();
      expect(reference).toMatch(/^[A-Z]{2,5}-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
      await expect.poll(() => mail.received.length, { ...delivery, message: "the email arrived" }).toBe(before + 1);
      expect(mail.received.at(-1)!.raw).toMatch(new RegExp(reference));
    });

    test("without JavaScript, a form with problems lands on a page listing them", async ({ page }) => {
      await page.goto("/contact/");
      await page.getByLabel(label("email"), { exact: false }).fill("not-an-address");
      await page.getByRole("button", { name: form.submitLabel }).click();
      await expect(page).toHaveURL(/\/api\/inquiry$/);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText(form.resultPage.rejectedTitle);
      const items = await page.locator("main li").allInnerTexts();
      expect(items.some((item) => item.startsWith(label("fullName")))).toBe(true);
      expect(items.some((item) => item.startsWith(label("email")))).toBe(true);
    });
  });
});

test.describe("an inquiry that arrives while the mail server is down", () => {
  test.use({ baseURL: async ({ mailDown }, use) => use(mailDown.site.origin) });

  test("is accepted and kept pending, then delivered by `npm run inquiries -- --retry`", async ({
    request,
    mailDown: { site, env, smtpPort },
  }) => {
    const response = await request.post("/api/inquiry", {
      data: { ...visitor, inquiryType: "general", fill_ms: 30_000 },
    });
    expect(response.status()).toBe(201);
    const { reference } = (await response.json()) as { reference: string };
    // The worker tries at once, fails, and schedules the next attempt after the backoff.
    await expect
      .poll(async () => (await openSqliteOutbox(site.dataDir).read()).attempts.length, {
        ...delivery,
        message: "the first attempt failed",
      })
      .toBe(1);

    const listed = await inquiriesCli([], env);
    expect(listed.stdout).toMatch(/1 inquiries .*: 1 pending,/);
    expect(listed.stdout).toMatch(new RegExp(`${reference} .* pending .* email failed ×1 .* next try `));
    expect(listed.stdout, "the listing does not print contact details").not.toContain(visitor.email);

    const mail = await startMailServer(smtpPort);
    try {
      const retried = await inquiriesCli(["--retry"], env);
      expect(retried.stdout).toMatch(new RegExp(`${reference} email: sent`));
      expect(mail.received).toHaveLength(1);
      expect(mail.received[0]!.raw).toMatch(new RegExp(reference));
      const after = await inquiriesCli([], env);
      expect(after.stdout).toMatch(/1 inquiries .*: 0 pending, .*1 delivered/);
      expect(after.stdout).toMatch(new RegExp(`${reference} .* email delivered`));
    } finally {
      await mail.close();
    }
  });
});
