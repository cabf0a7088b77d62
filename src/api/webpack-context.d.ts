// Gatsby compiles functions with webpack, whose require.context lists a folder's files when the
// function is built; a product category added as a JSON file is then known to the function too.
declare namespace NodeJS {
  interface Require {
    context(
      directory: string,
      useSubdirectories: boolean,
      filter: RegExp,
    ): {
      keys(): string[];
      (id: string): unknown;
    };
  }
}
