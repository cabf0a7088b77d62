import path from "node:path";
import type { GatsbyConfig } from "gatsby";
import { contentTypeName } from "./src/content-contract/content-files";
import company from "./content/company.json";
import { colors } from "./src/styles/theme";
import { buildingForNetlify, siteNetlifyAdapter } from "./build/netlify-adapter";

const contentDir = path.resolve("content");

interface TransformerTypeNameArgs {
  node: { relativePath: string; name: string };
}

const config: GatsbyConfig = {
  siteMetadata: {
    siteUrl: company.siteUrl,
  },
  graphqlTypegen: {
    typesOutputPath: "src/gatsby-types.d.ts",
    generateOnBuild: true,
  },
  jsxRuntime: "automatic",
  jsxImportSource: "@emotion/react",
  trailingSlash: "always",
  // The functions are routed by netlify.toml, where each route carries the platform's rate limit.
  ...(buildingForNetlify()
    ? {
        adapter: siteNetlifyAdapter({
          routedByNetlifyToml: ["/api/inquiry", "/api/inquiry-release", "/api/auth", "/api/auth/callback"],
        }),
      }
    : {}),
  plugins: [
    "gatsby-plugin-image",
    "gatsby-plugin-sharp",
    "gatsby-transformer-sharp",
    {
      resolve: "gatsby-source-filesystem",
      options: { name: "content", path: contentDir },
    },
    {
      resolve: "gatsby-plugin-manifest",
      options: {
        name: company.name,
        short_name: company.shortName,
        description: company.description,
        start_url: "/",
        background_color: colors.white,
        theme_color: colors.navy,
        // Each page's Head (Seo) already declares the theme colour; the plugin's copy made it twice.
        theme_color_in_head: false,
        display: "minimal-ui",
        icon: path.join(contentDir, company.icon),
        // Icons are referenced without a hash query so the HTML does not change when the icon is unchanged.
        cache_busting_mode: "none",
      },
    },
    {
      resolve: "gatsby-plugin-sitemap",
      options: {
        // The 404 page is not a destination, and the editing screen is for the company's editors only.
        excludes: ["/404/", "/404.html", "/dev-404-page/", "/admin/"],
      },
    },
    {
      resolve: "gatsby-transformer-json",
      options: {
        // An unknown file gets a type of its own; content validation reports it.
        typeName: ({ node }: TransformerTypeNameArgs): string =>
          contentTypeName(node.relativePath) ?? `Unknown${node.name.replace(/\W/g, "")}Json`,
      },
    },
  ],
};

export default config;
