import { z } from "zod";
import { iconNames } from "./icon-names";
import type { FolderName, SingleFileName } from "./content-files";
import { inquiryFieldNames, type InquiryFieldName } from "./inquiry-fields";

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

const linkSchema = z
  .strictObject({
    label: text().meta({ title: "Text" }),
    to: z
      .union([internalPath, externalHref], {
        error: "must be a site path starting with / or an https://, mailto: or tel: address",
      })
      .meta({
        title: "Goes to",
        description: "A page of the site, like /contact/, or an https://, mailto: or tel: address.",
      }),
  })
  .meta({ graphqlType: "Link" });

const seoSchema = z
  .strictObject({
    title: text().meta({ title: "Title", description: "The title in search results and browser tabs." }),
    description: text().max(200, { error: "should be at most 200 characters for search results" }).meta({
      title: "Description",
      description: "The summary under the title in search results; at most 200 characters.",
    }),
  })
  .meta({
    graphqlType: "PageSeo",
    title: "Search engines",
    description: "How the page appears in search results and when a link to it is shared.",
  });

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
      cms: { widget: "image", choose_url: false },
    });

const logoAddress = (ctx: ContentContext) =>
  z
    .union([z.string().regex(/^https:\/\/\S+$/), localFile(ctx, "a logo file").regex(/\.(svg|png|jpe?g|webp)$/i)], {
      error: "must be an https:// address or an existing .svg, .png, .jpg or .webp file under content/",
    })
    .meta({
      description:
        "A path under content/ or an https:// address. A PNG or WebP of about 240 × 240 pixels shows fastest: a browser builds a separate document for every SVG image.",
      link: { type: "File", by: "relativePath", as: "logoFile" },
      cms: { widget: "image", media_folder: "/content/images/agencies", public_folder: "images/agencies" },
    });

const timeOfDay = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, { error: "must be a 24-hour time like 08:00" });

const weekday = z.enum(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]);

export const companySchema = (ctx: ContentContext) =>
  z
    .strictObject({
      name: text().meta({ title: "Company name" }),
      shortName: text().max(12, { error: "must be at most 12 characters to fit under a home-screen icon" }).meta({
        title: "Short name",
        description: "Shown under the icon on a phone's home screen; at most 12 characters.",
      }),
      icon: localFile(ctx, "an image file")
        .regex(/\.png$/i, {
          error: "must be a square .png of at least 512 × 512 pixels",
        })
        .meta({
          title: "Site icon",
          description: "A square .png of at least 512 × 512 pixels: the browser tab and home-screen icon.",
          cms: { widget: "image", choose_url: false },
        }),
      legalName: text().meta({
        title: "Legal name",
        description: "As registered, for the footer and the capability statement.",
      }),
      tagline: text().meta({ title: "Tagline" }),
      description: text().meta({
        title: "Description",
        description: "One or two sentences about the company for search engines and shared links.",
      }),
      siteUrl: z
        .url({ protocol: /^https$/, error: "must be the site's https:// address" })
        .regex(/[^/]$/, {
          error: "must not end with a slash",
        })
        .meta({
          title: "Site address",
          description: "The site's https:// address without a slash at the end; static/robots.txt names it too.",
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
          email: z.email({ error: "must be an email address" }).meta({ title: "Email" }),
        })
        .meta({ graphqlType: "CompanyContact", title: "Contact details" }),
      contactLabels: z
        .strictObject({
          address: text().meta({ title: "Address label" }),
          phone: text().meta({ title: "Phone label" }),
          email: text().meta({ title: "Email label" }),
          hours: text().meta({ title: "Hours label" }),
        })
        .meta({
          graphqlType: "ContactLabels",
          title: "Contact labels",
          description: "The words shown before each contact detail.",
        }),
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
        .meta({ graphqlType: "BusinessHours", title: "Opening hours" }),
    })
    .meta({
      title: "Company details",
      description:
        "Name, address, phone, email and opening hours: the footer, the contact page and search engines show them.",
    });

export const navigationSchema = z
  .strictObject({
    skipLinkLabel: text().meta({
      title: "Skip link",
      description: "Shown to keyboard and screen-reader users: jumps past the menu to the page's content.",
    }),
    primaryLabel: text().meta({ title: "Main menu name", description: "Read by screen readers for the main menu." }),
    menuLabel: text().meta({ title: "Menu button", description: "The button that opens the menu on phones." }),
    main: z.array(linkSchema).min(1).meta({ title: "Main menu" }),
    quoteAction: linkSchema.meta({ title: "Quote button", description: "The button at the end of the menu." }),
    footer: z
      .strictObject({
        label: text(),
        columns: z
          .array(
            z
              .strictObject({ heading: text(), links: z.array(linkSchema).min(1) })
              .meta({ graphqlType: "FooterColumn" }),
          )
          .min(1),
        contactHeading: text(),
        rightsNotice: text(),
      })
      .meta({ graphqlType: "FooterContent", title: "Footer" }),
  })
  .meta({ title: "Menus and footer", description: "The main menu, the quote button and the footer's links." });

const solutionCardSchema = z
  .strictObject({
    title: text(),
    description: text(),
    icon: iconName,
  })
  .meta({ graphqlType: "SolutionCard" });

export const homeSchema = (ctx: ContentContext) =>
  z
    .strictObject({
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
        .meta({
          graphqlType: "Hero",
          title: "Top of the page",
          description: "The headline, text, picture and buttons visitors see first.",
        }),
      solutions: z
        .strictObject({
          heading: text(),
          intro: text(),
          cards: z.array(solutionCardSchema).min(1),
        })
        .meta({ graphqlType: "SolutionsSection", title: "Solutions" }),
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
        .meta({
          graphqlType: "AgenciesSection",
          title: "Agencies",
          description: "The heading and carousel texts; the agencies themselves are in Agencies served.",
        }),
      about: z
        .strictObject({
          heading: text(),
          mission: text(),
          action: linkSchema,
        })
        .meta({ graphqlType: "AboutSection", title: "About" }),
      contact: z
        .strictObject({
          heading: text(),
          intro: text(),
        })
        .meta({
          graphqlType: "HomeContactSection",
          title: "Contact",
          description: "The heading and text above the inquiry form.",
        }),
    })
    .meta({
      title: "Home page",
      description:
        "Every section of the home page except the agencies themselves (Agencies served) and the inquiry form (Inquiry form).",
    });

const agencySchema = (ctx: ContentContext) =>
  z
    .strictObject({
      name: text(),
      logo: logoAddress(ctx),
      alt: text(),
      showLogo: z.boolean(),
    })
    .meta({ graphqlType: "Agency" });

export const agenciesSchema = (ctx: ContentContext) =>
  z
    .strictObject({
      disclaimer: text().meta({ title: "Logo disclaimer", description: "Shown under the logos." }),
      agencies: z
        .array(agencySchema(ctx))
        .min(1)
        .meta({ title: "Agencies", description: "In the order the carousel shows them." }),
    })
    .meta({
      title: "Agencies served",
      description: "The agencies in the carousel on the home and clients pages, with their logos.",
    });

/** Words in page text that are replaced with the company's own details. */
const textTokens = ["email", "phone", "hours"] as const;
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

/** Text whose {placeholders} are only those `allowed`. */
const textUsingOnly = (allowed: readonly string[]) =>
  text().refine((value) => [...value.matchAll(/\{(\w+)\}/g)].every(([, token]) => allowed.includes(token ?? "")), {
    error: `may only use the placeholders ${allowed.map((token) => `{${token}}`).join(", ")}`,
  });

/** Form copy that names the company's contact details, and sometimes a value only known when it is shown. */
const formText = (...required: string[]) =>
  textUsingOnly([...textTokens, ...required]).refine(
    (value) => required.every((token) => value.includes(`{${token}}`)),
    {
      error: `must contain ${required.map((token) => `{${token}}`).join(" and ")}`,
    },
  );

export const inquirySchema = z
  .strictObject({
    heading: text().meta({ title: "Form heading" }),
    detailsHeading: text().meta({ title: "Details heading" }),
    requiredNote: text().meta({ title: "Required fields note" }),
    requiredMarker: text().meta({
      title: "Required marker",
      description: "Shown after the label of a required field, like *.",
    }),
    formFields: z
      .strictObject(
        Object.fromEntries(inquiryFieldNames.map((name) => [name, inquiryFieldSchema])) as Record<
          InquiryFieldName,
          typeof inquiryFieldSchema
        >,
      )
      .meta({
        graphqlType: "InquiryFields",
        title: "Form fields",
        description: "Each field's label, hint and error messages.",
      }),
    inquiryTypes: z
      .array(
        z.strictObject({ value: z.string().regex(/^[a-z-]+$/), label: text() }).meta({ graphqlType: "InquiryOption" }),
      )
      .min(2)
      .meta({ title: "Inquiry types", description: "The choices of the “type of inquiry” field." }),
    defaultType: text().meta({
      title: "Default inquiry type",
      description: "The value of the inquiry type chosen when the form opens.",
    }),
    quoteType: text().meta({
      title: "Quote inquiry type",
      description: "The value of the inquiry type chosen on the quote page.",
    }),
    submitLabel: text().meta({ title: "Send button" }),
    errorSummary: text().meta({
      title: "Error summary",
      description: "Shown above the form when a field needs fixing.",
    }),
    honeypotLabel: text().meta({
      title: "Spam trap label",
      description: "The label of a hidden field that only spam robots fill in.",
    }),
    sendingLabel: text().meta({ title: "Sending message" }),
    sent: z
      .strictObject({ title: text(), text: formText("reference"), againLabel: text() })
      .meta({ graphqlType: "InquirySent", title: "After sending" }),
    failed: z
      .strictObject({
        title: text(),
        text: formText(),
        retryLabel: text(),
        emailActionLabel: text(),
        emailSubject: text(),
      })
      .meta({ graphqlType: "InquiryFailed", title: "When sending fails" }),
    tooMany: z
      .strictObject({ title: text(), text: formText("minutes") })
      .meta({ graphqlType: "InquiryTooMany", title: "Too many inquiries" }),
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
      .meta({
        graphqlType: "InquiryResultPage",
        title: "Result page",
        description: "Shown after sending in a browser without JavaScript.",
      }),
    held: z
      .strictObject({
        label: text().meta({
          title: "Mark of a held inquiry",
          description: "How the digest and the release page name an inquiry held as suspected spam.",
        }),
        reasons: z
          .strictObject({
            honeypot: text().meta({ title: "The hidden field was filled" }),
            tooFast: text().meta({ title: "Sent too fast" }),
          })
          .meta({
            graphqlType: "InquiryHeldReasons",
            title: "Why it was held",
            description: "Shown after the mark, in the digest and on the release page.",
          }),
        digest: z
          .strictObject({
            emailSubject: formText("count", "date").meta({ title: "Email subject" }),
            intro: formText("days").meta({ title: "Introduction" }),
            replyLabel: text().meta({ title: "Reply link" }),
            releaseLabel: text().meta({ title: "Release link" }),
            releaseNote: formText("date").meta({ title: "Note under the release link" }),
            noReleaseLink: formText("reference").meta({
              title: "Without release links",
              description: "Instead of the link, where release links are not set up on the site.",
            }),
          })
          .meta({
            graphqlType: "InquiryHeldDigest",
            title: "Daily digest",
            description: "The daily email to the sales desk listing the inquiries held since the last one.",
          }),
        releasePage: z
          .strictObject({
            title: text(),
            text: formText("reference", "received", "reason"),
            buttonLabel: text(),
            releasedTitle: text(),
            releasedText: formText("reference"),
            refusedTitle: text(),
            forgedText: formText(),
            expiredText: formText(),
            usedText: formText("reference"),
            goneText: formText("reference"),
            crossSiteText: formText(),
            failedText: formText(),
          })
          .meta({
            graphqlType: "InquiryReleasePage",
            title: "Release page",
            description: "The page a release link in the digest opens, and what it says after the button.",
          }),
      })
      .meta({
        graphqlType: "InquiryHeld",
        title: "Held as suspected spam",
        description: "What the sales desk is told of inquiries held as suspected spam, and how one is released.",
      }),
    delivery: z
      .strictObject({
        referencePrefix: z.string().regex(/^[A-Z]{2,5}$/, { error: "must be 2 to 5 capital letters, like CRS" }),
        emailSubject: formText("reference", "type"),
        minFillSeconds: z.number().min(0).max(60),
        maxBodyKilobytes: z.int().min(16).max(1024),
        retention: z
          .strictObject({
            deliveredMonths: z.int().min(1).max(120).meta({
              title: "Delivered inquiries kept (months)",
              description:
                "How long an inquiry is kept after the sender's last inquiry, unless marked as kept for a quote or an order. The privacy page states it through {inquiryRetentionMonths}.",
            }),
            quarantinedDays: z.int().min(1).max(365).meta({
              title: "Unreleased suspected spam kept (days)",
              description: "How long an inquiry held as suspected spam, and never released, is kept.",
            }),
          })
          .meta({ graphqlType: "InquiryRetention", title: "Retention" }),
      })
      .meta({
        graphqlType: "InquiryDelivery",
        title: "Delivery",
        description:
          "How inquiries are numbered, checked for spam and kept. How fast they are sent, retried and rate-limited is set by whoever runs the site, in its environment.",
      }),
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
  })
  .meta({ title: "Inquiry form", description: "The form's texts, its fields and how inquiries are delivered." });

export const systemPagesSchema = z
  .strictObject({
    updatedLabel: text().meta({ title: "“Updated” label", description: "Shown before a page's last-updated date." }),
    notFound: z
      .strictObject({
        seoTitle: text(),
        heading: text(),
        text: text(),
        homeLabel: text(),
        consoleMessage: text().regex(/\{path\}/, { error: "must contain {path}" }),
      })
      .meta({ graphqlType: "NotFoundPage", title: "Page not found" }),
    error: z
      .strictObject({
        title: text(),
        intro: text(),
        homeLabel: text(),
      })
      .meta({
        graphqlType: "ErrorScreenContent",
        title: "Error screen",
        description: "Shown if a page fails to run in the browser.",
      }),
  })
  .meta({
    title: "Not-found and error pages",
    description: "What a visitor sees at an address that does not exist, or when a page fails.",
  });

/**
 * Figures a text page may name that other content files set, so that a page's promise and the code that keeps it
 * read one constant: {inquiryRetentionMonths} is delivery.retention.deliveredMonths in content/inquiry.json.
 */
const contentPageValueTokens = ["inquiryRetentionMonths"] as const;

const pageText = () => textUsingOnly([...textTokens, ...contentPageValueTokens]);

const slug = z
  .string()
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, { error: "must be lowercase words joined by hyphens, like office-supplies" });

const ctaSchema = z
  .strictObject({ heading: text(), text: text(), action: linkSchema })
  .meta({ graphqlType: "CallToAction" });

export const productCategorySchema = (ctx: ContentContext) =>
  z
    .strictObject({
      slug: slug.meta({
        title: "Address",
        description: "The page is /products/<address>/: lowercase words joined by hyphens.",
      }),
      order: z
        .int()
        .min(0)
        .meta({ title: "Position", description: "Categories are listed by this number, smallest first." }),
      title: text().meta({ title: "Title" }),
      shortTitle: text().meta({ title: "Short title", description: "For menus and cards." }),
      icon: iconName.meta({ title: "Icon" }),
      summary: text().meta({ title: "Summary", description: "The text of the category's card on the products page." }),
      seo: seoSchema,
      overview: z.array(text()).min(1).meta({ title: "Overview", description: "Paragraphs at the top of the page." }),
      image: imageFile(ctx).meta({ title: "Picture" }),
      imageAlt: z.string().meta({
        title: "Picture description",
        description: "What the picture shows, for screen readers; leave empty if it only decorates.",
      }),
      lines: z
        .array(
          z
            .strictObject({
              name: text(),
              description: text(),
              compliance: z.array(text()).meta({
                title: "Compliance marks",
                description: "Ids of compliance marks defined in certifications.json.",
                cms: {
                  widget: "relation",
                  collection: "site",
                  file: "certifications",
                  value_field: "compliance.items.*.id",
                  search_fields: ["compliance.items.*.name"],
                  display_fields: ["compliance.items.*.name"],
                  multiple: true,
                },
              }),
            })
            .meta({ graphqlType: "ProductLine", title: "Product line" }),
        )
        .min(1)
        .meta({ title: "Product lines" }),
      cta: z.strictObject({ heading: text(), text: text(), label: text() }).meta({
        graphqlType: "ProductCallToAction",
        title: "Call to action",
        description: "The box at the end of the page.",
      }),
    })
    .meta({
      title: "Product category",
      description: "A product category and its page at /products/<address>/.",
      cms: {
        label: "Product categories",
        media_folder: "/content/images/products",
        public_folder: "images/products",
        sortable_fields: [{ field: "order", default_sort: true }, "title"],
      },
    });

export const contentPageSchema = z
  .strictObject({
    slug: slug.meta({ title: "Address", description: "The page is /<address>/: lowercase words joined by hyphens." }),
    title: text().meta({ title: "Title" }),
    updated: z.iso
      .date({ error: "must be a date like 2026-11-22" })
      .optional()
      .meta({ title: "Last updated", description: "Shown under the title; leave empty for pages without a date." }),
    seo: seoSchema,
    intro: pageText().meta({ title: "Introduction" }),
    sections: z
      .array(
        z
          .strictObject({
            heading: text(),
            icon: iconName.optional(),
            paragraphs: z.array(pageText()).optional(),
            items: z.array(pageText()).optional(),
          })
          .meta({ graphqlType: "ContentPageSection", title: "Section" }),
      )
      .min(1),
    cta: ctaSchema
      .optional()
      .meta({ title: "Call to action", description: "The box at the end of the page; optional." }),
  })
  .meta({ title: "Page", description: "A text page such as About or Privacy, at /<address>/." });

const codeList = <T extends z.ZodRawShape>(graphqlType: string, shape: T) =>
  z.array(z.strictObject(shape).meta({ graphqlType })).min(1);

export const certificationsSchema = z
  .strictObject({
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
      .meta({ graphqlType: "CompanyIdentifiers", title: "Company identifiers" }),
    identifierLabels: z
      .strictObject({ uei: text(), cage: text(), samStatus: text(), stateVendorNumber: text() })
      .meta({ graphqlType: "CompanyIdentifierLabels", title: "Identifier labels" }),
    tableHeaders: z
      .strictObject({ code: text(), title: text() })
      .meta({ graphqlType: "CodeTableHeaders", title: "Code table headings" }),
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
      .meta({ graphqlType: "NaicsList", title: "NAICS codes" }),
    psc: z
      .strictObject({
        heading: text(),
        codes: codeList("ProductServiceCode", {
          code: z.string().regex(/^[A-Z0-9]{4}$/, { error: "must be a 4-character product or service code" }),
          title: text(),
        }),
      })
      .meta({ graphqlType: "ProductServiceCodeList", title: "Product and service codes (PSC)" }),
    contractVehicles: z
      .strictObject({
        heading: text(),
        items: codeList("ContractVehicle", { name: text(), detail: text(), description: text() }),
      })
      .meta({ graphqlType: "ContractVehicleList", title: "Contract vehicles" }),
    smallBusiness: z
      .strictObject({
        heading: text(),
        items: codeList("SmallBusinessCertification", { name: text(), detail: text() }),
      })
      .meta({ graphqlType: "SmallBusinessList", title: "Small-business certifications" }),
    compliance: z
      .strictObject({
        heading: text(),
        items: codeList("ComplianceMark", { id: slug, name: text(), description: text() }),
      })
      .meta({
        graphqlType: "ComplianceList",
        title: "Compliance marks",
        description: "Each mark's id is what product lines name in their compliance list.",
      }),
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
      .meta({
        graphqlType: "CapabilityStatement",
        title: "Capability statement",
        description: "The printable one-page summary at /capability-statement/.",
      }),
  })
  .meta({
    title: "Certifications",
    description:
      "The certifications page and the capability statement: identifiers, codes, contract vehicles and compliance marks.",
  });

/** A page that introduces the inquiry form; the contact and the quote page share it. */
const contactPageSchema = z
  .strictObject({ seo: seoSchema, heading: text(), intro: text() })
  .meta({ graphqlType: "ContactPageContent" });

export const sitePagesSchema = z
  .strictObject({
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
      .meta({ graphqlType: "ProductsPageContent", title: "Products page" }),
    contact: contactPageSchema.meta({ title: "Contact page" }),
    quote: contactPageSchema.meta({ title: "Quote page" }),
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
      .meta({ graphqlType: "ClientsPageContent", title: "Clients page" }),
  })
  .meta({
    title: "Products, contact, quote and clients pages",
    description: "The texts of the pages whose content comes from other files.",
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
