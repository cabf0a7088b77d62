import fs from "node:fs";
import path from "node:path";
import { render, screen, within } from "@testing-library/react";
import { fromJS } from "immutable";
import { assetUrlOf, editedContent, type DecapPreviewProps } from "../src/admin/preview/decap-entry";
import { readPreviewContent } from "../src/admin/preview/preview-content";
import { SitePreview } from "../src/admin/preview/site-preview";
import { installIntersectionObserver, removeIntersectionObserver } from "./support/intersection-observer";

// The previews' own Gatsby runtime, as the preview bundle has it: the site-wide query reads the preview's data.
jest.mock("gatsby", () =>
  jest.requireActual<typeof import("../src/admin/preview/gatsby-runtime")>("../src/admin/preview/gatsby-runtime"),
);

/** The repository's content, read as the build reads it for the preview bundle. */
const content = readPreviewContent(path.join(__dirname, ".."));
const repositoryFile = (file: string): Record<string, unknown> =>
  JSON.parse(fs.readFileSync(path.join(__dirname, "..", "content", file), "utf8")) as Record<string, unknown>;

/** Decap's preview props: the entry as an Immutable Map, and getAsset's answer for a path. */
const decapProps = (data: unknown, entryPath?: string): DecapPreviewProps => ({
  entry: fromJS({ data, ...(entryPath ? { path: entryPath } : {}) }),
  getAsset: (assetPath) => ({ toString: () => `blob:preview/${assetPath}` }),
});

/** Where the build's copies of the repository's linked files are, as the editing screen at /admin/ sees them. */
const linkedFilesUrl = new URL("http://localhost/admin/preview/");

const renderPreview = (kind: string, props: DecapPreviewProps) =>
  render(
    <SitePreview
      content={content}
      edited={editedContent(kind, props.entry)}
      assetUrl={assetUrlOf(props.getAsset, content.linkedFiles, linkedFilesUrl)}
    />,
  );

beforeEach(installIntersectionObserver);
afterEach(removeIntersectionObserver);

describe("the editing screen's previews draw the site's own pages from the entry being edited", () => {
  it("home: the hero, cards, carousel band, about and contact with the editor's unsaved text", () => {
    const home = repositoryFile("home.json") as {
      hero: Record<string, unknown>;
      solutions: { cards: { title: string }[] };
      about: { heading: string };
      agencies: { heading: string };
      contact: { heading: string };
    };
    const edited = {
      ...home,
      hero: { ...home.hero, headline: "Typed into the editor a moment ago" },
      solutions: {
        ...home.solutions,
        cards: home.solutions.cards.map((card, index) => (index === 0 ? { ...card, title: "A renamed card" } : card)),
      },
    };
    renderPreview("home", decapProps(edited, "content/home.json"));
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("Typed into the editor a moment ago");
    expect(screen.getByRole("heading", { name: "A renamed card" })).toBeInTheDocument();
    for (const heading of [home.agencies.heading, home.about.heading, home.contact.heading]) {
      expect(screen.getByRole("heading", { level: 2, name: heading })).toBeInTheDocument();
    }
    // The hero's picture is the repository's file itself, as the build copied it: no processed sizes.
    expect(document.querySelector("picture img")).toHaveAttribute(
      "src",
      "http://localhost/admin/preview/images/hero.jpg",
    );
    // The menus and footer come from the repository's other content files.
    const company = repositoryFile("company.json") as { legalName: string };
    expect(within(screen.getByRole("contentinfo")).getByText(new RegExp(company.legalName))).toBeInTheDocument();
  });

  it("a product category: its title, overview and lines, with the compliance marks from certifications.json", () => {
    const category = repositoryFile("products/tactical.json") as { lines: { name: string }[]; overview: string[] };
    const edited = {
      ...category,
      title: "Tactical gear, retitled",
      // Just uploaded: only Decap's asset store has it.
      image: "images/products/just-uploaded.jpg",
      lines: [
        ...category.lines,
        { name: "A line added in the editor", description: "Not saved yet.", compliance: ["taa"] },
      ],
    };
    renderPreview("products", decapProps(edited, "content/products/tactical.json"));
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("Tactical gear, retitled");
    expect(screen.getByText(category.overview[0] ?? "")).toBeInTheDocument();
    expect(screen.getByText("A line added in the editor")).toBeInTheDocument();
    expect(document.querySelector("main img")).toHaveAttribute("src", "blob:preview/images/products/just-uploaded.jpg");
    expect(screen.getByRole("heading", { level: 2, name: "Compliance options" })).toBeInTheDocument();
  });

  it("a content page: the title, the date as the page formats it and the edited section", () => {
    const page = repositoryFile("pages/privacy.json") as { sections: { heading: string }[] };
    const edited = {
      ...page,
      title: "Privacy, as the editor has it",
      updated: "2027-02-03",
      sections: [{ heading: "A new first section", paragraphs: ["Its only paragraph."] }, ...page.sections],
    };
    renderPreview("pages", decapProps(edited, "content/pages/privacy.json"));
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("Privacy, as the editor has it");
    expect(screen.getByText(/February 3, 2027/)).toBeInTheDocument();
    expect(screen.getByRole("heading", { level: 2, name: "A new first section" })).toBeInTheDocument();
  });

  it("the company's details, in the footer and the contact panel beside the inquiry form", () => {
    const company = repositoryFile("company.json") as { contact: { phone: object; email: string } };
    const edited = {
      ...company,
      contact: {
        ...company.contact,
        phone: { display: "(919) 555-0199", tel: "+19195550199" },
        email: "new@example.com",
      },
    };
    renderPreview("company", decapProps(edited, "content/company.json"));
    const footer = screen.getByRole("contentinfo");
    expect(within(footer).getByText("(919) 555-0199")).toBeInTheDocument();
    expect(within(footer).getByText("new@example.com")).toBeInTheDocument();
    // Once in the footer and once in the contact panel.
    expect(screen.getAllByText("(919) 555-0199")).toHaveLength(2);
    expect(screen.getAllByRole("link", { name: /new@example\.com/ }).length).toBeGreaterThanOrEqual(2);
  });

  it("every file and folder of the content has a page that shows it", () => {
    // The not-found page writes the address it was asked for to the console log, as on the site; its preview does too.
    const logged = jest.spyOn(console, "log").mockImplementation(() => undefined);
    for (const kind of content.kinds) {
      const [file, data] = Object.entries(kind.files)[0] ?? [];
      const entryPath = kind.folder ? `content/${kind.name}/${file}` : `content/${file}`;
      const { unmount } = renderPreview(kind.name, decapProps(data, entryPath));
      expect([kind.name, screen.getAllByRole("heading", { level: 1 }).length]).toEqual([kind.name, 1]);
      unmount();
    }
    expect(logged.mock.calls).toEqual([[expect.stringContaining("/404/")]]);
  });
});
