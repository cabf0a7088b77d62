import { readField, text, wholeNumber, type Environment, type Field } from "../server/settings/catalog";

/**
 * The variables the tests, the benches and the tools that launch a browser read: never the site's, so kept out of
 * its catalogue (server/settings/catalog.ts), and out of the Netlify functions it is bundled into. Described with the
 * same builders and read with the same rules; docs/development.md's table is generated from it
 * (`npm run docs:settings`).
 */
export const toolCatalogue = {
  CHROME_PATH: text("/usr/bin/chromium", {
    applies: ["tests", "bench"],
    meaning: "the Chromium the browser tests, `npm run screenshots` and Lighthouse launch",
  }),
  LHCI_PORT: text("9100", {
    applies: ["bench"],
    meaning:
      "the port of the production server `lhci collect` measures when run by hand (`lighthouserc.js`); `npm run bench` takes a free port",
  }),
  BENCH_RUNS: wholeNumber(1, 20, null, {
    applies: ["bench"],
    defaultText: "`5` (`lighthouserc.js`)",
    meaning: "Lighthouse runs per page, one a round; `1` for a quick look",
  }),
  LOAD_SUBMISSIONS: wholeNumber(0, 100_000, null, {
    applies: ["bench"],
    defaultText: "`budgets.json`'s `inquiryLoad` (200)",
    meaning: "another count of submissions for the inquiry load; `npm run check:budgets` fails such a run",
  }),
  LOAD_REFUSED: wholeNumber(0, 1_000_000, null, {
    applies: ["bench"],
    defaultText: "`budgets.json`'s `inquiryLoad` (2,000)",
    meaning: "another count of refused requests for the inquiry load; `npm run check:budgets` fails such a run",
  }),
  SCALE_DELIVERED: wholeNumber(1, 10_000_000, 100_000, {
    applies: ["bench"],
    meaning: "the delivered inquiries `npm run bench:scale` fills the full store with",
  }),
  SCALE_QUARANTINED: wholeNumber(0, 10_000_000, 100_000, {
    applies: ["bench"],
    meaning: "the quarantined inquiries `npm run bench:scale` fills the full store with",
  }),
  MEMORY_LIMIT_MB: wholeNumber(64, 65_536, 512, {
    applies: ["bench"],
    meaning:
      "the memory limit each server of `npm run bench:scale` runs under (a memory cgroup where the machine allows; else V8's heap limit with RSS checked)",
  }),
  DECAP_SERVER_PORT: wholeNumber(1, 65_535, 8081, {
    applies: ["edit"],
    meaning: "`npm run edit`'s decap-server port; the editing screen looks for 8081, so only tests move it",
  }),
  NODE_OPTIONS: text(null, {
    applies: ["bench"],
    meaning:
      "kept, and extended with `--max-old-space-size`, for the servers of `npm run bench:scale` where the machine has no memory cgroup",
  }),
} as const;

type ToolSettingName = keyof typeof toolCatalogue;

/** The value a tool's setting reads as. */
type ToolValue<N extends ToolSettingName> = (typeof toolCatalogue)[N] extends Field<infer T> ? T : never;

/** A tool's setting, read as the site reads its own: the default when unset, else the value checked. */
export const readToolSetting = <N extends ToolSettingName>(name: N, env: Environment = process.env): ToolValue<N> =>
  // TypeScript cannot narrow the catalogue's entry by a generic name; the entry for N is a Field of N's value.
  readField(name, toolCatalogue[name] as unknown as Field<ToolValue<N>>, env);
