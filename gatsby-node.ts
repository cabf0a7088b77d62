import path from "node:path";
import { writeHeadersFile } from "./server/security-headers";
import type { GatsbyNode, Reporter } from "gatsby";
import {
  contentPageRoute,
  fixedRoutes,
  formatProblem,
  productRoute,
  validateContentDir,
  type ContentProblem,
} from "./src/content-contract/validate";
import { robotsProblems } from "./src/seo/robots";

const contentDir = path.resolve("content");
const pagesDir = path.resolve("src/pages");

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
      shortName: String!
      icon: String!
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
      primaryLabel: String!
      menuLabel: String!
      main: [Link!]!
      quoteAction: Link!
      footer: FooterContent!
    }

    type Hero @dontInfer {
      headline: String!
      text: String!
      "A path under content/, like images/hero.jpg."
      image: File! @link(by: "relativePath")
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
      disclaimer: String!
      agencies: [Agency!]!
    }

    type InquiryFieldErrors @dontInfer {
      required: String
      invalid: String
      tooShort: String
      tooLong: String
    }

    type InquiryField @dontInfer {
      label: String!
      hint: String
      placeholder: String
      required: Boolean!
      minLength: Int
      maxLength: Int
      autocomplete: String
      options: [InquiryOption!]
      errors: InquiryFieldErrors!
    }

    type InquiryFields @dontInfer {
      fullName: InquiryField!
      organization: InquiryField!
      email: InquiryField!
      phone: InquiryField!
      inquiryType: InquiryField!
      productCategory: InquiryField!
      quantities: InquiryField!
      needBy: InquiryField!
      shipToState: InquiryField!
      buyingMethod: InquiryField!
      compliance: InquiryField!
      message: InquiryField!
    }

    type InquiryOption @dontInfer {
      value: String!
      label: String!
    }

    type InquirySent @dontInfer {
      title: String!
      text: String!
      againLabel: String!
    }

    type InquiryFailed @dontInfer {
      title: String!
      text: String!
      retryLabel: String!
      emailActionLabel: String!
      emailSubject: String!
    }

    type InquiryTooMany @dontInfer {
      title: String!
      text: String!
    }

    type InquiryJson implements Node @dontInfer {
      heading: String!
      detailsHeading: String!
      requiredNote: String!
      requiredMarker: String!
      formFields: InquiryFields!
      inquiryTypes: [InquiryOption!]!
      defaultType: String!
      quoteType: String!
      submitLabel: String!
      errorSummary: String!
      honeypotLabel: String!
      sendingLabel: String!
      sent: InquirySent!
      failed: InquiryFailed!
      tooMany: InquiryTooMany!
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
      updatedLabel: String!
      notFound: NotFoundPage!
      error: ErrorScreenContent!
    }

    type ProductLine @dontInfer {
      name: String!
      description: String!
      "Ids of compliance marks defined in certifications.json."
      compliance: [String!]!
    }

    type ProductCallToAction @dontInfer {
      heading: String!
      text: String!
      label: String!
    }

    type ProductCategoryJson implements Node @dontInfer {
      slug: String!
      order: Int!
      title: String!
      shortTitle: String!
      icon: String!
      summary: String!
      seo: PageSeo!
      overview: [String!]!
      "A path under content/, like images/hero.jpg."
      image: File! @link(by: "relativePath")
      imageAlt: String!
      lines: [ProductLine!]!
      cta: ProductCallToAction!
    }

    type ContentPageSection @dontInfer {
      heading: String!
      icon: String
      paragraphs: [String!]
      items: [String!]
    }

    type CallToAction @dontInfer {
      heading: String!
      text: String!
      action: Link!
    }

    type ContentPageJson implements Node @dontInfer {
      slug: String!
      title: String!
      updated: Date @dateformat
      seo: PageSeo!
      intro: String!
      sections: [ContentPageSection!]!
      cta: CallToAction
    }

    type CompanyIdentifiers @dontInfer {
      heading: String!
      uei: String!
      cage: String!
      samStatus: String!
      stateVendorNumber: String!
    }

    type CompanyIdentifierLabels @dontInfer {
      uei: String!
      cage: String!
      samStatus: String!
      stateVendorNumber: String!
    }

    type CodeTableHeaders @dontInfer {
      code: String!
      title: String!
    }

    type NaicsCode @dontInfer {
      code: String!
      title: String!
      primary: Boolean!
    }

    type NaicsList @dontInfer {
      heading: String!
      primaryLabel: String!
      codes: [NaicsCode!]!
    }

    type ProductServiceCode @dontInfer {
      code: String!
      title: String!
    }

    type ProductServiceCodeList @dontInfer {
      heading: String!
      codes: [ProductServiceCode!]!
    }

    type ContractVehicle @dontInfer {
      name: String!
      detail: String!
      description: String!
    }

    type ContractVehicleList @dontInfer {
      heading: String!
      items: [ContractVehicle!]!
    }

    type SmallBusinessCertification @dontInfer {
      name: String!
      detail: String!
    }

    type SmallBusinessList @dontInfer {
      heading: String!
      items: [SmallBusinessCertification!]!
    }

    type ComplianceMark @dontInfer {
      id: String!
      name: String!
      description: String!
    }

    type ComplianceList @dontInfer {
      heading: String!
      items: [ComplianceMark!]!
    }

    type CapabilityStatement @dontInfer {
      seo: PageSeo!
      heading: String!
      printLabel: String!
      summary: String!
      competenciesHeading: String!
      competencies: [String!]!
      differentiatorsHeading: String!
      differentiators: [String!]!
      identifiersHeading: String!
      contactHeading: String!
      contactName: String!
    }

    type CertificationsJson implements Node @dontInfer {
      seo: PageSeo!
      heading: String!
      intro: String!
      identifiers: CompanyIdentifiers!
      identifierLabels: CompanyIdentifierLabels!
      tableHeaders: CodeTableHeaders!
      naics: NaicsList!
      psc: ProductServiceCodeList!
      contractVehicles: ContractVehicleList!
      smallBusiness: SmallBusinessList!
      compliance: ComplianceList!
      capability: CapabilityStatement!
    }

    type ProductsPageContent @dontInfer {
      seo: PageSeo!
      heading: String!
      intro: String!
      cardActionLabel: String!
      overviewHeading: String!
      linesHeading: String!
      complianceHeading: String!
    }

    type ContactPageContent @dontInfer {
      seo: PageSeo!
      heading: String!
      intro: String!
    }

    type Sector @dontInfer {
      name: String!
      description: String!
      icon: String!
    }

    type ClientsPageContent @dontInfer {
      seo: PageSeo!
      heading: String!
      intro: String!
      sectorsHeading: String!
      sectors: [Sector!]!
      agenciesHeading: String!
    }

    type SitePagesJson implements Node @dontInfer {
      products: ProductsPageContent!
      contact: ContactPageContent!
      quote: ContactPageContent!
      clients: ClientsPageContent!
    }
  `);
};

const CONTENT_ERROR = "CONTENT_INVALID";

/** Gives content errors their own id and type in Gatsby's output instead of "UNKNOWN". */
export const onPluginInit: GatsbyNode["onPluginInit"] = ({ reporter }) => {
  reporter.setErrorMap({
    [CONTENT_ERROR]: {
      text: (context: { message: string }) => context.message,
      level: "ERROR",
      type: "API.NODE.VALIDATION",
      category: "USER",
    },
  });
};

const reportProblems = (reporter: Reporter, problems: ContentProblem[]) => {
  if (problems.length === 0) return;
  const message = `Content error (see CONTENT.md):\n${problems.map((problem) => `  - ${formatProblem(problem)}`).join("\n")}`;
  reporter.panicOnBuild({ id: CONTENT_ERROR, context: { message } });
};

const checkContent = (reporter: Reporter) =>
  reportProblems(reporter, [
    ...validateContentDir(contentDir, { routes: fixedRoutes(pagesDir) }),
    ...robotsProblems(contentDir, path.resolve("static/robots.txt")),
  ]);

let bootstrapped = false;

/**
 * The whole content folder is checked before Gatsby reads it, so a build
 * stops on the first run with every problem listed. panicOnBuild stops a
 * build but only reports during develop, which keeps the dev server up while
 * the editor fixes the file.
 */
export const onPreBootstrap: GatsbyNode["onPreBootstrap"] = ({ reporter }) => checkContent(reporter);

export const onPostBootstrap: GatsbyNode["onPostBootstrap"] = () => {
  bootstrapped = true;
};

/** In develop, an editor's save creates the file's node again: check the content again then. */
export const onCreateNode: GatsbyNode["onCreateNode"] = ({ node, reporter }) => {
  if (!bootstrapped || node.internal.type !== "File" || node.sourceInstanceName !== "content") return;
  if (node.extension === "json") checkContent(reporter);
};

interface CreatePagesData {
  allProductCategoryJson: { nodes: { id: string; slug: string }[] };
  allContentPageJson: { nodes: { id: string; slug: string }[] };
}

/** Product categories and text pages are pages because content says so: a new JSON file is a new page. */
export const createPages: GatsbyNode["createPages"] = async (args) => {
  const { actions, reporter } = args;
  // Called on args, not taken out of it: the types declare graphql a method.
  const result = await args.graphql<CreatePagesData>(`
    query CreatePages {
      allProductCategoryJson(sort: { order: ASC }) {
        nodes {
          id
          slug
        }
      }
      allContentPageJson {
        nodes {
          id
          slug
        }
      }
    }
  `);
  if (result.errors || !result.data) {
    // Gatsby's types leave a query's errors untyped; they are GraphQL errors, each an Error.
    reporter.panicOnBuild("Could not load content for createPages", result.errors as Error[] | undefined);
    return;
  }
  for (const { id, slug } of result.data.allProductCategoryJson.nodes) {
    actions.createPage({
      path: productRoute(slug),
      component: path.resolve("src/templates/product-category.tsx"),
      context: { id },
    });
  }
  for (const { id, slug } of result.data.allContentPageJson.nodes) {
    actions.createPage({
      path: contentPageRoute(slug),
      component: path.resolve("src/templates/content-page.tsx"),
      context: { id },
    });
  }
};

/**
 * Writes public/_headers: every page's Content-Security-Policy with the hashes of the inline scripts
 * it was built with, and the headers every response carries (server/security-headers.ts). The
 * production server serves from it and the CDN reads it as is.
 */
export const onPostBuild: GatsbyNode["onPostBuild"] = ({ reporter }) => {
  const pages = writeHeadersFile(path.resolve("public"));
  if (pages === 0) reporter.panicOnBuild("No built page found to write security headers for.");
  reporter.info(`Security headers written for ${pages} pages to public/_headers`);
};
