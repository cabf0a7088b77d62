import { act, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { inquiryFormElement, reply, sentBody, withMockedFetch } from "./support/inquiry-form";
import { clearDraft, draftKey, loadDraft, saveDraft } from "../src/inquiry/draft";
import { emptyInquiry } from "../src/inquiry/values";
import { inquiryContent } from "./fixtures/content";

const fetchMock = jest.fn<Promise<Response>, Parameters<typeof fetch>>();

const form = inquiryFormElement;

const storeDraft = (draft: unknown) => sessionStorage.setItem(draftKey, JSON.stringify(draft));

withMockedFetch(fetchMock);

describe("the inquiry draft", () => {
  it("brings back every answer, quote fields and checkboxes included, when the form is shown again", async () => {
    const user = userEvent.setup();
    const first = render(form());
    await user.type(screen.getByLabelText(/Full Name/), "Pat Doe");
    await user.type(screen.getByLabelText(/Email Address/), "pat.doe@example.gov");
    await user.selectOptions(screen.getByLabelText(/Inquiry Type/), "quote");
    await user.selectOptions(screen.getByLabelText(/Product category/), "uniforms");
    await user.type(screen.getByLabelText(/Quantities and sizes/), "12 parkas");
    await user.selectOptions(screen.getByLabelText(/Ship-to state/), "NC");
    await user.click(screen.getByRole("checkbox", { name: "Fixture USA" }));
    await user.type(screen.getByLabelText(/Message/), "Winter parkas for the road crew.");
    first.unmount();

    render(form());
    expect(screen.getByLabelText(/Full Name/)).toHaveValue("Pat Doe");
    expect(screen.getByLabelText(/Email Address/)).toHaveValue("pat.doe@example.gov");
    expect(screen.getByLabelText(/Inquiry Type/)).toHaveValue("quote");
    expect(screen.getByLabelText(/Product category/)).toHaveValue("uniforms");
    expect(screen.getByLabelText(/Quantities and sizes/)).toHaveValue("12 parkas");
    expect(screen.getByLabelText(/Ship-to state/)).toHaveValue("NC");
    expect(screen.getByRole("checkbox", { name: "Fixture USA" })).toBeChecked();
    expect(screen.getByRole("checkbox", { name: "Fixture TAA" })).not.toBeChecked();
    expect(screen.getByLabelText(/Message/)).toHaveValue("Winter parkas for the road crew.");
  });

  it("lets the page address decide the type and category, keeping the rest of the draft", () => {
    storeDraft({ ...emptyInquiry("general"), fullName: "Pat Doe", message: "About my last order." });
    render(form("quote", "tactical"));
    expect(screen.getByLabelText(/Full Name/)).toHaveValue("Pat Doe");
    expect(screen.getByLabelText(/Inquiry Type/)).toHaveValue("quote");
    expect(screen.getByLabelText(/Product category/)).toHaveValue("tactical");
    expect(screen.getByLabelText(/Message/)).toHaveValue("About my last order.");
  });

  it("is gone once the inquiry has been sent", async () => {
    fetchMock.mockResolvedValue(reply(201, { reference: "CRS-9" }));
    const user = userEvent.setup();
    const first = render(form());
    await user.type(screen.getByLabelText(/Full Name/), "Pat Doe");
    await user.type(screen.getByLabelText(/Email Address/), "pat.doe@example.gov");
    await user.type(screen.getByLabelText(/Message/), "Winter parkas for the road crew.");
    await user.click(screen.getByRole("button", { name: "Submit Inquiry" }));
    await screen.findByRole("status");
    first.unmount();

    render(form());
    expect(screen.getByLabelText(/Full Name/)).toHaveValue("");
    expect(screen.getByLabelText(/Message/)).toHaveValue("");
    expect(sessionStorage.getItem(draftKey)).toBeNull();
  });

  it("is gone too when the inquiry is received after the visitor has left the form", async () => {
    let answer: (response: Response) => void = () => undefined;
    const answered = new Promise<Response>((resolve) => {
      answer = resolve;
    });
    fetchMock.mockReturnValue(answered);
    const user = userEvent.setup();
    const first = render(form());
    await user.type(screen.getByLabelText(/Full Name/), "Pat Doe");
    await user.type(screen.getByLabelText(/Email Address/), "pat.doe@example.gov");
    await user.type(screen.getByLabelText(/Message/), "Winter parkas for the road crew.");
    await user.click(screen.getByRole("button", { name: "Submit Inquiry" }));
    first.unmount();
    expect(sessionStorage.getItem(draftKey)).toContain("Pat Doe");

    await act(async () => {
      answer(reply(201, { reference: "CRS-11" }));
      await answered;
    });
    expect(sessionStorage.getItem(draftKey)).toBeNull();
  });

  it("cannot break the form with whatever is stored under its key", async () => {
    storeDraft({
      fullName: 42,
      email: ["pat@example.gov"],
      inquiryType: "quote",
      productCategory: "jetpacks",
      shipToState: "ZZ",
      buyingMethod: "barter",
      compliance: ["usa", "made-on-mars", { id: "taa" }],
      message: "Line one\u0000\u202e",
      admin: true,
    });
    render(form());
    expect(screen.getByLabelText(/Full Name/)).toHaveValue("42");
    expect(screen.getByLabelText(/Email Address/)).toHaveValue("");
    expect(screen.getByLabelText(/Inquiry Type/)).toHaveValue("quote");
    expect(screen.getByLabelText(/Product category/)).toHaveValue("");
    expect(screen.getByLabelText(/Ship-to state/)).toHaveValue("");
    expect(screen.getByLabelText(/Buying method/)).toHaveValue("");
    expect(screen.getByRole("checkbox", { name: "Fixture USA" })).toBeChecked();
    expect(screen.getAllByRole("checkbox").filter((box) => (box as HTMLInputElement).checked)).toHaveLength(1);
    expect(screen.getByLabelText(/Message/)).toHaveValue("Line one");

    // Choices that are no longer on offer are dropped, not sent behind the visitor's back.
    fetchMock.mockResolvedValue(reply(201, { reference: "CRS-8" }));
    const user = userEvent.setup();
    await user.type(screen.getByLabelText(/Email Address/), "pat.doe@example.gov");
    await user.type(screen.getByLabelText(/Message/), " and two");
    await user.click(screen.getByRole("button", { name: "Submit Inquiry" }));
    await screen.findByRole("status");
    expect(sentBody(fetchMock)).toMatchObject({
      fullName: "42",
      productCategory: "",
      shipToState: "",
      buyingMethod: "",
      compliance: ["usa"],
      message: "Line one and two",
    });
  });

  it.each([
    ["text that is not JSON", "{not json"],
    ["JSON that is not an object", "[1,2,3]"],
    ["an unknown inquiry type", JSON.stringify({ inquiryType: "rocket", fullName: "Pat" })],
  ])("starts from the defaults when the draft holds %s", (_what, stored) => {
    sessionStorage.setItem(draftKey, stored);
    render(form());
    expect(screen.getByLabelText(/Inquiry Type/)).toHaveValue("general");
    expect(screen.getByLabelText(/Message/)).toHaveValue("");
  });

  it("works, silently, when the browser refuses storage", async () => {
    const refuse = () => {
      throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
    };
    const setItem = jest.spyOn(Storage.prototype, "setItem").mockImplementation(refuse);
    jest.spyOn(Storage.prototype, "getItem").mockImplementation(refuse);
    const removeItem = jest.spyOn(Storage.prototype, "removeItem").mockImplementation(refuse);
    fetchMock.mockResolvedValue(reply(201, { reference: "CRS-10" }));
    const user = userEvent.setup();
    render(form());
    await user.type(screen.getByLabelText(/Full Name/), "Pat Doe");
    await user.type(screen.getByLabelText(/Email Address/), "pat.doe@example.gov");
    await user.type(screen.getByLabelText(/Message/), "Winter parkas for the road crew.");
    expect(setItem).toHaveBeenCalled();
    await user.click(screen.getByRole("button", { name: "Submit Inquiry" }));
    expect(await screen.findByRole("status")).toHaveTextContent("CRS-10");
    expect(removeItem).toHaveBeenCalled();
  });

  it("keeps the time the inquiry was begun and its idempotency key across a reload", async () => {
    let clock = 5_000_000;
    jest.spyOn(Date, "now").mockImplementation(() => clock);
    fetchMock.mockResolvedValue(reply(201, { reference: "CRS-11" }));
    const user = userEvent.setup();
    const first = render(form());
    await user.type(screen.getByLabelText(/Full Name/), "Pat Doe");
    await user.type(screen.getByLabelText(/Email Address/), "pat.doe@example.gov");
    await user.type(screen.getByLabelText(/Message/), "Winter parkas for the road crew.");
    const saved = JSON.parse(sessionStorage.getItem(draftKey) ?? "{}") as { startedAt: number; idempotencyKey: string };
    expect(saved.startedAt).toBe(5_000_000);
    first.unmount();

    // Reloaded a minute later and sent at once: the fill time counts from the first visit.
    clock += 60_000;
    render(form());
    await user.click(screen.getByRole("button", { name: "Submit Inquiry" }));
    await screen.findByRole("status");
    const sent = sentBody(fetchMock);
    expect(sent.fill_ms).toBe(60_000);
    expect(sent.idempotency_key).toBe(saved.idempotencyKey);
  });

  it("gives the next inquiry a key of its own", async () => {
    fetchMock.mockResolvedValue(reply(201, { reference: "CRS-12" }));
    const user = userEvent.setup();
    render(form());
    const fill = async () => {
      await user.type(screen.getByLabelText(/Full Name/), "Pat Doe");
      await user.type(screen.getByLabelText(/Email Address/), "pat.doe@example.gov");
      await user.type(screen.getByLabelText(/Message/), "Winter parkas for the road crew.");
      await user.click(screen.getByRole("button", { name: "Submit Inquiry" }));
      await screen.findByRole("status");
    };
    await fill();
    await user.click(screen.getByRole("button", { name: inquiryContent.sent.againLabel }));
    await fill();
    const keys = fetchMock.mock.calls.map((_call, index) => sentBody(fetchMock, index).idempotency_key);
    expect(keys).toHaveLength(2);
    expect(keys[0]).not.toBe(keys[1]);
  });

  it("keeps one draft under one key in sessionStorage", () => {
    expect(loadDraft(inquiryContent)).toBeNull();
    saveDraft({ ...emptyInquiry("general"), fullName: "Pat" });
    expect(sessionStorage).toHaveLength(1);
    expect(JSON.parse(sessionStorage.getItem(draftKey)!)).toMatchObject({ fullName: "Pat" });
    expect(loadDraft(inquiryContent)).toEqual({
      values: { ...emptyInquiry("general"), fullName: "Pat" },
      session: null,
    });
    expect(localStorage).toHaveLength(0);
    clearDraft();
    expect(sessionStorage.getItem(draftKey)).toBeNull();
  });
});
