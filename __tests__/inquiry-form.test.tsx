import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { InquiryForm } from "../src/components/inquiry/InquiryForm";
import { categories, inquiryContent } from "./fixtures/content";

const renderForm = (type?: string, category?: string) =>
  render(
    <InquiryForm
      content={inquiryContent}
      categories={categories}
      email="desk@fixture.example"
      requested={{ type, category }}
      headingLevel={2}
    />,
  );

const fill = async (user: ReturnType<typeof userEvent.setup>, label: RegExp, value: string) => {
  const field = screen.getByLabelText(label);
  await user.clear(field);
  await user.type(field, value);
};

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

  it("ignores a category it does not know", () => {
    renderForm("quote", "jetpacks");
    expect(screen.getByLabelText(/Product category/)).toHaveValue("");
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

  it("clears a message as soon as the visitor corrects the field", async () => {
    const user = userEvent.setup();
    renderForm();
    await user.click(screen.getByRole("button", { name: "Submit Inquiry" }));
    await user.type(screen.getByLabelText(/Full Name/), "Pat Doe");
    expect(screen.getByLabelText(/Full Name/)).not.toHaveAttribute("aria-invalid");
    expect(screen.queryByText("Enter your full name.")).not.toBeInTheDocument();
  });

  it("does not claim to send a valid inquiry, keeps it, and offers it to the visitor's email app", async () => {
    const user = userEvent.setup();
    renderForm("quote");
    await fill(user, /Full Name/, "Pat Doe");
    await fill(user, /Agency\/Organization/, "Wake County Sheriff's Office");
    await fill(user, /Email Address/, "pat.doe@example.gov");
    await fill(user, /Phone Number/, "(919) 555-0199");
    await fill(user, /Message/, "Forty Class B shirts, sizes attached.");
    await user.click(screen.getByRole("button", { name: "Submit Inquiry" }));

    const status = screen.getByRole("status");
    expect(status).toHaveTextContent("Not sent yet");
    expect(status).toHaveTextContent("Nothing has been sent.");
    expect(status).toHaveFocus();
    expect(document.body).not.toHaveTextContent(/thank you|successfully|we (have )?received/i);
    expect(screen.getByLabelText(/Full Name/)).toHaveValue("Pat Doe");

    const mailto = screen.getByRole("link", { name: "Open in email app" }).getAttribute("href")!;
    expect(mailto.startsWith("mailto:desk@fixture.example?")).toBe(true);
    const params = new URLSearchParams(mailto.split("?")[1]);
    expect(params.get("subject")).toBe("Website inquiry: Request a quote");
    expect(params.get("body")).toContain("Agency/Organization: Wake County Sheriff's Office");
    expect(params.get("body")).toContain("Forty Class B shirts, sizes attached.");
    expect(params.get("body")).not.toContain("Product category");
  });
});

describe("InquiryForm before its script runs", () => {
  it("keeps what the visitor typed into the server-rendered form before hydration", async () => {
    const { renderToString } = await import("react-dom/server");
    const { hydrateRoot } = await import("react-dom/client");
    const { act } = await import("@testing-library/react");
    const element = (
      <InquiryForm content={inquiryContent} categories={categories} email="desk@fixture.example" headingLevel={2} />
    );
    const container = document.createElement("div");
    container.innerHTML = renderToString(element);
    document.body.appendChild(container);
    (container.querySelector("#inquiry-fullName") as HTMLInputElement).value = "Typed Early";
    await act(async () => {
      hydrateRoot(container, element);
    });
    await userEvent.click(screen.getByRole("button", { name: "Submit Inquiry" }));
    expect(screen.getByLabelText(/Full Name/)).toHaveValue("Typed Early");
    expect(screen.getByLabelText(/Full Name/)).not.toHaveAttribute("aria-invalid");
  });
});
