import { WIDTHS } from "../testing/browser";
import { atWidth, expect, expectHydrated, test } from "./support/fixtures";
import { readContent } from "../testing/site-server";
import { honeypotField } from "../src/inquiry/protocol";

const form = readContent("inquiry.json");
const fields = form.formFields;

for (const width of WIDTHS) {
  test.describe(`inquiry form at ${width}px`, () => {
    test.use(atWidth(width));

    test("has the specified fields with their types, autocomplete and placeholder", async ({ page }) => {
      await page.goto("/contact/");
      const field = (label: string) => page.getByLabel(label, { exact: false }).first();
      await expect(field(fields.fullName.label)).toHaveAttribute("type", "text");
      await expect(field(fields.fullName.label)).toHaveAttribute("autocomplete", "name");
      await expect(field(fields.organization.label)).toHaveAttribute("autocomplete", "organization");
      await expect(field(fields.email.label)).toHaveAttribute("type", "email");
      await expect(field(fields.phone.label)).toHaveAttribute("type", "tel");
      await expect(field(fields.message.label)).toHaveAttribute("placeholder", "How can we assist you?");
      await expect(page.getByRole("button", { name: form.submitLabel })).toBeVisible();
    });

    test("keeps its honeypot out of every person's way: no focus, no tab stop, nothing in the accessibility tree", async ({
      page,
    }) => {
      await page.goto("/contact/");
      await expectHydrated(page);
      const trap = page.locator(`input[name="${honeypotField}"]`);
      await expect(trap).toHaveCount(1);
      // Inert: Chromium will not focus it, so neither a person nor autofill (which fills only what can take
      // focus) reaches it, though it is in the form and posted with it.
      expect(await trap.evaluate((input: HTMLInputElement) => (input.focus(), document.activeElement === input))).toBe(
        false,
      );
      await expect(page.getByRole("textbox", { name: form.honeypotLabel })).toHaveCount(0);
      const snapshot = await page.locator("form").first().ariaSnapshot();
      expect(snapshot).not.toContain(form.honeypotLabel);
      // Tab from the message goes to the button.
      await page.getByLabel(fields.message.label, { exact: false }).first().focus();
      await page.keyboard.press("Tab");
      await expect(page.getByRole("button", { name: form.submitLabel }).first()).toBeFocused();
      expect(
        await trap.evaluate((input: HTMLInputElement) => ({
          autocomplete: input.getAttribute("autocomplete"),
          value: input.value,
          inForm: input.form !== null,
        })),
      ).toEqual({ autocomplete: "off", value: "", inForm: true });
    });

    test("explains each problem on its field and moves focus to the first", async ({ page }) => {
      await page.goto("/");
      await expectHydrated(page);
      const section = page.locator("#contact");
      await section.getByLabel(fields.email.label, { exact: false }).fill("not-an-email");
      await section.getByRole("button", { name: form.submitLabel }).click();

      const name = section.getByLabel(fields.fullName.label, { exact: false });
      await expect(name).toHaveAttribute("aria-invalid", "true");
      await expect(name).toBeFocused();
      /** The texts of the elements that describe a field (aria-describedby). */
      const describedBy = async (label: string) => {
        const ids = (await section.getByLabel(label, { exact: false }).getAttribute("aria-describedby")) ?? "";
        return Promise.all(ids.split(" ").map((id) => page.locator(`#${id}`).innerText()));
      };
      await expect.poll(() => describedBy(fields.fullName.label)).toContain(fields.fullName.errors.required!);
      await expect.poll(() => describedBy(fields.email.label)).toContain(fields.email.errors.invalid!);
      await expect.poll(() => describedBy(fields.message.label)).toContain(fields.message.errors.required!);
    });
  });
}
