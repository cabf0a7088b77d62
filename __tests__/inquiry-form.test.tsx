import { act, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { inquiryFormElement, reply, sentBody, withMockedFetch } from "./support/inquiry-form";
import { InquiryForm } from "../src/components/inquiry/InquiryForm";
import { localIsoDate } from "../src/inquiry/form-controls";
import type { InquiryFormContent } from "../src/inquiry/form-state";
import { honeypotField, retiredHoneypotFields } from "../src/inquiry/protocol";
import { inquiryFieldNames } from "../src/inquiry/values";
import { categories, company, complianceOptions, inquiryContent } from "./fixtures/content";

const renderForm = (type?: string, category?: string) => render(inquiryFormElement(type, category));

const fill = async (user: ReturnType<typeof userEvent.setup>, label: RegExp, value: string) => {
  const field = screen.getByLabelText(label);
  await user.clear(field);
  await user.type(field, value);
};

// No React warning (act, keys, hydration, controlled inputs) and no other console error.
const fetchMock = jest.fn<Promise<Response>, Parameters<typeof fetch>>();
withMockedFetch(fetchMock);

describe("InquiryForm", () => {
  it("has the specified fields, each labelled, with the right types and autocomplete", () => {
    renderForm();
    expect(screen.getByLabelText(/Full Name/)).toHaveAttribute("type", "text");
    expect(screen.getByLabelText(/Full Name/)).toHaveAttribute("autocomplete", "name");
    expect(screen.getByLabelText(/Agency\/Organization/)).toHaveAttribute("autocomplete", "organization");
    expect(screen.getByLabelText(/Email Address/)).toHaveAttribute("type", "email");
    expect(screen.getByLabelText(/Email Address/)).toHaveAttribute("autocomplete", "email");
    expect(screen.getByLabelText(/Phone Number/)).toHaveAttribute("type", "tel");
    expect(screen.getByLabelText(/Phone Number/)).toHaveAttribute("autocomplete", "tel");
    expect(screen.getByLabelText(/Message/)).toHaveAttribute("placeholder", "How can we assist you?");
    expect(screen.getByLabelText(/Message/).tagName).toBe("TEXTAREA");
    expect(screen.getByRole("button", { name: "Submit Inquiry" })).toHaveAttribute("type", "submit");
  });

  it("posts to the inquiry function without JavaScript, each control named after its field", () => {
    const { container } = renderForm("quote");
    const form = screen.getByRole("form", { name: "Send us a message" });
    expect(form).toHaveAttribute("action", "/api/inquiry");
    expect(form).toHaveAttribute("method", "post");
    expect(form).toHaveAttribute("novalidate");
    expect(form).not.toHaveAttribute("enctype");

    const named = (name: string) => container.querySelectorAll(`[name="${name}"]`);
    for (const name of [...inquiryFieldNames.filter((field) => field !== "compliance"), honeypotField])
      expect(named(name)).toHaveLength(1);
    const boxes = Array.from(named("compliance")) as HTMLInputElement[];
    expect(boxes.map((box) => [box.type, box.value])).toEqual([
      ["checkbox", "taa"],
      ["checkbox", "berry"],
      ["checkbox", "usa"],
    ]);
    // Every control posts something, and no id is used twice.
    const controls = Array.from(form.querySelectorAll("input, select, textarea"));
    expect(controls.every((control) => control.getAttribute("name"))).toBe(true);
    const ids = Array.from(container.querySelectorAll("[id]")).map((element) => element.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("has a honeypot field off-screen, out of the tab order and hidden from assistive technology", () => {
    const { container } = renderForm();
    const trap = container.querySelector<HTMLInputElement>(`input[name="${honeypotField}"]`)!;
    expect(trap).toHaveAttribute("tabindex", "-1");
    expect(trap).toHaveValue("");
    expect(container.querySelector(`label[for="${trap.id}"]`)).toHaveTextContent("Fixture: leave this empty");
    const wrapper = trap.parentElement!;
    expect(wrapper).toHaveAttribute("aria-hidden", "true");
    // Inert: no focus, no clicks, nothing for assistive technology, and nothing for autofill to fill.
    expect(wrapper).toHaveAttribute("inert", "");
    expect(wrapper).toHaveStyle({ position: "absolute", left: "-10000px", width: "1px", overflow: "hidden" });
    expect(wrapper).not.toHaveStyle({ display: "none" });
    expect(wrapper).not.toHaveStyle({ visibility: "hidden" });
    expect(screen.queryByRole("textbox", { name: "Fixture: leave this empty" })).not.toBeInTheDocument();
  });

  it("gives the honeypot a name, id and markup that no browser's autofill or password manager fills", () => {
    const { container } = renderForm();
    const trap = container.querySelector<HTMLInputElement>(`input[name="${honeypotField}"]`)!;
    const label = container.querySelector(`label[for="${trap.id}"]`)?.textContent ?? "";
    // The words browsers' autofill heuristics look for in a field's name, id and label (Chromium's
    // autofill_regex_constants, Firefox's heuristics): the old name, company_website, matched "company".
    const autofillWords =
      /name|company|organi[sz]ation|business|firm|web|site|url|homepage|e.?mail|phone|tel|mobile|fax|addr|street|city|town|state|province|region|zip|postal|country|user|login|pass|card|cvc|expir|title|first|last|search|query|contact|org\b/i;
    for (const text of [trap.name, trap.id, label]) expect([text, autofillWords.test(text)]).toEqual([text, false]);
    expect(retiredHoneypotFields).toContain("company_website");
    expect(honeypotField).not.toBe("company_website");
    expect(trap).toHaveAttribute("type", "text");
    expect(trap).toHaveAttribute("autocomplete", "off");
    const passwordManagersIgnore: [string, string][] = [
      ["data-1p-ignore", "true"],
      ["data-lpignore", "true"],
      ["data-bwignore", "true"],
      ["data-form-type", "other"],
    ];
    for (const [attribute, value] of passwordManagersIgnore) expect(trap).toHaveAttribute(attribute, value);
  });

  it("offers the inquiry types and starts on the default", () => {
    renderForm();
    const select = screen.getByLabelText(/Inquiry Type/);
    expect(select).toHaveValue("general");
    expect(screen.getByRole("option", { name: "Request a quote" })).toBeInTheDocument();
  });

  it("opens as a quote request when the link that brought the visitor asked for one", () => {
    renderForm("quote");
    expect(screen.getByLabelText(/Inquiry Type/)).toHaveValue("quote");
  });

  it("asks for the product category only for a quote, preselected from the link", async () => {
    const user = userEvent.setup();
    renderForm("quote", "tactical");
    expect(screen.getByLabelText(/Product category/)).toHaveValue("tactical");
    await user.selectOptions(screen.getByLabelText(/Inquiry Type/), "general");
    expect(screen.queryByLabelText(/Product category/)).not.toBeInTheDocument();
    await user.selectOptions(screen.getByLabelText(/Inquiry Type/), "quote");
    expect(screen.getByLabelText(/Product category/)).toHaveValue("tactical");
  });

  it("shows the quote fields only while the type is a quote request", async () => {
    const user = userEvent.setup();
    renderForm();
    const quoteLabels = [/Product category/, /Quantities and sizes/, /Need-by date/, /Ship-to state/, /Buying method/];
    for (const label of quoteLabels) expect(screen.queryByLabelText(label)).not.toBeInTheDocument();
    expect(screen.queryByRole("group", { name: /Compliance required/ })).not.toBeInTheDocument();

    await user.selectOptions(screen.getByLabelText(/Inquiry Type/), "quote");
    const quantities = screen.getByLabelText(/Quantities and sizes/);
    expect(quantities.tagName).toBe("TEXTAREA");
    expect(quantities).toHaveAttribute("rows", "3");
    expect(quantities).toHaveAccessibleDescription("Fixture quantities hint.");
    const needBy = screen.getByLabelText(/Need-by date/);
    expect(needBy).toHaveAttribute("type", "date");
    expect(needBy).toHaveAttribute("min", localIsoDate(new Date()));
    const state = screen.getByLabelText(/Ship-to state/);
    expect(state).toHaveValue("");
    expect(state).toHaveAttribute("autocomplete", "shipping address-level1");
    expect(
      within(state)
        .getAllByRole("option")
        .map((option) => option.textContent),
    ).toEqual(["Choose a state", "Fixture North Carolina", "Fixture Virginia"]);
    expect(within(screen.getByLabelText(/Buying method/)).getAllByRole("option")).toHaveLength(3);
    expect(within(screen.getByLabelText(/Product category/)).getAllByRole("option")[0]).toHaveTextContent(
      "Choose a category",
    );
    const group = screen.getByRole("group", { name: "Compliance required" });
    expect(group.tagName).toBe("FIELDSET");
    expect(group).toHaveAccessibleDescription("Fixture compliance hint.");
    expect(
      within(group)
        .getAllByRole("checkbox")
        .map((box) => box.getAttribute("value")),
    ).toEqual(["taa", "berry", "usa"]);
    await user.click(within(group).getByRole("checkbox", { name: "Fixture Berry" }));
    expect(within(group).getByRole("checkbox", { name: "Fixture Berry" })).toBeChecked();
    // The message stays the last field.
    const controls = Array.from(document.querySelectorAll("form input:not([tabindex]), form select, form textarea"));
    expect(controls[controls.length - 1]).toBe(screen.getByLabelText(/Message/));

    await user.selectOptions(screen.getByLabelText(/Inquiry Type/), "general");
    for (const label of quoteLabels) expect(screen.queryByLabelText(label)).not.toBeInTheDocument();
    expect(screen.queryByRole("group", { name: /Compliance required/ })).not.toBeInTheDocument();
  });

  it("ignores a category it does not know", () => {
    renderForm("quote", "jetpacks");
    expect(screen.getByLabelText(/Product category/)).toHaveValue("");
  });

  it("asks the inquiry type as a choice that always holds a type, so neither required nor marked so", () => {
    renderForm("quote");
    // Named by its label alone, without the required marker.
    const select = screen.getByRole("combobox", { name: "Inquiry Type" });
    // HTML allows `required` on a select only after an empty placeholder; this one offers only the types.
    expect(select).not.toBeRequired();
    expect(
      within(select)
        .getAllByRole("option")
        .map((option) => option.getAttribute("value")),
    ).toEqual(inquiryContent.inquiryTypes.map((type) => type.value));
    expect(select).toHaveValue("quote");
    // The fields the visitor can leave empty still are.
    expect(screen.getByRole("textbox", { name: /^Full Name/ })).toBeRequired();
    expect(screen.getByRole("combobox", { name: "Product category" })).not.toBeRequired();
  });

  it("ignores an inquiry type it does not know", () => {
    renderForm("free-stuff");
    expect(screen.getByLabelText(/Inquiry Type/)).toHaveValue("general");
  });

  it("marks each missing required field, ties the message to it and focuses the first", async () => {
    const user = userEvent.setup();
    renderForm();
    await user.click(screen.getByRole("button", { name: "Submit Inquiry" }));

    const name = screen.getByLabelText(/Full Name/);
    expect(name).toHaveAttribute("aria-invalid", "true");
    expect(name).toHaveAccessibleDescription("Enter your full name.");
    expect(name).toHaveFocus();
    expect(screen.getByLabelText(/Email Address/)).toHaveAccessibleDescription("Enter your email address.");
    expect(screen.getByLabelText(/Message/)).toHaveAccessibleDescription("Enter your message.");
    expect(screen.getByLabelText(/Phone Number/)).not.toHaveAttribute("aria-invalid");
    expect(screen.getByRole("alert")).toHaveTextContent("Please correct the highlighted fields.");
  });

  it("rejects a malformed email and phone number and a message that is too short", async () => {
    const user = userEvent.setup();
    renderForm();
    await fill(user, /Full Name/, "Pat Doe");
    await fill(user, /Email Address/, "pat.doe@");
    await fill(user, /Phone Number/, "call me");
    await fill(user, /Message/, "Too short");
    await user.click(screen.getByRole("button", { name: "Submit Inquiry" }));

    expect(screen.getByLabelText(/Email Address/)).toHaveAccessibleDescription(
      "Enter an email address like name@agency.gov.",
    );
    expect(screen.getByLabelText(/Email Address/)).toHaveFocus();
    expect(screen.getByLabelText(/Phone Number/)).toHaveAccessibleDescription("Enter a valid phone number.");
    expect(screen.getByLabelText(/Message/)).toHaveAccessibleDescription("Message must be at least 10 characters.");
  });

  it("rejects a need-by date in the past on the quote fields, with nothing sent", async () => {
    const user = userEvent.setup();
    renderForm("quote");
    await fill(user, /Full Name/, "Pat Doe");
    await fill(user, /Email Address/, "pat.doe@example.gov");
    await fill(user, /Message/, "Forty Class B shirts, sizes attached.");
    await user.type(screen.getByLabelText(/Need-by date/), "2020-01-31");
    expect(screen.getByLabelText(/Need-by date/)).toHaveValue("2020-01-31");
    await user.click(screen.getByRole("button", { name: "Submit Inquiry" }));

    const needBy = screen.getByLabelText(/Need-by date/);
    expect(needBy).toHaveAttribute("aria-invalid", "true");
    expect(needBy).toHaveAccessibleDescription("Fixture need-by hint. Enter a need-by date from today on.");
    expect(needBy).toHaveFocus();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("clears a message as soon as the visitor corrects the field", async () => {
    const user = userEvent.setup();
    renderForm();
    await user.click(screen.getByRole("button", { name: "Submit Inquiry" }));
    await user.type(screen.getByLabelText(/Full Name/), "Pat Doe");
    expect(screen.getByLabelText(/Full Name/)).not.toHaveAttribute("aria-invalid");
    expect(screen.queryByText("Enter your full name.")).not.toBeInTheDocument();
  });
});

describe("InquiryForm before its script runs", () => {
  const hydrate = async (content: InquiryFormContent) => {
    const { renderToString } = await import("react-dom/server");
    const { hydrateRoot } = await import("react-dom/client");
    const element = (
      <InquiryForm
        content={content}
        categories={categories}
        complianceOptions={complianceOptions}
        company={company}
        headingLevel={2}
      />
    );
    const container = document.createElement("div");
    container.innerHTML = renderToString(element);
    document.body.appendChild(container);
    return {
      container,
      start: () => {
        let root: ReturnType<typeof hydrateRoot> | undefined;
        act(() => {
          root = hydrateRoot(container, element);
        });
        return () => {
          act(() => root?.unmount());
          container.remove();
        };
      },
    };
  };

  it("keeps what the visitor typed into the server-rendered form before hydration", async () => {
    const { container, start } = await hydrate(inquiryContent);
    container.querySelector<HTMLInputElement>("#inquiry-fullName")!.value = "Typed Early";
    const stop = start();
    await userEvent.click(screen.getByRole("button", { name: "Submit Inquiry" }));
    expect(screen.getByLabelText(/Full Name/)).toHaveValue("Typed Early");
    expect(screen.getByLabelText(/Full Name/)).not.toHaveAttribute("aria-invalid");
    stop();
  });

  it("keeps early answers in the quote fields and checkboxes too, and dates the picker only in the browser", async () => {
    const { container, start } = await hydrate({ ...inquiryContent, defaultType: "quote" });
    const needBy = container.querySelector<HTMLInputElement>('[name="needBy"]')!;
    // The build has no idea what "today" is for the visitor.
    expect(needBy).not.toHaveAttribute("min");
    container.querySelector<HTMLTextAreaElement>('[name="quantities"]')!.value = "12 parkas";
    container.querySelector<HTMLSelectElement>('[name="shipToState"]')!.value = "VA";
    container.querySelector<HTMLInputElement>('[name="compliance"][value="usa"]')!.checked = true;
    const stop = start();

    expect(screen.getByLabelText(/Need-by date/)).toHaveAttribute("min", localIsoDate(new Date()));
    // Unticking another box re-renders the form from its state: the early answers must be in it.
    await userEvent.click(screen.getByRole("checkbox", { name: "Fixture TAA" }));
    expect(screen.getByLabelText(/Quantities and sizes/)).toHaveValue("12 parkas");
    expect(screen.getByLabelText(/Ship-to state/)).toHaveValue("VA");
    expect(screen.getByRole("checkbox", { name: "Fixture USA" })).toBeChecked();
    expect(screen.getByRole("checkbox", { name: "Fixture TAA" })).toBeChecked();
    expect(screen.getByLabelText(/Inquiry Type/)).toHaveValue("quote");
    stop();
  });

  it("counts the time spent from the page's start when the visitor typed before its script ran", async () => {
    const pageStart = Math.round(performance.timeOrigin);
    let clock = pageStart + 90_000;
    // Restored after the test by withMockedFetch (jest.restoreAllMocks).
    jest.spyOn(Date, "now").mockImplementation(() => clock);
    fetchMock.mockResolvedValue(reply(201, { reference: "CRS-EARLY" }));
    const { container, start } = await hydrate(inquiryContent);
    container.querySelector<HTMLInputElement>('[name="fullName"]')!.value = "Pat Doe";
    container.querySelector<HTMLInputElement>('[name="email"]')!.value = "pat.doe@example.gov";
    container.querySelector<HTMLTextAreaElement>('[name="message"]')!.value = "Winter parkas for the road crew.";
    const stop = start();
    clock += 5_000;
    await userEvent.click(screen.getByRole("button", { name: "Submit Inquiry" }));
    expect(await screen.findByRole("status")).toHaveTextContent("CRS-EARLY");
    // Begun before the page ran: 90 s before the script took over, 5 s after.
    expect(sentBody(fetchMock).fill_ms).toBe(95_000);
    stop();
  });
});
