import path from "node:path";
import type { GatsbyConfig } from "gatsby";
import { contentTypeNames, isContentFileName } from "./src/content/content-files";
import company from "./content/company.json";

const contentDir = path.join(__dirname, "content");

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
  plugins: [
    "gatsby-plugin-image",
    "gatsby-plugin-sharp",
    "gatsby-transformer-sharp",
    {
      resolve: "gatsby-source-filesystem",
      options: { name: "content", path: contentDir },
    },
    {
      resolve: "gatsby-transformer-json",
      options: {
        typeName: ({ node }: TransformerTypeNameArgs): string =>
          isContentFileName(node.relativePath) ? contentTypeNames[node.relativePath] : `Unknown${node.name}Json`,
      },
    },
  ],
};

export default config;
