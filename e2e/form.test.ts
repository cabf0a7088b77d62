import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { openPage, waitForHydration, WIDTHS } from "./support/browser";
import { useSiteAndBrowser } from "./support/suite";
import { readContent } from "./support/server";

interface Field {
  label: string;
  placeholder?: string;
  errors: { required?: string; invalid?: string; tooShort?: string };
}
const form = readContent<{ formFields: Record<string, Field>; submitLabel: string }>("inquiry.json");
const fields = form.formFields as Record<"fullName" | "organization" | "email" | "phone" | "message", Field>;

const suite = useSiteAndBrowser();

for (const width of WIDTHS) {
  describe(`inquiry form at ${width}px`, () => {
    test("has the specified fields with their types, autocomplete and placeholder", async () => {
      const { page, close } = await openPage(suite.browser, suite.site.origin, width);
      await page.goto(suite.site.url("/contact/"));
      const field = (label: string) => page.getByLabel(label, { exact: false }).first();
      assert.equal(await field(fields.fullName.label).getAttribute("type"), "text");
      assert.equal(await field(fields.fullName.label).getAttribute("autocomplete"), "name");
      assert.equal(await field(fields.organization.label).getAttribute("autocomplete"), "organization");
      assert.equal(await field(fields.email.label).getAttribute("type"), "email");
      assert.equal(await field(fields.phone.label).getAttribute("type"), "tel");
      assert.equal(await field(fields.message.label).getAttribute("placeholder"), "How can we assist you?");
      assert.equal(await page.getByRole("button", { name: form.submitLabel }).isVisible(), true);
      await close();
    });

    test("explains each problem on its field and moves focus to the first", async () => {
      const { page, close } = await openPage(suite.browser, suite.site.origin, width);
      await page.goto(suite.site.url("/"));
      await waitForHydration(page);
      const section = page.locator("#contact");
      await section.getByLabel(fields.email.label, { exact: false }).fill("not-an-email");
      await section.getByRole("button", { name: form.submitLabel }).click();

      const name = section.getByLabel(fields.fullName.label, { exact: false });
      assert.equal(await name.getAttribute("aria-invalid"), "true");
      assert.equal(await name.evaluate((element) => element === document.activeElement), true);
      const describedBy = async (label: string) => {
        const ids = (await section.getByLabel(label, { exact: false }).getAttribute("aria-describedby")) ?? "";
        return Promise.all(ids.split(" ").map((id) => page.locator(`#${id}`).innerText()));
      };
      assert.ok((await describedBy(fields.fullName.label)).includes(fields.fullName.errors.required!));
      assert.ok((await describedBy(fields.email.label)).includes(fields.email.errors.invalid!));
      assert.ok((await describedBy(fields.message.label)).includes(fields.message.errors.required!));
      await close();
    });
  });
}
