import { act, fireEvent, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { inquiryFormElement, reply, sentBody as bodyOf, withMockedFetch } from "./support/inquiry-form";
import { draftKey } from "../src/inquiry/draft";
import { honeypotField } from "../src/inquiry/protocol";

type User = ReturnType<typeof userEvent.setup>;

/** A need-by date the rules accept: in the future, within five years. */
const needBy = `${new Date().getFullYear() + 1}-03-31`;

const fetchMock = jest.fn<Promise<Response>, Parameters<typeof fetch>>();

const deferred = () => {
  let resolve: (response: Response) => void = () => undefined;
  const promise = new Promise<Response>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
};

const sentBody = (call = 0) => bodyOf(fetchMock, call);

const renderForm = (type?: string, category?: string) => render(inquiryFormElement(type, category));

const fillValid = async (user: User) => {
  await user.type(screen.getByLabelText(/Full Name/), "  Pat Doe ");
  await user.type(screen.getByLabelText(/Agency\/Organization/), "Wake County Sheriff's Office");
  await user.type(screen.getByLabelText(/Email Address/), "pat.doe@example.gov");
  await user.type(screen.getByLabelText(/Message/), "Forty Class B shirts, sizes attached.");
};

const fillQuote = async (user: User) => {
  await user.selectOptions(screen.getByLabelText(/Product category/), "tactical");
  await user.type(screen.getByLabelText(/Quantities and sizes/), "40 shirts{Enter}10 S, 30 M");
  fireEvent.change(screen.getByLabelText(/Need-by date/), { target: { value: needBy } });
  await user.selectOptions(screen.getByLabelText(/Ship-to state/), "VA");
  await user.selectOptions(screen.getByLabelText(/Buying method/), "purchase-order");
  await user.click(screen.getByRole("checkbox", { name: "Fixture Berry" }));
  await user.click(screen.getByRole("checkbox", { name: "Fixture TAA" }));
};

const submit = (user: User) => user.click(screen.getByRole("button", { name: "Submit Inquiry" }));

withMockedFetch(fetchMock);

describe("sending an inquiry", () => {
  it("posts the answers as JSON with the honeypot and the time spent, without the quote fields", async () => {
    let clock = 1_000_000;
    jest.spyOn(Date, "now").mockImplementation(() => clock);
    fetchMock.mockResolvedValue(reply(201, { reference: "CRS-1" }));
    const user = userEvent.setup();
    renderForm();
    // The type was a quote for a while: what was chosen then is not sent with a general question.
    await user.selectOptions(screen.getByLabelText(/Inquiry Type/), "quote");
    await user.selectOptions(screen.getByLabelText(/Product category/), "uniforms");
    await user.selectOptions(screen.getByLabelText(/Inquiry Type/), "general");
    await fillValid(user);
    clock += 4_200;
    await submit(user);
    await screen.findByRole("status");

    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe("/api/inquiry");
    expect(init?.method).toBe("POST");
    expect(init?.headers).toEqual({ "Content-Type": "application/json", Accept: "application/json" });
    expect(sentBody()).toEqual({
      fullName: "Pat Doe",
      organization: "Wake County Sheriff's Office",
      email: "pat.doe@example.gov",
      phone: "",
      inquiryType: "general",
      message: "Forty Class B shirts, sizes attached.",
      [honeypotField]: "",
      fill_ms: 4_200,
      idempotency_key: expect.stringMatching(/^[0-9a-f-]{32,36}$/) as unknown,
    });
  });

  it("sends the quote fields with a quote request, and whatever software put in the honeypot", async () => {
    fetchMock.mockResolvedValue(reply(201, { reference: "CRS-2" }));
    const user = userEvent.setup();
    const { container } = renderForm("quote");
    await fillValid(user);
    await fillQuote(user);
    // Form-filling software sets values without typing.
    container.querySelector<HTMLInputElement>(`input[name="${honeypotField}"]`)!.value = "https://spam.example";
    await submit(user);
    await screen.findByRole("status");

    expect(sentBody()).toMatchObject({
      inquiryType: "quote",
      productCategory: "tactical",
      quantities: "40 shirts\n10 S, 30 M",
      needBy,
      shipToState: "VA",
      buyingMethod: "purchase-order",
      // In the order of the options, not the order they were ticked.
      compliance: ["taa", "berry"],
      [honeypotField]: "https://spam.example",
    });
    expect(typeof sentBody().fill_ms).toBe("number");
  });

  it("shows that it is sending and cannot be sent twice meanwhile", async () => {
    const answer = deferred();
    fetchMock.mockReturnValueOnce(answer.promise);
    const user = userEvent.setup();
    renderForm();
    await fillValid(user);
    await submit(user);

    const form = screen.getByRole("form", { name: "Send us a message" });
    const button = screen.getByRole("button", { name: "Sending…" });
    expect(button).toBeDisabled();
    expect(form).toHaveAttribute("aria-busy", "true");
    fireEvent.submit(form);
    fireEvent.submit(form);
    expect(fetchMock).toHaveBeenCalledTimes(1);

    await act(async () => {
      answer.resolve(reply(201, { reference: "CRS-3" }));
      await answer.promise;
    });
    expect(form).not.toHaveAttribute("aria-busy");
    expect(screen.getByRole("status")).toHaveTextContent("CRS-3");
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it("confirms a received inquiry with its reference, forgets the draft, and starts afresh on request", async () => {
    fetchMock.mockResolvedValue(reply(201, { reference: "CRS-20270105-7Q4K" }));
    const user = userEvent.setup();
    renderForm("quote", "tactical");
    await fillValid(user);
    expect(sessionStorage.getItem(draftKey)).toContain("Pat Doe");
    await submit(user);

    const status = await screen.findByRole("status");
    expect(status).toHaveFocus();
    expect(status).toHaveAttribute("tabindex", "-1");
    expect(within(status).getByRole("heading", { level: 3 })).toHaveTextContent("Fixture inquiry received");
    expect(status).toHaveTextContent(
      "Thanks. Your reference is CRS-20270105-7Q4K; quote it when you call (919) 555-0100.",
    );
    expect(within(status).getByText("CRS-20270105-7Q4K").tagName).toBe("STRONG");
    expect(within(status).getByRole("link", { name: "(919) 555-0100" })).toHaveAttribute("href", "tel:+19195550100");
    expect(screen.queryByLabelText(/Full Name/)).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Submit Inquiry" })).not.toBeInTheDocument();
    expect(sessionStorage.getItem(draftKey)).toBeNull();

    await user.click(within(status).getByRole("button", { name: "Send another inquiry" }));
    expect(screen.queryByRole("status")).not.toBeInTheDocument();
    expect(screen.getByLabelText(/Full Name/)).toHaveValue("");
    expect(screen.getByLabelText(/Full Name/)).toHaveFocus();
    expect(screen.getByLabelText(/Full Name/)).not.toHaveAttribute("aria-invalid");
    expect(screen.getByLabelText(/Message/)).toHaveValue("");
    expect(screen.getByLabelText(/Inquiry Type/)).toHaveValue("general");
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
  });

  it("puts the server's messages on their fields like its own, ignoring fields it does not have", async () => {
    fetchMock.mockResolvedValue(
      reply(422, {
        errors: {
          email: "Fixture server: that address does not accept mail.",
          message: "Fixture server: say a little more.",
          favouriteColour: "Fixture server: not a field.",
        },
      }),
    );
    const user = userEvent.setup();
    renderForm();
    await fillValid(user);
    await submit(user);

    const email = await screen.findByLabelText(/Email Address/);
    await screen.findByText("Fixture server: that address does not accept mail.");
    expect(email).toHaveAttribute("aria-invalid", "true");
    expect(email).toHaveAccessibleDescription("Fixture server: that address does not accept mail.");
    expect(email).toHaveFocus();
    expect(screen.getByLabelText(/Message/)).toHaveAccessibleDescription("Fixture server: say a little more.");
    expect(screen.getByRole("alert")).toHaveTextContent("Please correct the highlighted fields.");
    expect(screen.queryByText("Fixture server: not a field.")).not.toBeInTheDocument();
    expect(screen.getByLabelText(/Full Name/)).toHaveValue("  Pat Doe ");

    // Changing the field retires the server's message on it; the other one stays until its field changes.
    await user.type(email, "m");
    expect(email).not.toHaveAttribute("aria-invalid");
    expect(screen.getByLabelText(/Message/)).toHaveAttribute("aria-invalid", "true");
  });

  it("ties a server message on the compliance checkboxes to their group", async () => {
    fetchMock.mockResolvedValue(reply(422, { errors: { compliance: "Fixture server: unknown requirement." } }));
    const user = userEvent.setup();
    renderForm("quote");
    await fillValid(user);
    await user.click(screen.getByRole("checkbox", { name: "Fixture USA" }));
    await submit(user);

    await screen.findByText("Fixture server: unknown requirement.");
    const group = screen.getByRole("group", { name: "Compliance required" });
    expect(group).toHaveAccessibleDescription("Fixture compliance hint. Fixture server: unknown requirement.");
    expect(within(group).getByRole("checkbox", { name: "Fixture TAA" })).toHaveFocus();
    expect(within(group).getByRole("checkbox", { name: "Fixture USA" })).toHaveAttribute("aria-invalid", "true");
  });

  it.each([
    ["the body", reply(429, { retryAfterSeconds: 125 }, { "Retry-After": "900" }), "3 minutes"],
    ["the Retry-After header", reply(429, undefined, { "Retry-After": "600" }), "10 minutes"],
    ["neither", reply(429, { error: "rate limited" }), "1 minutes"],
  ])("says when to try again after too many inquiries, from %s", async (_source, answer, minutes) => {
    fetchMock.mockResolvedValue(answer);
    const user = userEvent.setup();
    renderForm();
    await fillValid(user);
    await submit(user);

    const alert = await screen.findByRole("alert");
    expect(alert).toHaveFocus();
    expect(within(alert).getByRole("heading")).toHaveTextContent("Fixture too many inquiries");
    expect(alert).toHaveTextContent(
      `Nothing was sent. Try again in ${minutes}, or call (919) 555-0100 or email desk@fixture.example.`,
    );
    expect(screen.getByLabelText(/Full Name/)).toHaveValue("  Pat Doe ");
    expect(screen.getByLabelText(/Message/)).toHaveValue("Forty Class B shirts, sizes attached.");
    expect(screen.getByRole("button", { name: "Submit Inquiry" })).toBeEnabled();
  });

  it.each([
    ["a server error", () => fetchMock.mockResolvedValueOnce(reply(500, { error: "Fixture outage" }))],
    ["a network failure", () => fetchMock.mockRejectedValueOnce(new TypeError("Failed to fetch"))],
    ["a page instead of an answer", () => fetchMock.mockResolvedValueOnce(reply(200, undefined))],
    ["an unreadable receipt", () => fetchMock.mockResolvedValueOnce(reply(201, undefined))],
    ["a refusal without messages", () => fetchMock.mockResolvedValueOnce(reply(422, { errors: { nope: "x" } }))],
  ])("says nothing was sent after %s, keeps every answer and can send again", async (_cause, failOnce) => {
    failOnce();
    fetchMock.mockResolvedValueOnce(reply(201, { reference: "CRS-RETRY" }));
    const user = userEvent.setup();
    renderForm("quote");
    await fillValid(user);
    await fillQuote(user);
    await user.type(screen.getByLabelText(/Phone Number/), "(919) 555-0199");
    await submit(user);

    const alert = await screen.findByRole("alert");
    expect(alert).toHaveFocus();
    expect(within(alert).getByRole("heading", { level: 3 })).toHaveTextContent("Fixture inquiry not sent");
    expect(alert).toHaveTextContent(
      "Nothing was sent. Try again, call (919) 555-0100 (Weekdays, 8:00 AM to 5:00 PM EST) or email desk@fixture.example.",
    );
    expect(within(alert).getByRole("link", { name: "(919) 555-0100" })).toHaveAttribute("href", "tel:+19195550100");
    expect(within(alert).getByRole("link", { name: "desk@fixture.example" })).toHaveAttribute(
      "href",
      "mailto:desk@fixture.example",
    );
    expect(document.body).not.toHaveTextContent(/thank you|received|reference/i);
    expect(screen.getByLabelText(/Full Name/)).toHaveValue("  Pat Doe ");
    expect(screen.getByLabelText(/Quantities and sizes/)).toHaveValue("40 shirts\n10 S, 30 M");
    expect(screen.getByLabelText(/Ship-to state/)).toHaveValue("VA");
    expect(screen.getByRole("checkbox", { name: "Fixture Berry" })).toBeChecked();
    expect(screen.getByLabelText(/Message/)).toHaveValue("Forty Class B shirts, sizes attached.");

    await user.click(within(alert).getByRole("button", { name: "Try again" }));
    const status = await screen.findByRole("status");
    expect(status).toHaveTextContent("CRS-RETRY");
    expect(fetchMock).toHaveBeenCalledTimes(2);
    const { fill_ms: _first, ...firstAnswers } = sentBody(0);
    const { fill_ms: _second, ...secondAnswers } = sentBody(1);
    // The same inquiry again, under the same idempotency key: the server stores it once.
    expect(secondAnswers).toEqual(firstAnswers);
    expect(firstAnswers.idempotency_key).toEqual(expect.any(String));
  });

  it("offers the inquiry, quote answers included, to the visitor's email app when it could not be sent", async () => {
    fetchMock.mockRejectedValue(new TypeError("Failed to fetch"));
    const user = userEvent.setup();
    renderForm("quote");
    await fillValid(user);
    await fillQuote(user);
    await submit(user);

    const alert = await screen.findByRole("alert");
    const mailto = within(alert).getByRole("link", { name: "Open in email app" }).getAttribute("href")!;
    expect(mailto.startsWith("mailto:desk@fixture.example?")).toBe(true);
    const params = new URLSearchParams(mailto.split("?")[1]);
    expect(params.get("subject")).toBe("Website inquiry: Request a quote");
    const body = params.get("body")!;
    expect(body).toContain("Full Name: Pat Doe\n");
    expect(body).toContain("Agency/Organization: Wake County Sheriff's Office");
    expect(body).toContain("Inquiry Type: Request a quote");
    expect(body).toContain("Product category: Fixture Tactical");
    expect(body).toContain("Quantities and sizes: 40 shirts\n10 S, 30 M");
    expect(body).toContain(`Need-by date: ${needBy}`);
    expect(body).toContain("Ship-to state: Fixture Virginia");
    expect(body).toContain("Buying method: Fixture purchase order");
    expect(body).toContain("Compliance required: Fixture TAA, Fixture Berry");
    expect(body).not.toContain("Phone Number");
    expect(body.endsWith("\n\nForty Class B shirts, sizes attached.")).toBe(true);

    // A general question leaves the quote answers out of the message.
    await user.selectOptions(screen.getByLabelText(/Inquiry Type/), "general");
    const general = new URLSearchParams(
      within(screen.getByRole("alert"))
        .getByRole("link", { name: "Open in email app" })
        .getAttribute("href")!
        .split("?")[1],
    );
    expect(general.get("subject")).toBe("Website inquiry: General question");
    expect(general.get("body")).not.toMatch(/Product category|Quantities|Need-by|Ship-to|Buying method|Compliance/);
  });

  it("checks the answers again before trying again", async () => {
    fetchMock.mockRejectedValue(new TypeError("Failed to fetch"));
    const user = userEvent.setup();
    renderForm();
    await fillValid(user);
    await submit(user);
    const alert = await screen.findByRole("alert");

    await user.clear(screen.getByLabelText(/Email Address/));
    await user.click(within(alert).getByRole("button", { name: "Try again" }));
    expect(screen.getByLabelText(/Email Address/)).toHaveFocus();
    expect(screen.getByLabelText(/Email Address/)).toHaveAccessibleDescription("Enter your email address.");
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });
});
