// ESLint flat config: `npm run lint` (eslint --max-warnings=0 .).
// TypeScript files are linted with type information from tsconfig.json (projectService), so rules such as
// no-floating-promises and no-unnecessary-condition see the same types as `tsc --noEmit`. Run
// `npm run typegen` first: without src/gatsby-types.d.ts the page queries' types are unknown.
import js from "@eslint/js";
import { defineConfig, globalIgnores } from "eslint/config";
import jsxA11y from "eslint-plugin-jsx-a11y";
import react from "eslint-plugin-react";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";
import { functionLength } from "./build/lint/function-length.mjs";

export default defineConfig(
  // Generated or built, never edited by hand.
  globalIgnores([
    "public/",
    "dist/",
    ".cache/",
    ".netlify/",
    "node_modules/",
    "src/gatsby-types.d.ts",
    "schemas/",
    "coverage/",
    "reports/",
    "screenshots/",
    ".data/",
    "test-results/",
    "playwright-report/",
  ]),
  {
    linterOptions: { reportUnusedDisableDirectives: "error" },
  },

  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // Template literals with numbers are how this code writes CSS lengths and messages
      // (`${space[4]}px`, `${count} pages`); a number always prints the way it is meant to.
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
      // `onClick={() => setOpen(false)}` and `.then(() => resolve())` are the idiomatic spelling of a
      // callback that returns nothing; braces around every such call add lines and no safety. Returning a
      // void call from a function body is still reported.
      "@typescript-eslint/no-confusing-void-expression": ["error", { ignoreArrowShorthand: true }],
      // `const { omitted, ...rest } = props` is how a prop is kept out of a spread.
      "@typescript-eslint/no-unused-vars": ["error", { ignoreRestSiblings: true }],
      // node:test's test() and describe() return promises that the runner itself awaits.
      "@typescript-eslint/no-floating-promises": [
        "error",
        {
          allowForKnownSafeCalls: [
            { from: "package", package: "node:test", name: ["test", "it", "describe", "suite"] },
          ],
        },
      ],
    },
  },

  // The back end and the operator's tools: every function readable at once.
  {
    files: ["server/**/*.ts", "scripts/**/*.ts"],
    plugins: { local: { rules: { "function-length": functionLength } } },
    rules: { "local/function-length": ["error", { max: 60 }] },
  },

  // Plain JavaScript (jest config and transform, mocks, node scripts) is outside tsconfig.json
  // (allowJs is off), so it has no type information for the type-checked rules.
  {
    files: ["**/*.{js,mjs,cjs}"],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // CommonJS: the jest config and transform, and the file mock jest loads with require.
    files: ["**/*.js"],
    languageOptions: { sourceType: "commonjs", globals: globals.node },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },

  // React: every .tsx file (src, gatsby-browser/ssr, tests, mocks).
  {
    files: ["**/*.tsx"],
    extends: [
      react.configs.flat.recommended,
      react.configs.flat["jsx-runtime"],
      reactHooks.configs.flat.recommended,
      jsxA11y.flatConfigs.strict,
    ],
    settings: { react: { version: "18" } },
    rules: {
      // Props are typed by TypeScript.
      "react/prop-types": "off",
      // `css` is @emotion/react's prop (jsxImportSource), not an unknown DOM attribute.
      "react/no-unknown-property": ["error", { ignore: ["css"] }],
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
    },
  },
  {
    // Custom hooks live in .ts files too (src/hooks, and wherever a component's state moves to a hook).
    files: ["src/**/*.ts"],
    extends: [reactHooks.configs.flat.recommended],
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
    },
  },

  // Globals per environment.
  {
    files: ["src/**/*", "gatsby-browser.tsx", "__mocks__/**/*"],
    languageOptions: { globals: globals.browser },
  },
  {
    // Run by node: build hooks, the functions' entry files, the server, scripts, bench, browser tests, their
    // shared support, config.
    files: [
      "gatsby-*.{ts,tsx}",
      "src/api/**/*",
      "build/**/*",
      "netlify/**/*",
      "server/**/*",
      "scripts/**/*",
      "bench/**/*",
      "e2e/**/*",
      "testing/**/*",
      "*.{js,mjs,cjs,ts}",
    ],
    languageOptions: { globals: globals.node },
  },
  {
    // Tests: `screen.getByRole(...).closest("section")!` states what the test expects, and if it is wrong the
    // test fails on the next line with a clear TypeError; a guard per lookup would only hide the assertion.
    files: ["__tests__/**/*", "e2e/**/*", "testing/**/*"],
    rules: { "@typescript-eslint/no-non-null-assertion": "off" },
  },
  {
    files: ["__tests__/**/*", "jest.setup.ts", "__mocks__/**/*"],
    languageOptions: { globals: { ...globals.jest, ...globals.node, ...globals.browser } },
  },
  {
    // A focused test (it.only, describe.only, test.only.each, fit, fdescribe) runs alone and every other
    // test of its file is skipped without failing. Playwright refuses them in CI (forbidOnly); jest has
    // no such switch, so lint refuses them in both.
    files: ["__tests__/**/*", "e2e/**/*"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[property.name='only']",
          message: "A focused test skips the others: remove .only before committing.",
        },
      ],
      "no-restricted-globals": [
        "error",
        { name: "fit", message: "A focused test skips the others: use it." },
        { name: "fdescribe", message: "A focused test skips the others: use describe." },
      ],
    },
  },
);
