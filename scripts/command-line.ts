import { parseArgs, type ParseArgsConfig } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * An operator tool's command line: `--help` (or `-h`) prints its usage and ends it with 0; an option it
 * does not know, or one without its value, ends it with 2 and a line that says which and where the usage is.
 */
export const readCommandLine = <O extends Options>(usage: string, options: O) => {
  const config = { options, strict: true as const };
  const asked = process.argv.slice(2);
  if (asked.includes("--help") || asked.includes("-h")) {
    console.log(usage.trim());
    process.exit(0);
  }
  try {
    return parseArgs(config).values;
  } catch (error) {
    console.error(`${(error as Error).message}\nSee --help for what it takes.`);
    process.exit(2);
  }
};
