const os = require("node:os");

/** @type {import('jest').Config} */
module.exports = {
  // A worker per core and one more: jest's default, one fewer than the cores, runs every file in one process on
  // two cores, and most files spend much of their time waiting on a server, a build or Postgres, which another
  // file's worker can use. A second extra worker gained nothing more.
  maxWorkers: os.availableParallelism() + 1,
  testEnvironment: "jsdom",
  testEnvironmentOptions: { url: "http://localhost/" },
  transform: {
    // kysely is ES modules only, in syntax (private methods) that Gatsby's preset does not take: only its
    // modules are converted.
    "/node_modules/kysely/.+\\.js$": [
      "babel-jest",
      { babelrc: false, configFile: false, plugins: ["@babel/plugin-transform-modules-commonjs"] },
    ],
    "^.+\\.[jt]sx?$": "<rootDir>/jest-preprocess.js",
  },
  moduleNameMapper: {
    // ES modules only, with no "require" condition for jest's resolver to match: its Node build, transformed below.
    "^@octokit/webhooks-methods$": "<rootDir>/node_modules/@octokit/webhooks-methods/dist-node/index.js",
    "\\.css$": "identity-obj-proxy",
    "\\.(jpe?g|png|gif|svg|webp|avif)$": "<rootDir>/__mocks__/file-mock.js",
  },
  testMatch: ["<rootDir>/__tests__/**/*.test.[jt]s?(x)"],
  // A build's .cache holds copies of gatsby's package.json; jest would see two modules named gatsby.
  modulePathIgnorePatterns: ["<rootDir>/.cache", "<rootDir>/public"],
  testPathIgnorePatterns: ["node_modules", "\\.cache", "<rootDir>/public", "<rootDir>/e2e"],
  // gatsby ships untranspiled ES modules that jest must compile; @fastify/static's content-disposition (3.x) and
  // cookie (app.inject(), the sign-in) are ES modules only, and @fastify/cookie loads cookie with an import()
  // that jest's module system runs only once compiled; kysely is ES modules only too.
  transformIgnorePatterns: [
    "node_modules/(?!(kysely|gatsby|gatsby-script|gatsby-link|content-disposition|@fastify/static/node_modules/content-disposition|light-my-request/node_modules/cookie|cookie|@fastify/cookie|@octokit|universal-user-agent|before-after-hook|fast-content-type-parse|universal-github-app-jwt|json-with-bigint|content-type)/)",
  ],
  globals: { __PATH_PREFIX__: "", __BASE_PATH__: "" },
  setupFilesAfterEnv: ["<rootDir>/jest.setup.ts"],
  globalSetup: "<rootDir>/__tests__/support/jest-global-setup.ts",
};
