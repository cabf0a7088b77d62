import { render, screen } from "@testing-library/react";
import { renderToString } from "react-dom/server";
import { RichText } from "../src/components/ui/RichText";

const company = {
  contact: { email: "desk@fixture.example", phone: { display: "(919) 555-0100", tel: "+19195550100" } },
  hours: { display: "Fixture hours" },
};

describe("RichText", () => {
  it("fills the figures a page passes, next to the company's own details", () => {
    render(
      <p>
        <RichText
          text="Kept {inquiryRetentionMonths} months; ask {email}."
          company={company}
          values={{ inquiryRetentionMonths: "24" }}
        />
      </p>,
    );
    expect(screen.getByText(/Kept 24 months; ask/)).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "desk@fixture.example" })).toHaveAttribute(
      "href",
      "mailto:desk@fixture.example",
    );
  });

  it("refuses a placeholder the page gives no value for, instead of printing it to visitors", () => {
    expect(() => renderToString(<RichText text="Kept {inquiryRetentionMonths} months." company={company} />)).toThrow(
      "The text uses {inquiryRetentionMonths}, which this page does not provide",
    );
  });
});
