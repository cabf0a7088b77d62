import { newDraftSession } from "../src/inquiry/draft";
import { categoryOptions, complianceOptions, mailtoHref } from "../src/inquiry/displayed-fields";
import { controlFor, localIsoDate, typedBeforeHydration } from "../src/inquiry/form-controls";
import { honeypotField, idempotencyKeyPattern, quoteRequestPath, requestFromSearch } from "../src/inquiry/protocol";
import { requestBody } from "../src/inquiry/send-inquiry";
import { emptyInquiry, normalizeInquiry } from "../src/inquiry/values";
import { categories, complianceOptions as marks, inquiryContent } from "./fixtures/content";

const fields = inquiryContent.formFields;

describe("the control of each field", () => {
  it("gives the text fields their input types and the message a textarea of the default height", () => {
    const kind = (name: Parameters<typeof controlFor>[0]) =>
      controlFor(name, fields[name], inquiryContent.inquiryTypes, categories);
    expect(kind("fullName")).toEqual({ kind: "text" });
    expect(kind("organization")).toEqual({ kind: "text" });
    expect(kind("email")).toEqual({ kind: "email" });
    expect(kind("phone")).toEqual({ kind: "tel" });
    expect(kind("needBy")).toEqual({ kind: "date" });
    expect(kind("message")).toEqual({ kind: "textarea" });
    expect(kind("quantities")).toEqual({ kind: "textarea", rows: 3 });
  });

  it("offers the inquiry types as they are, always answered, and the other selects after an empty choice worded by the placeholder", () => {
    expect(controlFor("inquiryType", fields.inquiryType, inquiryContent.inquiryTypes, categories)).toEqual({
      kind: "select",
      options: inquiryContent.inquiryTypes,
      alwaysAnswered: true,
    });
    expect(controlFor("productCategory", fields.productCategory, inquiryContent.inquiryTypes, categories)).toEqual({
      kind: "select",
      options: [{ value: "", label: "Choose a category" }, ...categories],
    });
    expect(controlFor("shipToState", fields.shipToState, inquiryContent.inquiryTypes, categories)).toEqual({
      kind: "select",
      options: [{ value: "", label: "Choose a state" }, ...(fields.shipToState.options ?? [])],
    });
    expect(controlFor("buyingMethod", { placeholder: null, options: null }, [], [])).toEqual({
      kind: "select",
      options: [{ value: "", label: "" }],
    });
  });
});

describe("what the visitor typed before the script ran", () => {
  const form = (html: string) => {
    const element = document.createElement("form");
    element.innerHTML = html;
    return element;
  };

  it("is every control whose value differs from the server's, the ticked boxes as a list", () => {
    const element = form(`
      <input name="fullName" value="Pat">
      <input name="email" value="">
      <select name="inquiryType"><option value="general">G</option><option value="quote" selected>Q</option></select>
      <textarea name="message">Hello</textarea>
      <input type="checkbox" name="compliance" value="taa">
      <input type="checkbox" name="compliance" value="usa" checked>
      <input name="${honeypotField}" value="spam">`);
    expect(typedBeforeHydration(element, emptyInquiry("general"))).toEqual({
      fullName: "Pat",
      inquiryType: "quote",
      message: "Hello",
      compliance: ["usa"],
    });
  });

  it("is nothing when the form is as the server rendered it, or lacks the quote fields", () => {
    const element = form(`
      <input name="fullName" value="">
      <select name="inquiryType"><option value="general" selected>G</option></select>`);
    expect(typedBeforeHydration(element, emptyInquiry("general"))).toEqual({});
  });
});

describe("today's date for the date picker", () => {
  it("is the visitor's local date as YYYY-MM-DD", () => {
    expect(localIsoDate(new Date(2027, 0, 5, 23, 59))).toBe("2027-01-05");
    expect(localIsoDate(new Date(2027, 11, 31, 0, 0))).toBe("2027-12-31");
  });
});

describe("the choices from other content", () => {
  it("turn product categories and compliance marks into options", () => {
    expect(categoryOptions([{ slug: "tactical", shortTitle: "Tactical" }])).toEqual([
      { value: "tactical", label: "Tactical" },
    ]);
    expect(complianceOptions([{ id: "taa", name: "TAA compliant" }])).toEqual([
      { value: "taa", label: "TAA compliant" },
    ]);
  });
});

describe("the email a visitor can send themselves", () => {
  const values = {
    ...emptyInquiry("quote"),
    fullName: "Pat Doe",
    email: "pat@example.gov",
    productCategory: "tactical",
    compliance: ["taa", "usa"],
    message: "  Forty shirts.  ",
  };
  const choices = { productCategories: categories, complianceOptions: marks };

  it("is addressed to the desk, names the inquiry type, lists the answers and ends with the message", () => {
    const href = mailtoHref("desk@fixture.example", inquiryContent, choices, values);
    expect(href.startsWith("mailto:desk@fixture.example?")).toBe(true);
    const params = new URLSearchParams(href.split("?")[1]);
    expect(params.get("subject")).toBe("Website inquiry: Request a quote");
    expect(params.get("body")).toBe(
      "Full Name: Pat Doe\nEmail Address: pat@example.gov\nInquiry Type: Request a quote\n" +
        "Product category: Fixture Tactical\nCompliance required: Fixture TAA, Fixture USA\n\nForty shirts.",
    );
  });

  it("leaves the quote answers out of another inquiry type", () => {
    const href = mailtoHref("desk@fixture.example", inquiryContent, choices, { ...values, inquiryType: "general" });
    expect(new URLSearchParams(href.split("?")[1]).get("body")).not.toMatch(/Product category|Compliance/);
  });
});

describe("the body of a send", () => {
  const values = { ...emptyInquiry("quote"), fullName: "Pat", productCategory: "tactical", compliance: ["taa"] };
  const key = "0f8e1c9a-4b2d-4e6f-8a1b-2c3d4e5f6a7b";

  it("holds the answers, the honeypot, the fill time and the key", () => {
    expect(requestBody(values, { quote: true, honeypot: "x", fillMs: 4_200, idempotencyKey: key })).toEqual({
      ...values,
      [honeypotField]: "x",
      fill_ms: 4_200,
      idempotency_key: key,
    });
  });

  it("leaves out the quote fields unless the inquiry is a quote request, and never counts time backwards", () => {
    const body = requestBody(values, { quote: false, honeypot: "", fillMs: -5, idempotencyKey: key });
    expect(Object.keys(body)).toEqual([
      "fullName",
      "organization",
      "email",
      "phone",
      "inquiryType",
      "message",
      honeypotField,
      "fill_ms",
      "idempotency_key",
    ]);
    expect(body.fill_ms).toBe(0);
  });
});

describe("the links to the form", () => {
  it("read the type and category an address asks for", () => {
    expect(requestFromSearch("?type=quote&category=tactical")).toEqual({ type: "quote", category: "tactical" });
    expect(requestFromSearch("")).toEqual({ type: null, category: null });
  });

  it("open the quote page, for one category if given", () => {
    expect(quoteRequestPath()).toBe("/contact/quote/");
    expect(quoteRequestPath("office furniture")).toBe("/contact/quote/?category=office+furniture");
  });
});

describe("a new inquiry's session", () => {
  it("starts when it is told and has a key of its own that the server accepts", () => {
    const first = newDraftSession(1_234);
    const second = newDraftSession(1_234);
    expect(first.startedAt).toBe(1_234);
    expect(first.idempotencyKey).toMatch(idempotencyKeyPattern);
    expect(second.idempotencyKey).not.toBe(first.idempotencyKey);
  });
});

describe("normalizing the answers", () => {
  const controls = [
    ...Array.from({ length: 0x20 }, (_, code) => code),
    ...Array.from({ length: 0x21 }, (_, offset) => 0x7f + offset),
    0x202a,
    0x202b,
    0x202c,
    0x202d,
    0x202e,
    0x2066,
    0x2067,
    0x2068,
    0x2069,
  ].map((code) => String.fromCharCode(code));
  const rules = { quoteType: "quote" };

  it("removes every C0 and C1 control and bidirectional override from a one-line field", () => {
    // Line breaks (of every kind) and tabs become a space; everything else goes.
    const spaced = ["\t", "\n", "\r", "\u0085"];
    for (const control of controls) {
      expect([control, normalizeInquiry(rules, { fullName: `Pat${control}Doe` }).fullName]).toEqual([
        control,
        spaced.includes(control) ? "Pat Doe" : "PatDoe",
      ]);
    }
    expect(normalizeInquiry(rules, { fullName: "Pat\r\n\tDoe" }).fullName).toBe("Pat Doe");
  });

  it("keeps the line breaks of a multi-line field, as \\n, and removes the other controls", () => {
    for (const control of controls.filter((character) => !["\n", "\r", "\u0085"].includes(character))) {
      expect([control, normalizeInquiry(rules, { message: `One${control}two` }).message]).toEqual([control, "Onetwo"]);
    }
    expect(normalizeInquiry(rules, { message: "One\r\ntwo\rthree\u2028four\u0085five\nsix" }).message).toBe(
      "One\ntwo\nthree\nfour\nfive\nsix",
    );
  });

  it("keeps every printable character, accents and symbols included", () => {
    const text = "Zoë O'Brien-Łukasz 〒 € ½ (919) 555-0100";
    expect(normalizeInquiry(rules, { fullName: text, message: text })).toMatchObject({ fullName: text, message: text });
  });
});
