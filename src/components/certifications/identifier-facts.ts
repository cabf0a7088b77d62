import type { Fact } from "./FactList";

type IdentifierKey = "uei" | "cage" | "samStatus" | "stateVendorNumber";

/** The company's identifiers as labelled facts, in the order buyers look for them. */
export const identifierFacts = (
  identifiers: Readonly<Record<IdentifierKey, string>>,
  labels: Readonly<Record<IdentifierKey, string>>,
): Fact[] =>
  (["uei", "cage", "samStatus", "stateVendorNumber"] as const).map((key) => ({
    label: labels[key],
    value: identifiers[key],
  }));
