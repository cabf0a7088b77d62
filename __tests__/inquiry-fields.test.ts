import fs from "node:fs";
import path from "node:path";
import { inquirySchema } from "../src/content-contract/schema";
import { emptyInquiry, inquiryFieldNames } from "../src/inquiry/values";
import { contractFields } from "./support/contract-fields";

/**
 * The form's fields are listed once, in src/inquiry/values.ts; the contract,
 * the GraphQL types and the empty inquiry are built from that list. A GraphQL
 * query cannot be built, so these tests hold the form's fragment to it.
 */

const fragmentSource = fs.readFileSync(path.join(__dirname, "..", "src", "fragments", "inquiry-form.ts"), "utf8");

/** The field paths a fragment selects, nested selections included: ["options"], ["options", "value"], … */
const selectedPaths = (fragment: string): string[][] => {
  const body = new RegExp(`fragment ${fragment} on \\w+ \\{`).exec(fragmentSource);
  if (!body) throw new Error(`no fragment ${fragment} in src/fragments/inquiry-form.ts`);
  const tokens = fragmentSource.slice(body.index + body[0].length).match(/\.\.\.\w+|\w+|[{}]/g) ?? [];
  const paths: string[][] = [];
  const open: string[] = [];
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index] ?? "";
    if (token === "}") {
      // The brace that closes the fragment itself ends it.
      if (open.length === 0) break;
      open.pop();
    } else if (!token.startsWith("...") && token !== "{") {
      paths.push([...open, token]);
      if (tokens[index + 1] === "{") {
        open.push(token);
        index += 1;
      }
    }
  }
  return paths;
};

describe("the inquiry form's fields", () => {
  it("are one list that the contract's formFields follow, in order", () => {
    expect(Object.keys(inquirySchema.shape.formFields.shape)).toEqual([...inquiryFieldNames]);
  });

  it("are all in an empty inquiry, empty but for the inquiry type", () => {
    expect(Object.keys(emptyInquiry("quote"))).toEqual([...inquiryFieldNames]);
    expect(emptyInquiry("quote")).toMatchObject({ inquiryType: "quote", fullName: "", compliance: [] });
  });

  it("are exactly the ones the form's GraphQL fragment asks for", () => {
    const formFields = selectedPaths("InquiryFormContent")
      .filter((fieldPath) => fieldPath[0] === "formFields" && fieldPath.length === 2)
      .map((fieldPath) => fieldPath[1]);
    expect(formFields).toEqual([...inquiryFieldNames]);
  });

  it("are asked for with every property the contract gives a field", () => {
    const contract = contractFields(inquirySchema.shape.formFields.shape.fullName).map(({ path: keys }) => keys);
    expect(selectedPaths("InquiryFormField")).toEqual(contract);
  });
});
