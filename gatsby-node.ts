import path from "node:path";
import type { GatsbyNode } from "gatsby";
import { formatProblem, validateContentFile } from "./src/content/validate";

const contentDir = path.join(__dirname, "content");

/**
 * Every content type is declared here instead of inferred. Inference would
 * silently drop a field that an editor deleted from every entry, change a
 * field's type when an editor mistyped a value, and leave image paths as
 * plain strings; explicit types make queries stable and let graphqlTypegen
 * mark required fields as non-null.
 */
export const createSchemaCustomization: GatsbyNode["createSchemaCustomization"] = ({ actions }) => {
  actions.createTypes(`
    type Link @dontInfer {
      label: String!
      to: String!
    }

    type PageSeo @dontInfer {
      title: String!
      description: String!
    }

    type PostalAddress @dontInfer {
      street: String!
      locality: String!
      region: String!
      postalCode: String!
      country: String!
    }

    type PhoneNumber @dontInfer {
      display: String!
      tel: String!
    }

    type CompanyContact @dontInfer {
      address: PostalAddress!
      phone: PhoneNumber!
      email: String!
    }

    type BusinessHours @dontInfer {
      display: String!
      days: [String!]!
      opens: String!
      closes: String!
      timeZone: String!
    }

    type ContactLabels @dontInfer {
      address: String!
      phone: String!
      email: String!
      hours: String!
    }

    type CompanyJson implements Node @dontInfer {
      name: String!
      legalName: String!
      tagline: String!
      description: String!
      siteUrl: String!
      contact: CompanyContact!
      contactLabels: ContactLabels!
      hours: BusinessHours!
    }

    type FooterColumn @dontInfer {
      heading: String!
      links: [Link!]!
    }

    type FooterContent @dontInfer {
      label: String!
      columns: [FooterColumn!]!
      contactHeading: String!
      rightsNotice: String!
    }

    type NavigationJson implements Node @dontInfer {
      skipLinkLabel: String!
      homeLabel: String!
      primaryLabel: String!
      menuLabel: String!
      main: [Link!]!
      quoteAction: Link!
      footer: FooterContent!
    }

    type Hero @dontInfer {
      headline: String!
      text: String!
      image: File! @fileByRelativePath
      imageAlt: String!
      primaryAction: Link!
      secondaryAction: Link!
    }

    type SolutionCard @dontInfer {
      title: String!
      description: String!
      icon: String!
    }

    type SolutionsSection @dontInfer {
      heading: String!
      intro: String!
      cards: [SolutionCard!]!
    }

    type AgenciesSection @dontInfer {
      heading: String!
      intro: String!
      disclaimer: String!
      carouselLabel: String!
      previousLabel: String!
      nextLabel: String!
      positionTemplate: String!
    }

    type AboutSection @dontInfer {
      heading: String!
      mission: String!
      action: Link!
    }

    type HomeContactSection @dontInfer {
      heading: String!
      intro: String!
    }

    type HomeJson implements Node @dontInfer {
      seo: PageSeo!
      hero: Hero!
      solutions: SolutionsSection!
      agencies: AgenciesSection!
      about: AboutSection!
      contact: HomeContactSection!
    }

    type Agency @dontInfer {
      name: String!
      "A path under content/ or an https:// address."
      logo: String!
      "The local logo file, when logo is a path under content/."
      logoFile: File @link(by: "relativePath", from: "logo")
      alt: String!
      showLogo: Boolean!
    }

    type AgenciesJson implements Node @dontInfer {
      agencies: [Agency!]!
    }

    type InquiryFieldErrors @dontInfer {
      required: String
      invalid: String
      tooShort: String
      tooLong: String!
    }

    type InquiryField @dontInfer {
      label: String!
      hint: String
      placeholder: String
      required: Boolean!
      minLength: Int
      maxLength: Int!
      autocomplete: String
      errors: InquiryFieldErrors!
    }

    type InquiryFields @dontInfer {
      fullName: InquiryField!
      organization: InquiryField!
      email: InquiryField!
      phone: InquiryField!
      inquiryType: InquiryField!
      message: InquiryField!
    }

    type InquiryTypeOption @dontInfer {
      value: String!
      label: String!
    }

    type InquiryNotSent @dontInfer {
      title: String!
      text: String!
      emailActionLabel: String!
      emailSubject: String!
    }

    type InquiryJson implements Node @dontInfer {
      heading: String!
      detailsHeading: String!
      requiredNote: String!
      requiredMarker: String!
      formFields: InquiryFields!
      inquiryTypes: [InquiryTypeOption!]!
      defaultType: String!
      quoteType: String!
      submitLabel: String!
      errorSummary: String!
      notSent: InquiryNotSent!
    }

    type NotFoundPage @dontInfer {
      seoTitle: String!
      heading: String!
      text: String!
      homeLabel: String!
      consoleMessage: String!
    }

    type ErrorScreenContent @dontInfer {
      title: String!
      intro: String!
      homeLabel: String!
    }

    type SystemPagesJson implements Node @dontInfer {
      notFound: NotFoundPage!
      error: ErrorScreenContent!
    }
  `);
};

/**
 * Validates each content file as Gatsby reads it, so `gatsby develop` also
 * re-checks a file when an editor saves it. panicOnBuild stops a build but
 * only reports during develop, which keeps the dev server up while the editor
 * fixes the file.
 */
export const onCreateNode: GatsbyNode["onCreateNode"] = ({ node, reporter }) => {
  if (node.internal.type !== "File" || node.sourceInstanceName !== "content" || node.extension !== "json") return;
  const relativePath = String(node.relativePath);
  const problems = validateContentFile(contentDir, relativePath, `content/${relativePath}`);
  if (problems.length > 0) {
    reporter.panicOnBuild(
      `Content error in content/${relativePath} (see CONTENT.md):\n${problems.map((p) => `  - ${formatProblem(p)}`).join("\n")}`,
    );
  }
};
