import { z } from "zod";
import { iconNames } from "./icon-names";
import type { FolderName, SingleFileName } from "./content-files";
import { inquiryFieldNames, type InquiryFieldName } from "../inquiry/values";

/**
 * The content contract: one zod schema per file under content/.
 * gatsby-node validates every file against it before GraphQL sees the data,
 * so an editor's mistake stops the build with the file and field at fault
 * instead of surfacing as a blank section or a null in a component.
 */

/** What the schemas need to know about the world outside the JSON itself. */
export interface ContentContext {
  /** Whether a path relative to content/ names an existing file. */
  fileExists: (relativePath: string) => boolean;
}

const iconName = z.enum(iconNames, { error: `must be one of the icon names: ${iconNames.join(", ")}` });

const text = () => z.string().trim().min(1, { error: "must not be empty" });

const internalPath = z.string().regex(/^\/[^\s]*$/, { error: "must be a site path starting with /" });

const externalHref = z.string().regex(/^(https:\/\/|mailto:|tel:)\S+$/, {
  error: "must start with /, https://, mailto: or tel:",
});

export const linkSchema = z
  .strictObject({
    label: text(),
    to: z.union([internalPath, externalHref], {
      error: "must be a site path starting with / or an https://, mailto: or tel: address",
    }),
  })
  .meta({ graphqlType: "Link" });

export const seoSchema = z
  .strictObject({
    title: text(),
    description: text().max(200, { error: "should be at most 200 characters for search results" }),
  })
  .meta({ graphqlType: "PageSeo" });

const localFile = (ctx: ContentContext, what: string) =>
  z
    .string()
    .regex(/^[\w./-]+$/, { error: `must be a path to ${what} relative to content/` })
    .refine((path) => ctx.fileExists(path), {
      error: `names ${what} that does not exist under content/`,
    });

const imageFile = (ctx: ContentContext) =>
  localFile(ctx, "an image file")
    .regex(/\.(jpe?g|png|webp|avif)$/i, {
      error: "must be a .jpg, .png, .webp or .avif image",
    })
    .meta({
      description: "A path under content/, like images/hero.jpg.",
      link: { type: "File", by: "relativePath" },
    });

const logoAddress = (ctx: ContentContext) =>
  z
    .union([z.string().regex(/^https:\/\/\S+$/), localFile(ctx, "a logo file").regex(/\.(svg|png|jpe?g|webp)$/i)], {
      error: "must be an https:// address or an existing .svg, .png, .jpg or .webp file under content/",
    })
    .meta({
      description: "A path under content/ or an https:// address.",
      link: { type: "File", by: "relativePath", as: "logoFile" },
    });

const timeOfDay = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, { error: "must be a 24-hour time like 08:00" });

const weekday = z.enum(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]);

export const companySchema = (ctx: ContentContext) =>
  z.strictObject({
    name: text(),
    shortName: text().max(12, { error: "must be at most 12 characters to fit under a home-screen icon" }),
    icon: localFile(ctx, "an image file").regex(/\.png$/i, {
      error: "must be a square .png of at least 512 × 512 pixels",
    }),
    legalName: text(),
    tagline: text(),
    description: text(),
    siteUrl: z.url({ protocol: /^https$/, error: "must be the site's https:// address" }).regex(/[^/]$/, {
      error: "must not end with a slash",
    }),
    contact: z
      .strictObject({
        address: z
          .strictObject({
            street: text(),
            locality: text(),
            region: z.string().regex(/^[A-Z]{2}$/, { error: "must be a two-letter state code" }),
            postalCode: z.string().regex(/^\d{5}(-\d{4})?$/, { error: "must be a ZIP code" }),
            country: z.string().regex(/^[A-Z]{2}$/, { error: "must be a two-letter country code" }),
          })
          .meta({ graphqlType: "PostalAddress" }),
        phone: z
          .strictObject({
            display: text(),
            tel: z.string().regex(/^\+\d{8,15}$/, { error: "must be an international number like +19195550147" }),
          })
          .meta({ graphqlType: "PhoneNumber" }),
        email: z.email({ error: "must be an email address" }),
      })
      .meta({ graphqlType: "CompanyContact" }),
    contactLabels: z
      .strictObject({ address: text(), phone: text(), email: text(), hours: text() })
      .meta({ graphqlType: "ContactLabels" }),
    hours: z
      .strictObject({
        display: text(),
        days: z.array(weekday).min(1),
        opens: timeOfDay,
        closes: timeOfDay,
        timeZone: z
          .string()
          .regex(/^[A-Za-z_]+\/[A-Za-z_]+$/, { error: "must be an IANA time zone like America/New_York" }),
      })
      .meta({ graphqlType: "BusinessHours" }),
  });

export const navigationSchema = z.strictObject({
  skipLinkLabel: text(),
  primaryLabel: text(),
  menuLabel: text(),
  main: z.array(linkSchema).min(1),
  quoteAction: linkSchema,
  footer: z
    .strictObject({
      label: text(),
      columns: z
        .array(
          z.strictObject({ heading: text(), links: z.array(linkSchema).min(1) }).meta({ graphqlType: "FooterColumn" }),
        )
        .min(1),
      contactHeading: text(),
      rightsNotice: text(),
    })
    .meta({ graphqlType: "FooterContent" }),
});

export const solutionCardSchema = z
  .strictObject({
    title: text(),
    description: text(),
    icon: iconName,
  })
  .meta({ graphqlType: "SolutionCard" });

export const homeSchema = (ctx: ContentContext) =>
  z.strictObject({
    seo: seoSchema,
    hero: z
      .strictObject({
        headline: text(),
        text: text(),
        image: imageFile(ctx),
        imageAlt: z.string(),
        primaryAction: linkSchema,
        secondaryAction: linkSchema,
      })
      .meta({ graphqlType: "Hero" }),
    solutions: z
      .strictObject({
        heading: text(),
        intro: text(),
        cards: z.array(solutionCardSchema).min(1),
      })
      .meta({ graphqlType: "SolutionsSection" }),
    agencies: z
      .strictObject({
        heading: text(),
        intro: text(),
        carouselLabel: text(),
        previousLabel: text(),
        nextLabel: text(),
        positionTemplate: text().regex(/\{first\}.*\{last\}.*\{total\}/, {
          error: "must contain {first}, {last} and {total}",
        }),
      })
      .meta({ graphqlType: "AgenciesSection" }),
    about: z
      .strictObject({
        heading: text(),
        mission: text(),
        action: linkSchema,
      })
      .meta({ graphqlType: "AboutSection" }),
    contact: z
      .strictObject({
        heading: text(),
        intro: text(),
      })
      .meta({ graphqlType: "HomeContactSection" }),
  });

export const agencySchema = (ctx: ContentContext) =>
  z
    .strictObject({
      name: text(),
      logo: logoAddress(ctx),
      alt: text(),
      showLogo: z.boolean(),
    })
    .meta({ graphqlType: "Agency" });

export const agenciesSchema = (ctx: ContentContext) =>
  z.strictObject({
    disclaimer: text(),
    agencies: z.array(agencySchema(ctx)).min(1),
  });

/** Words in page text that are replaced with the company's own details. */
export const textTokens = ["email", "phone", "hours"] as const;
export type TextToken = (typeof textTokens)[number];

const inquiryFieldSchema = z
  .strictObject({
    label: text(),
    hint: text().optional(),
    placeholder: text().optional(),
    required: z.boolean(),
    minLength: z.int().min(0).optional(),
    maxLength: z.int().min(1).optional(),
    autocomplete: text().optional(),
    options: z
      .array(z.strictObject({ value: text(), label: text() }).meta({ graphqlType: "InquiryOption" }))
      .min(1)
      .optional(),
    errors: z
      .strictObject({
        required: text().optional(),
        invalid: text().optional(),
        tooShort: text().optional(),
        tooLong: text().optional(),
      })
      .meta({ graphqlType: "InquiryFieldErrors" }),
  })
  .meta({ graphqlType: "InquiryField" });

/** Form copy that names the company's contact details, and sometimes a value only known when it is shown. */
const formText = (...required: string[]) => {
  const allowed = [...textTokens, ...required];
  return text()
    .refine((value) => [...value.matchAll(/\{(\w+)\}/g)].every(([, token]) => allowed.includes(token ?? "")), {
      error: `may only use the placeholders ${allowed.map((token) => `{${token}}`).join(", ")}`,
    })
    .refine((value) => required.every((token) => value.includes(`{${token}}`)), {
      error: `must contain ${required.map((token) => `{${token}}`).join(" and ")}`,
    });
};

export const inquirySchema = z
  .strictObject({
    heading: text(),
    detailsHeading: text(),
    requiredNote: text(),
    requiredMarker: text(),
    formFields: z
      .strictObject(
        Object.fromEntries(inquiryFieldNames.map((name) => [name, inquiryFieldSchema])) as Record<
          InquiryFieldName,
          typeof inquiryFieldSchema
        >,
      )
      .meta({ graphqlType: "InquiryFields" }),
    inquiryTypes: z
      .array(
        z.strictObject({ value: z.string().regex(/^[a-z-]+$/), label: text() }).meta({ graphqlType: "InquiryOption" }),
      )
      .min(2),
    defaultType: text(),
    quoteType: text(),
    submitLabel: text(),
    errorSummary: text(),
    honeypotLabel: text(),
    sendingLabel: text(),
    sent: z
      .strictObject({ title: text(), text: formText("reference"), againLabel: text() })
      .meta({ graphqlType: "InquirySent" }),
    failed: z
      .strictObject({
        title: text(),
        text: formText(),
        retryLabel: text(),
        emailActionLabel: text(),
        emailSubject: text(),
      })
      .meta({ graphqlType: "InquiryFailed" }),
    tooMany: z.strictObject({ title: text(), text: formText("minutes") }).meta({ graphqlType: "InquiryTooMany" }),
    resultPage: z
      .strictObject({
        receivedTitle: text(),
        rejectedTitle: text(),
        rejectedIntro: text(),
        backLabel: text(),
        homeLabel: text(),
        crossSiteTitle: text(),
        crossSiteText: formText(),
      })
      .meta({ graphqlType: "InquiryResultPage" }),
    delivery: z
      .strictObject({
        referencePrefix: z.string().regex(/^[A-Z]{2,5}$/, { error: "must be 2 to 5 capital letters, like CRS" }),
        emailSubject: formText("reference", "type"),
        minFillSeconds: z.number().min(0).max(60),
        rateLimit: z
          .strictObject({ requests: z.int().min(1), windowSeconds: z.int().min(1) })
          .meta({ graphqlType: "InquiryRateLimit" }),
        maxBodyKilobytes: z.int().min(16).max(1024),
        concurrency: z.int().min(1).max(32),
        attemptTimeoutSeconds: z.int().min(1).max(300),
        retry: z
          .strictObject({
            maxAttempts: z.int().min(1).max(50),
            firstDelaySeconds: z.int().min(1),
            maxDelaySeconds: z.int().min(1),
          })
          .meta({ graphqlType: "InquiryRetryPolicy" }),
      })
      .meta({ graphqlType: "InquiryDelivery" }),
  })
  .superRefine((form, ctx) => {
    const values = form.inquiryTypes.map((option) => option.value);
    for (const key of ["defaultType", "quoteType"] as const) {
      if (!values.includes(form[key])) {
        ctx.addIssue({
          code: "custom",
          path: [key],
          input: form[key],
          message: `must be one of the inquiryTypes values: ${values.join(", ")}`,
        });
      }
    }
    for (const name of inquiryFieldNames) {
      const field = form.formFields[name];
      if (field.required && !field.errors.required) {
        ctx.addIssue({
          code: "custom",
          path: ["formFields", name, "errors", "required"],
          message: "a required field needs a 'required' error message",
        });
      }
      if (field.minLength && !field.errors.tooShort) {
        ctx.addIssue({
          code: "custom",
          path: ["formFields", name, "errors", "tooShort"],
          message: "a field with minLength needs a 'tooShort' error message",
        });
      }
    }
    for (const name of [
      "email",
      "phone",
      "productCategory",
      "needBy",
      "shipToState",
      "buyingMethod",
      "compliance",
    ] as const) {
      if (!form.formFields[name].errors.invalid) {
        ctx.addIssue({
          code: "custom",
          path: ["formFields", name, "errors", "invalid"],
          message: "this field needs an 'invalid' error message",
        });
      }
    }
    for (const name of inquiryFieldNames) {
      const field = form.formFields[name];
      if (name !== "compliance" && (!field.maxLength || !field.errors.tooLong)) {
        ctx.addIssue({
          code: "custom",
          path: ["formFields", name, "maxLength"],
          message: "a text field needs a maxLength and a 'tooLong' error message",
        });
      }
    }
    for (const name of ["shipToState", "buyingMethod"] as const) {
      if (!form.formFields[name].options) {
        ctx.addIssue({
          code: "custom",
          path: ["formFields", name, "options"],
          message: "this field needs its list of options",
        });
      }
    }
  });

export const systemPagesSchema = z.strictObject({
  updatedLabel: text(),
  notFound: z
    .strictObject({
      seoTitle: text(),
      heading: text(),
      text: text(),
      homeLabel: text(),
      consoleMessage: text().regex(/\{path\}/, { error: "must contain {path}" }),
    })
    .meta({ graphqlType: "NotFoundPage" }),
  error: z
    .strictObject({
      title: text(),
      intro: text(),
      homeLabel: text(),
    })
    .meta({ graphqlType: "ErrorScreenContent" }),
});

const pageText = () =>
  text().refine(
    (value) =>
      [...value.matchAll(/\{(\w+)\}/g)].every(([, token]) => (textTokens as readonly string[]).includes(token ?? "")),
    {
      error: `may only use the placeholders ${textTokens.map((token) => `{${token}}`).join(", ")}`,
    },
  );

const slug = z
  .string()
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, { error: "must be lowercase words joined by hyphens, like office-supplies" });

const ctaSchema = z
  .strictObject({ heading: text(), text: text(), action: linkSchema })
  .meta({ graphqlType: "CallToAction" });

export const productCategorySchema = (ctx: ContentContext) =>
  z.strictObject({
    slug,
    order: z.int().min(0),
    title: text(),
    shortTitle: text(),
    icon: iconName,
    summary: text(),
    seo: seoSchema,
    overview: z.array(text()).min(1),
    image: imageFile(ctx),
    imageAlt: z.string(),
    lines: z
      .array(
        z
          .strictObject({
            name: text(),
            description: text(),
            compliance: z
              .array(text())
              .meta({ description: "Ids of compliance marks defined in certifications.json." }),
          })
          .meta({ graphqlType: "ProductLine" }),
      )
      .min(1),
    cta: z.strictObject({ heading: text(), text: text(), label: text() }).meta({ graphqlType: "ProductCallToAction" }),
  });

export const contentPageSchema = z.strictObject({
  slug,
  title: text(),
  updated: z.iso.date({ error: "must be a date like 2026-11-22" }).optional(),
  seo: seoSchema,
  intro: pageText(),
  sections: z
    .array(
      z
        .strictObject({
          heading: text(),
          icon: iconName.optional(),
          paragraphs: z.array(pageText()).optional(),
          items: z.array(pageText()).optional(),
        })
        .meta({ graphqlType: "ContentPageSection" }),
    )
    .min(1),
  cta: ctaSchema.optional(),
});

const codeList = <T extends z.ZodRawShape>(graphqlType: string, shape: T) =>
  z.array(z.strictObject(shape).meta({ graphqlType })).min(1);

export const certificationsSchema = z.strictObject({
  seo: seoSchema,
  heading: text(),
  intro: text(),
  identifiers: z
    .strictObject({
      heading: text(),
      uei: z
        .string()
        .regex(/^[A-HJ-NP-Z1-9][A-HJ-NP-Z0-9]{11}$/, { error: "must be a 12-character SAM.gov Unique Entity ID" }),
      cage: z.string().regex(/^[A-Z0-9]{5}$/, { error: "must be a 5-character CAGE code" }),
      samStatus: text(),
      stateVendorNumber: text(),
    })
    .meta({ graphqlType: "CompanyIdentifiers" }),
  identifierLabels: z
    .strictObject({ uei: text(), cage: text(), samStatus: text(), stateVendorNumber: text() })
    .meta({ graphqlType: "CompanyIdentifierLabels" }),
  tableHeaders: z.strictObject({ code: text(), title: text() }).meta({ graphqlType: "CodeTableHeaders" }),
  naics: z
    .strictObject({
      heading: text(),
      primaryLabel: text(),
      codes: codeList("NaicsCode", {
        code: z.string().regex(/^\d{6}$/, { error: "must be a 6-digit NAICS code" }),
        title: text(),
        primary: z.boolean(),
      }).refine((codes) => codes.filter((entry) => entry.primary).length === 1, {
        error: "exactly one NAICS code must be primary",
      }),
    })
    .meta({ graphqlType: "NaicsList" }),
  psc: z
    .strictObject({
      heading: text(),
      codes: codeList("ProductServiceCode", {
        code: z.string().regex(/^[A-Z0-9]{4}$/, { error: "must be a 4-character product or service code" }),
        title: text(),
      }),
    })
    .meta({ graphqlType: "ProductServiceCodeList" }),
  contractVehicles: z
    .strictObject({
      heading: text(),
      items: codeList("ContractVehicle", { name: text(), detail: text(), description: text() }),
    })
    .meta({ graphqlType: "ContractVehicleList" }),
  smallBusiness: z
    .strictObject({ heading: text(), items: codeList("SmallBusinessCertification", { name: text(), detail: text() }) })
    .meta({ graphqlType: "SmallBusinessList" }),
  compliance: z
    .strictObject({
      heading: text(),
      items: codeList("ComplianceMark", { id: slug, name: text(), description: text() }),
    })
    .meta({ graphqlType: "ComplianceList" }),
  capability: z
    .strictObject({
      seo: seoSchema,
      heading: text(),
      printLabel: text(),
      summary: text(),
      competenciesHeading: text(),
      competencies: z.array(text()).min(1),
      differentiatorsHeading: text(),
      differentiators: z.array(text()).min(1),
      identifiersHeading: text(),
      contactHeading: text(),
      contactName: text(),
    })
    .meta({ graphqlType: "CapabilityStatement" }),
});

/** A page that introduces the inquiry form; the contact and the quote page share it. */
const contactPageSchema = z
  .strictObject({ seo: seoSchema, heading: text(), intro: text() })
  .meta({ graphqlType: "ContactPageContent" });

export const sitePagesSchema = z.strictObject({
  products: z
    .strictObject({
      seo: seoSchema,
      heading: text(),
      intro: text(),
      cardActionLabel: text().regex(/\{title\}/, { error: "must contain {title}" }),
      overviewHeading: text(),
      linesHeading: text(),
      complianceHeading: text(),
    })
    .meta({ graphqlType: "ProductsPageContent" }),
  contact: contactPageSchema,
  quote: contactPageSchema,
  clients: z
    .strictObject({
      seo: seoSchema,
      heading: text(),
      intro: text(),
      sectorsHeading: text(),
      sectors: z
        .array(
          z
            .strictObject({
              name: text(),
              description: text(),
              icon: iconName,
            })
            .meta({ graphqlType: "Sector" }),
        )
        .min(1),
      agenciesHeading: text(),
    })
    .meta({ graphqlType: "ClientsPageContent" }),
});

export const singleFileSchemas = (ctx: ContentContext): Record<SingleFileName, z.ZodType> => ({
  "company.json": companySchema(ctx),
  "navigation.json": navigationSchema,
  "home.json": homeSchema(ctx),
  "agencies.json": agenciesSchema(ctx),
  "inquiry.json": inquirySchema,
  "system-pages.json": systemPagesSchema,
  "site-pages.json": sitePagesSchema,
  "certifications.json": certificationsSchema,
});

export const folderSchemas = (ctx: ContentContext): Record<FolderName, z.ZodType> => ({
  products: productCategorySchema(ctx),
  pages: contentPageSchema,
});
