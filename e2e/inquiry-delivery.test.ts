/**
 * Inquiries through the production server (`npm start`) to a real SMTP server and a
 * webhook receiver on loopback, with the browser as the visitor, with and without JavaScript; and
 * the outbox keeping an inquiry the mail server was down for until `npm run inquiries -- --retry`.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, openPage, waitForHydration } from "./support/browser";
import { freePort, readContent, startSite, type RunningSite } from "./support/server";
import { startMailServer, startWebhookReceiver } from "../__tests__/support/loopback-servers";
import { Outbox } from "../src/inquiry/server/outbox";

const run = promisify(execFile);
const root = path.resolve(__dirname, "..");

interface Field {
  label: string;
  options?: { value: string; label: string }[];
}
const form = readContent<{
  formFields: Record<string, Field>;
  submitLabel: string;
  sent: { title: string };
  resultPage: { receivedTitle: string; rejectedTitle: string };
}>("inquiry.json");
const label = (name: string) => form.formFields[name]!.label;

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

/** Delivery happens after the answer, in the server's worker: wait until `ready` holds, for up to 10 s. */
const eventually = async (ready: () => boolean | Promise<boolean>, what: string) => {
  const deadline = Date.now() + 10_000;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

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

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

describe("an inquiry sent from the contact page", () => {
  let site: RunningSite;
  let mail: Awaited<ReturnType<typeof startMailServer>>;
  let hook: Awaited<ReturnType<typeof startWebhookReceiver>>;
  before(async () => {
    [mail, hook] = await Promise.all([startMailServer(), startWebhookReceiver(204)]);
    site = await startSite({ env: { SMTP_URL: mail.url, ...mailEnv, INQUIRY_WEBHOOK_URL: hook.url } });
  });
  after(async () => {
    await site?.stop();
    await mail?.close();
    await hook?.close();
  });

  test("reaches the sales desk by email and webhook, with the reference the visitor is shown", async () => {
    const { page, consoleErrors, close } = await openPage(browser, site.origin, 1280);
    await page.goto(site.url("/contact/quote/?category=tactical"));
    await waitForHydration(page);
    await fillQuote(page);
    await page.getByRole("button", { name: form.submitLabel }).click();
    const status = page.getByRole("status").filter({ hasText: form.sent.title });
    await status.waitFor();
    const reference = /[A-Z]{2,5}-[0-9A-Z]{4}-[0-9A-Z]{4}/.exec(await status.innerText())?.[0];
    assert.ok(reference, "the success message shows a reference");
    assert.equal(await status.evaluate((element) => element.contains(document.activeElement)), true);
    assert.deepEqual(consoleErrors, []);
    await close();

    await eventually(() => mail.received.length === 1 && hook.received.length === 1, "both deliveries arrived");
    const raw = mail.received[0]!.raw;
    assert.match(raw, new RegExp(`^Subject: .*${reference}`, "m"));
    assert.match(raw, /^Reply-To: dana\.whitfield@logistics\.example\.mil\r?$/m);
    for (const expected of [
      "Tactical Gear",
      visitor.quantities,
      nextYear,
      "North Carolina",
      "GSA Schedule",
      "Berry Amendment",
    ]) {
      assert.ok(raw.includes(expected), `the email includes ${expected}`);
    }
    assert.equal(hook.received.length, 1);
    const payload = JSON.parse(hook.received[0]!.body) as { reference: string; values: Record<string, unknown> };
    assert.equal(payload.reference, reference);
    assert.deepEqual(payload.values.compliance, ["berry"]);

    await eventually(async () => (await new Outbox(site.dataDir).read()).attempts.length === 2, "both attempts are recorded");
    const { records, attempts } = await new Outbox(site.dataDir).read();
    assert.equal(records[0]?.reference, reference);
    assert.deepEqual(attempts.map((attempt) => [attempt.transport, attempt.ok]).sort(), [
      ["email", true],
      ["webhook", true],
    ]);
    const log = site.output();
    assert.ok(log.includes(reference), "the server log names the reference");
    for (const secret of [visitor.fullName, visitor.email, visitor.phone, visitor.message, visitor.quantities]) {
      assert.ok(!log.includes(secret), `the server log does not contain ${secret}`);
    }
  });

  test("without JavaScript, posts the form and lands on a thank-you page with the reference", async () => {
    const before = mail.received.length;
    const { page, close } = await openPage(browser, site.origin, 375, { javaScriptEnabled: false });
    await page.goto(site.url("/contact/"));
    await page.getByLabel(label("fullName"), { exact: false }).fill(visitor.fullName);
    await page.getByLabel(label("email"), { exact: false }).fill(visitor.email);
    await page.getByLabel(label("message"), { exact: false }).fill(visitor.message);
    await page.getByRole("button", { name: form.submitLabel }).click();
    await page.waitForURL(/\/api\/inquiry$/);
    assert.equal(await page.getByRole("heading", { level: 1 }).innerText(), form.resultPage.receivedTitle);
    const reference = await page.locator("main strong").innerText();
    assert.match(reference, /^[A-Z]{2,5}-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    await eventually(() => mail.received.length === before + 1, "the email arrived");
    assert.match(mail.received.at(-1)!.raw, new RegExp(reference));
    await close();
  });

  test("without JavaScript, a form with problems lands on a page listing them", async () => {
    const { page, close } = await openPage(browser, site.origin, 375, { javaScriptEnabled: false });
    await page.goto(site.url("/contact/"));
    await page.getByLabel(label("email"), { exact: false }).fill("not-an-address");
    await page.getByRole("button", { name: form.submitLabel }).click();
    await page.waitForURL(/\/api\/inquiry$/);
    assert.equal(await page.getByRole("heading", { level: 1 }).innerText(), form.resultPage.rejectedTitle);
    const items = await page.locator("main li").allInnerTexts();
    assert.ok(items.some((item) => item.startsWith(label("fullName"))));
    assert.ok(items.some((item) => item.startsWith(label("email"))));
    await close();
  });
});

describe("an inquiry that arrives while the mail server is down", () => {
  let site: RunningSite;
  let smtpPort: number;
  let env: Record<string, string>;
  before(async () => {
    smtpPort = await freePort();
    site = await startSite({ env: { SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, ...mailEnv } });
    env = { SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, ...mailEnv, INQUIRY_DATA_DIR: site.dataDir };
  });
  after(async () => {
    await site?.stop();
  });

  test("is accepted and kept pending, then delivered by `npm run inquiries -- --retry`", async () => {
    const response = await fetch(site.url("/api/inquiry"), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ ...visitor, inquiryType: "general", fill_ms: 30_000 }),
    });
    assert.equal(response.status, 201);
    const { reference } = (await response.json()) as { reference: string };
    // The worker tries at once, fails, and schedules the next attempt after the backoff.
    await eventually(async () => (await new Outbox(site.dataDir).read()).attempts.length === 1, "the first attempt failed");

    const listed = await inquiriesCli([], env);
    assert.match(listed.stdout, /1 inquiries .*: 1 pending,/);
    assert.match(listed.stdout, new RegExp(`${reference} .* pending .* email failed ×1 .* next try `));
    assert.ok(!listed.stdout.includes(visitor.email), "the listing does not print contact details");

    const mail = await startMailServer(smtpPort);
    try {
      const retried = await inquiriesCli(["--retry"], env);
      assert.match(retried.stdout, new RegExp(`${reference} email: sent`));
      assert.equal(mail.received.length, 1);
      assert.match(mail.received[0]!.raw, new RegExp(reference));
      const after = await inquiriesCli([], env);
      assert.match(after.stdout, /1 inquiries .*: 0 pending, .*1 delivered/);
      assert.match(after.stdout, new RegExp(`${reference} .* email delivered`));
    } finally {
      await mail.close();
    }
  });
});
