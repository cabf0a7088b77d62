/** Narrows a query result that content validation guarantees, failing loudly if a file is missing. */
export const requireContent = <T>(value: T | null | undefined, file: string): T => {
  if (value == null) throw new Error(`Content is missing: ${file} was not found or could not be read.`);
  return value;
};
