import { z } from "zod";
import { iconNames } from "./icon-names";
import type { ContentFileName } from "./content-files";
import { inquiryFieldNames, type InquiryFieldName } from "../inquiry/validation";

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

const text = () => z.string().trim().min(1, { error: "must not be empty" });

const internalPath = z
  .string()
  .regex(/^\/[^\s]*$/, { error: "must be a site path starting with /" });

const externalHref = z
  .string()
  .regex(/^(https:\/\/|mailto:|tel:)\S+$/, {
    error: "must start with /, https://, mailto: or tel:",
  });

export const linkSchema = z.strictObject({
  label: text(),
  to: z.union([internalPath, externalHref], {
    error: "must be a site path starting with / or an https://, mailto: or tel: address",
  }),
});

const seoSchema = z.strictObject({
  title: text(),
  description: text().max(200, { error: "should be at most 200 characters for search results" }),
});

const localFile = (ctx: ContentContext, what: string) =>
  z
    .string()
    .regex(/^[\w./-]+$/, { error: `must be a path to ${what} relative to content/` })
    .refine((path) => ctx.fileExists(path), {
      error: `names ${what} that does not exist under content/`,
    });

const imageFile = (ctx: ContentContext) =>
  localFile(ctx, "an image file").regex(/\.(jpe?g|png|webp|avif)$/i, {
    error: "must be a .jpg, .png, .webp or .avif image",
  });

const logoAddress = (ctx: ContentContext) =>
  z.union(
    [
      z.string().regex(/^https:\/\/\S+$/),
      localFile(ctx, "a logo file").regex(/\.(svg|png|jpe?g|webp)$/i),
    ],
    { error: "must be an https:// address or an existing .svg, .png, .jpg or .webp file under content/" },
  );

const timeOfDay = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, { error: "must be a 24-hour time like 08:00" });

const weekday = z.enum(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]);

export const companySchema = z.strictObject({
  name: text(),
  legalName: text(),
  tagline: text(),
  description: text(),
  siteUrl: z.url({ protocol: /^https$/, error: "must be the site's https:// address" }).regex(/[^/]$/, {
    error: "must not end with a slash",
  }),
  contact: z.strictObject({
    address: z.strictObject({
      street: text(),
      locality: text(),
      region: z.string().regex(/^[A-Z]{2}$/, { error: "must be a two-letter state code" }),
      postalCode: z.string().regex(/^\d{5}(-\d{4})?$/, { error: "must be a ZIP code" }),
      country: z.string().regex(/^[A-Z]{2}$/, { error: "must be a two-letter country code" }),
    }),
    phone: z.strictObject({
      display: text(),
      tel: z.string().regex(/^\+\d{8,15}$/, { error: "must be an international number like +19195550147" }),
    }),
    email: z.email({ error: "must be an email address" }),
  }),
  contactLabels: z.strictObject({ address: text(), phone: text(), email: text(), hours: text() }),
  hours: z.strictObject({
    display: text(),
    days: z.array(weekday).min(1),
    opens: timeOfDay,
    closes: timeOfDay,
    timeZone: z.string().regex(/^[A-Za-z_]+\/[A-Za-z_]+$/, { error: "must be an IANA time zone like America/New_York" }),
  }),
});

export const navigationSchema = z.strictObject({
  skipLinkLabel: text(),
  homeLabel: text(),
  primaryLabel: text(),
  menuLabel: text(),
  main: z.array(linkSchema).min(1),
  quoteAction: linkSchema,
  footer: z.strictObject({
    label: text(),
    columns: z.array(z.strictObject({ heading: text(), links: z.array(linkSchema).min(1) })).min(1),
    contactHeading: text(),
    rightsNotice: text(),
  }),
});

export const solutionCardSchema = z.strictObject({
  title: text(),
  description: text(),
  icon: z.enum(iconNames, { error: `must be one of the icon names: ${iconNames.join(", ")}` }),
});

export const homeSchema = (ctx: ContentContext) =>
  z.strictObject({
    seo: seoSchema,
    hero: z.strictObject({
      headline: text(),
      text: text(),
      image: imageFile(ctx),
      imageAlt: z.string(),
      primaryAction: linkSchema,
      secondaryAction: linkSchema,
    }),
    solutions: z.strictObject({
      heading: text(),
      intro: text(),
      cards: z.array(solutionCardSchema).min(1),
    }),
    agencies: z.strictObject({
      heading: text(),
      intro: text(),
      disclaimer: text(),
      carouselLabel: text(),
      previousLabel: text(),
      nextLabel: text(),
      positionTemplate: text().regex(/\{first\}.*\{last\}.*\{total\}/, {
        error: "must contain {first}, {last} and {total}",
      }),
    }),
    about: z.strictObject({
      heading: text(),
      mission: text(),
      action: linkSchema,
    }),
    contact: z.strictObject({
      heading: text(),
      intro: text(),
    }),
  });

export const agencySchema = (ctx: ContentContext) =>
  z.strictObject({
    name: text(),
    logo: logoAddress(ctx),
    alt: text(),
    showLogo: z.boolean(),
  });

export const agenciesSchema = (ctx: ContentContext) =>
  z.strictObject({
    agencies: z.array(agencySchema(ctx)).min(1),
  });

const inquiryFieldSchema = z.strictObject({
  label: text(),
  hint: text().optional(),
  placeholder: text().optional(),
  required: z.boolean(),
  minLength: z.int().min(0).optional(),
  maxLength: z.int().min(1),
  autocomplete: text().optional(),
  errors: z.strictObject({
    required: text().optional(),
    invalid: text().optional(),
    tooShort: text().optional(),
    tooLong: text(),
  }),
});


export const inquirySchema = z
  .strictObject({
    heading: text(),
    detailsHeading: text(),
    requiredNote: text(),
    requiredMarker: text(),
    formFields: z.strictObject(
      Object.fromEntries(inquiryFieldNames.map((name) => [name, inquiryFieldSchema])) as Record<
        InquiryFieldName,
        typeof inquiryFieldSchema
      >,
    ),
    inquiryTypes: z.array(z.strictObject({ value: z.string().regex(/^[a-z-]+$/), label: text() })).min(2),
    defaultType: text(),
    quoteType: text(),
    submitLabel: text(),
    errorSummary: text(),
    notSent: z.strictObject({ title: text(), text: text(), emailActionLabel: text(), emailSubject: text() }),
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
    for (const name of ["email", "phone"] as const) {
      if (!form.formFields[name].errors.invalid) {
        ctx.addIssue({
          code: "custom",
          path: ["formFields", name, "errors", "invalid"],
          message: "this field needs an 'invalid' error message",
        });
      }
    }
  });

export const systemPagesSchema = z.strictObject({
  notFound: z.strictObject({
    seoTitle: text(),
    heading: text(),
    text: text(),
    homeLabel: text(),
    consoleMessage: text().regex(/\{path\}/, { error: "must contain {path}" }),
  }),
  error: z.strictObject({
    title: text(),
    intro: text(),
    homeLabel: text(),
  }),
});

export const contentSchemas = (ctx: ContentContext): Record<ContentFileName, z.ZodType> => ({
  "company.json": companySchema,
  "navigation.json": navigationSchema,
  "home.json": homeSchema(ctx),
  "agencies.json": agenciesSchema(ctx),
  "inquiry.json": inquirySchema,
  "system-pages.json": systemPagesSchema,
});

export type InquiryContent = z.infer<typeof inquirySchema>;
