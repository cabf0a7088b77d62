import path from "node:path";
import { readInquiryContent } from "../server/inquiries/content-on-disk";
import { checkInquiry } from "../src/inquiry/validation";
import { quoteInquiry, validInquiry } from "./support/inquiry-posts";

const content = readInquiryContent(path.resolve("content"));
const { form, choices } = content;
const needByMessage = form.formFields.needBy.errors.invalid;

const noon = (isoDate: string) => new Date(`${isoDate}T12:00:00Z`);

/** What the form and the server show: one message per field at fault, none for an acceptable inquiry. */
const errorsOf = (rules: typeof form, choiceLists: typeof choices, raw: unknown, now: Date) => {
  const result = checkInquiry(rules, choiceLists, raw, now);
  return result.ok ? {} : result.errors;
};

describe("checkInquiry", () => {
  it("accepts the form's inquiries and trims what it returns", () => {
    const result = checkInquiry(form, choices, { ...validInquiry, fullName: "  Pat Buyer  " }, noon("2027-01-10"));
    expect(result.ok && result.values.fullName).toBe("Pat Buyer");
    expect(checkInquiry(form, choices, quoteInquiry, noon("2027-01-10")).ok).toBe(true);
  });

  it("refuses an inquiry with no type or a type not on offer, which the form's select (not `required`) cannot send", () => {
    const now = noon("2027-01-10");
    const { errors } = form.formFields.inquiryType;
    expect(errorsOf(form, choices, { ...validInquiry, inquiryType: "" }, now)).toEqual({
      inquiryType: errors.required,
    });
    expect(errorsOf(form, choices, { ...validInquiry, inquiryType: "rocket" }, now)).toEqual({
      inquiryType: errors.invalid,
    });
  });

  it("judges a need-by date against the day it is checked on, though the rules stay the same", () => {
    const inquiry = { ...quoteInquiry, needBy: "2027-01-10" };
    // The same date, the same rules and choices: first on its day and the day after (a visitor west of
    // UTC may still be on it), then two days later, when the schema built for the earlier day must not serve.
    expect(errorsOf(form, choices, inquiry, noon("2027-01-10"))).toEqual({});
    expect(errorsOf(form, choices, inquiry, noon("2027-01-11"))).toEqual({});
    expect(errorsOf(form, choices, inquiry, noon("2027-01-12"))).toEqual({ needBy: needByMessage });
    expect(errorsOf(form, choices, inquiry, noon("2027-01-10"))).toEqual({});
  });

  it("applies rules that changed since the last check", () => {
    const inquiry = { ...validInquiry, message: "x".repeat(40) };
    const now = noon("2027-01-10");
    expect(errorsOf(form, choices, inquiry, now)).toEqual({});
    const stricter = {
      ...form,
      formFields: { ...form.formFields, message: { ...form.formFields.message, maxLength: 30 } },
    };
    expect(errorsOf(stricter, choices, inquiry, now)).toEqual({ message: form.formFields.message.errors.tooLong });
    expect(errorsOf(form, choices, inquiry, now)).toEqual({});
  });

  it("applies choices that changed since the last check", () => {
    const inquiry = { ...quoteInquiry, productCategory: "uniforms" };
    const now = noon("2027-01-10");
    expect(errorsOf(form, choices, inquiry, now)).toEqual({});
    const fewer = {
      ...choices,
      productCategories: choices.productCategories.filter((option) => option.value !== "uniforms"),
    };
    expect(errorsOf(form, fewer, inquiry, now)).toEqual({
      productCategory: form.formFields.productCategory.errors.invalid,
    });
  });
});
