import path from "node:path";
import { adminFolderHeaders, adminPageHeaders } from "./build/admin-headers";
import { removeEmptyFolders } from "./build/empty-folders";
import { buildingForNetlify } from "./build/netlify-adapter";
import { precompressFiles, removePrecompressedCopies } from "./build/precompressed-files";
import { writeHeadersFile } from "./build/security-headers";
import { readEditingBackend } from "./src/admin/editing-backend";
import { ADMIN_PATH, serveEditingScreen, writeEditingScreen } from "./src/admin/editing-screen";
import type { Application } from "express";
import type { GatsbyNode, Reporter } from "gatsby";
import { BannerPlugin, Compilation } from "webpack";
import {
  contentPageRoute,
  fixedRoutes,
  formatProblem,
  productRoute,
  validateContentDir,
  type ContentProblem,
} from "./src/content-contract/validate";
import { contentGraphqlTypeDefs } from "./src/content-contract/graphql";
import { robotsProblems } from "./src/seo/robots";

const contentDir = path.resolve("content");
const pagesDir = path.resolve("src/pages");

/**
 * Every content type is declared instead of inferred. Inference would
 * silently drop a field that an editor deleted from every entry, change a
 * field's type when an editor mistyped a value, and leave image paths as
 * plain strings; explicit types make queries stable and let graphqlTypegen
 * mark required fields as non-null. The declarations are generated from the
 * content contract (src/content-contract/graphql.ts), so they cannot drift from it.
 */
export const createSchemaCustomization: GatsbyNode["createSchemaCustomization"] = ({ actions }) => {
  actions.createTypes(contentGraphqlTypeDefs());
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
export const onPreBootstrap: GatsbyNode["onPreBootstrap"] = async ({ reporter, cache }) => {
  checkContent(reporter);
  const files = await writeEditingScreen(path.resolve("public"), cache.directory);
  reporter.info(`Editing screen written to public${ADMIN_PATH} (${files} files)`);
};

/** `gatsby develop` answers /admin/ too, so that `npm run edit` has the editing screen next to the site. */
export const onCreateDevServer: GatsbyNode["onCreateDevServer"] = ({ app }) => {
  // Gatsby's types leave the develop server's express app untyped.
  serveEditingScreen(app as Application, path.resolve("public"), {
    ...adminFolderHeaders,
    ...adminPageHeaders(readEditingBackend(), "editors-machine"),
  });
};

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
 * Marks every built script for eager compilation, V8's explicit compile hint
 * (`//# allFunctionsCalledOnLoad`, Chrome 136 and later). Without it V8
 * compiles each function on the main thread the first time it runs, and
 * nearly every function of React, Gatsby's runtime and a page's sections runs
 * while the page starts. With it, V8 compiles them on the thread that already
 * streams the script in, off the main thread and out of the total blocking
 * time (budgets.json). Other browsers read a comment.
 *
 * The lazily loaded chunks get it too: the slider and the form's checks run
 * as soon as they arrive. The comment goes in after minification (which would
 * strip it) and before the source maps and content hashes are made, so both
 * stay true to the file.
 */
export const onCreateWebpackConfig: GatsbyNode["onCreateWebpackConfig"] = ({ stage, actions }) => {
  if (stage !== "build-javascript") return;
  actions.setWebpackConfig({
    plugins: [
      new BannerPlugin({
        banner: "//# allFunctionsCalledOnLoad",
        raw: true,
        test: /\.js$/,
        stage: Compilation.PROCESS_ASSETS_STAGE_OPTIMIZE_SIZE + 1,
      }),
    ],
  });
};

/**
 * Writes public/_headers: every page's Content-Security-Policy with the hashes of the inline scripts
 * it was built with, and the headers every response carries (build/security-headers.ts). The
 * production server serves from it and the CDN reads it as is.
 *
 * Then, for the production server, a brotli and a gzip copy of each compressible file
 * (build/precompressed-files.ts). Not for a Netlify build: its CDN compresses by itself and would publish
 * the copies as files, so those an earlier build left in public/ are removed. Not for the editing screen,
 * whose Decap bundle is large, read by editors only and would take most of the compressing time; the
 * server compresses it as it sends it.
 */
export const onPostBuild: GatsbyNode["onPostBuild"] = async ({ reporter }) => {
  const publicDir = path.resolve("public");
  const pages = writeHeadersFile(publicDir);
  if (pages === 0) reporter.panicOnBuild("No built page found to write security headers for.");
  reporter.info(`Security headers written for ${pages} pages to public/_headers`);
  // Last, once the compressed copies of removed pages are gone too.
  const removeEmpty = () => {
    const emptied = removeEmptyFolders(publicDir);
    if (emptied > 0) reporter.info(`Removed ${emptied} folders a removed page left empty`);
  };
  if (buildingForNetlify()) {
    await removePrecompressedCopies(publicDir);
    removeEmpty();
    return;
  }
  const adminFolder = `${ADMIN_PATH.replace(/^\/|\/$/g, "")}/`;
  const { files, written, bytes, brotliBytes } = await precompressFiles(publicDir, {
    skip: (relative) => relative.startsWith(adminFolder),
  });
  reporter.info(
    `Brotli and gzip copies of ${files} files, ${written} of them written in this build, the others unchanged ` +
      `(${Math.round(bytes / 1024)} KB -> ${Math.round(brotliBytes / 1024)} KB brotli)`,
  );
  removeEmpty();
};

/**
 * Emotion's own Babel plugin (what gatsby-plugin-emotion installs): each css`` without interpolations is
 * serialized and hashed at build time instead of in the visitor's browser as its module loads, and the
 * plugin minifies the CSS it writes. No labels and no source maps: class names stay short in production.
 */
export const onCreateBabelConfig: GatsbyNode["onCreateBabelConfig"] = ({ actions }) => {
  actions.setBabelPlugin({ name: "@emotion/babel-plugin", options: { sourceMap: false, autoLabel: "never" } });
};
