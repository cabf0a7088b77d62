// Gatsby compiles with babel-preset-gatsby; jest uses the same preset with the
// emotion JSX runtime that gatsby-config sets, plus TypeScript.
const babelOptions = {
  presets: [
    ["babel-preset-gatsby", { reactRuntime: "automatic", reactImportSource: "@emotion/react" }],
    "@babel/preset-typescript",
  ],
};

module.exports = require("babel-jest").default.createTransformer(babelOptions);
