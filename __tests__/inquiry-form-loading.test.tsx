/**
 * The form's checks (zod) and sending load only once the visitor is about to use the form. Each test
 * starts from a fresh module registry, so that the code is not loaded yet, and counts how often the
 * browser would have fetched it (each time the validation module is evaluated).
 */
import { reply, withMockedFetch } from "./support/inquiry-form";
import { removeIntersectionObserver } from "./support/intersection-observer";
import { onDemandCodeHarness } from "./support/on-demand-code";

const fetchMock = jest.fn<Promise<Response>, Parameters<typeof fetch>>();
withMockedFetch(fetchMock);

let fetchesOfCode = 0;
/** While false, fetching the code fails, as it does when the connection drops. */
let codeReachable = true;
const harness = onDemandCodeHarness();

beforeEach(() => {
  fetchesOfCode = 0;
  codeReachable = true;
  jest.doMock("../src/inquiry/validation", () => {
    fetchesOfCode += 1;
    if (!codeReachable) throw new TypeError("Failed to fetch dynamically imported module");
    return jest.requireActual<typeof import("../src/inquiry/validation")>("../src/inquiry/validation");
  });
});

/** The form, with React and testing-library from the same fresh registry. */
const freshForm = async () => {
  const { fireEvent, render, screen, within, settle } = await harness.testingLibrary();
  const { inquiryFormElement } = await import("./support/inquiry-form");
  render(inquiryFormElement());
  const form = screen.getByRole("form", { name: "Send us a message" });
  const type = (label: RegExp, value: string) => {
    const field = screen.getByLabelText(label);
    fireEvent.focusIn(field);
    fireEvent.change(field, { target: { value } });
  };
  return { fireEvent, screen, within, form, settle, type };
};

describe("the form's checks and sending", () => {
  it("are not loaded with the page", async () => {
    const { settle } = await freshForm();
    await settle();
    expect(fetchesOfCode).toBe(0);
  });

  it("load once the form comes within a screen of the viewport, once", async () => {
    const { form, settle } = await freshForm();
    expect(harness.observers()).toHaveLength(1);
    const [observer] = harness.observers();
    expect(observer!.observed).toEqual([form]);
    expect(observer!.options).toEqual({ rootMargin: "100% 0px" });
    observer!.callback([{ isIntersecting: false }]);
    await settle();
    expect(fetchesOfCode).toBe(0);
    observer!.callback([{ isIntersecting: true }]);
    await settle();
    expect(fetchesOfCode).toBe(1);
    expect(observer!.connected).toBe(false);
  });

  it.each([
    ["a field takes focus", "focusIn"],
    ["the visitor presses on it", "pointerDown"],
  ] as const)("load when %s before the form was reported near", async (_when, event) => {
    const { fireEvent, screen, settle } = await freshForm();
    fireEvent[event](screen.getByLabelText(/Full Name/));
    await settle();
    expect(fetchesOfCode).toBe(1);
    fireEvent[event](screen.getByLabelText(/Message/));
    await settle();
    expect(fetchesOfCode).toBe(1);
  });

  it("load at once where there is no IntersectionObserver", async () => {
    removeIntersectionObserver();
    const { settle } = await freshForm();
    await settle();
    expect(fetchesOfCode).toBe(1);
  });

  it("are waited for by a send that comes first, which then checks the answers", async () => {
    const { fireEvent, screen, form } = await freshForm();
    fireEvent.submit(form);
    const name = await screen.findByLabelText(/Full Name/, { selector: "[aria-invalid=true]" });
    expect(name).toHaveAccessibleDescription("Enter your full name.");
    expect(name).toHaveFocus();
    expect(fetchesOfCode).toBe(1);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("missing (the connection dropped) means nothing was sent, every answer kept, and a retry that loads them", async () => {
    codeReachable = false;
    fetchMock.mockResolvedValue(reply(201, { reference: "CRS-LATE" }));
    const { fireEvent, screen, within, form, settle, type } = await freshForm();
    type(/Full Name/, "Pat Doe");
    type(/Email Address/, "pat.doe@example.gov");
    type(/Message/, "Winter parkas for the road crew.");
    await settle();
    fireEvent.submit(form);

    const alert = await screen.findByRole("alert");
    expect(within(alert).getByRole("heading")).toHaveTextContent("Fixture inquiry not sent");
    expect(alert).toHaveFocus();
    const mailto = within(alert).getByRole("link", { name: "Open in email app" }).getAttribute("href")!;
    expect(new URLSearchParams(mailto.split("?")[1]).get("body")).toContain("Full Name: Pat Doe");
    expect(screen.getByLabelText(/Message/)).toHaveValue("Winter parkas for the road crew.");
    expect(fetchMock).not.toHaveBeenCalled();

    codeReachable = true;
    fireEvent.click(within(alert).getByRole("button", { name: "Try again" }));
    expect(await screen.findByRole("status")).toHaveTextContent("CRS-LATE");
    await settle();
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });
});
