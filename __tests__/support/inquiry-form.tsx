import { InquiryForm } from "../../src/components/inquiry/InquiryForm";
import { categories, company, complianceOptions, inquiryContent } from "../fixtures/content";

/** The inquiry form with the fixture content, opened as the page address would ask (?type=…&category=…). */
export const inquiryFormElement = (type?: string, category?: string) => (
  <InquiryForm
    content={inquiryContent}
    categories={categories}
    complianceOptions={complianceOptions}
    company={company}
    requested={{ type, category }}
    headingLevel={2}
  />
);

/**
 * Gives each test of the file a fresh sessionStorage and the given fetch mock in place of fetch,
 * and fails a test that logged a console error (React's act, key and hydration warnings among them).
 */
export const withMockedFetch = (fetchMock: jest.Mock<Promise<Response>, Parameters<typeof fetch>>) => {
  let consoleError: jest.SpyInstance;
  beforeEach(() => {
    sessionStorage.clear();
    fetchMock.mockReset();
    global.fetch = fetchMock;
    consoleError = jest.spyOn(console, "error");
  });
  afterEach(() => {
    expect(consoleError).not.toHaveBeenCalled();
    jest.restoreAllMocks();
    Reflect.deleteProperty(globalThis, "fetch");
  });
};

/** The JSON body of the fetch mock's `call`-th request, which the form always sends as a string. */
export const sentBody = (fetchMock: jest.Mock<Promise<Response>, Parameters<typeof fetch>>, call = 0) => {
  const body = fetchMock.mock.calls[call]?.[1]?.body;
  if (typeof body !== "string") throw new Error(`request ${call} has no JSON body`);
  return JSON.parse(body) as Record<string, unknown>;
};

/** A stand-in for fetch's Response: jsdom has none. A body of undefined cannot be read as JSON. */
export const reply = (status: number, body?: unknown, headers: Record<string, string> = {}) =>
  ({
    status,
    ok: status >= 200 && status < 300,
    headers: new Headers(headers),
    json: () =>
      body === undefined ? Promise.reject(new SyntaxError("Unexpected end of JSON input")) : Promise.resolve(body),
  }) as unknown as Response;
