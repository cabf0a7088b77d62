// Types of tidy-json.js (plain JavaScript, served as it is to the editing screen) for the code that imports it.

/** The part of a CMS field that says how its value is laid out. */
export interface TidyField {
  readonly name: string;
  /** True for a field the contract lets a file leave out. */
  readonly optional?: boolean;
  /** What a file gets for a key it must have when the editor left it untouched or cleared a choice. */
  readonly empty_value?: unknown;
  /** An object's fields, or the fields of each object in a list. */
  readonly fields?: readonly TidyField[];
  /** The single field of each item in a list of plain values. */
  readonly field?: TidyField;
}

export interface TidyConfig {
  readonly collections: readonly {
    readonly name: string;
    readonly fields?: readonly TidyField[];
    readonly files?: readonly { readonly name: string; readonly fields: readonly TidyField[] }[];
  }[];
}

export interface JsonFormat {
  fromFile: (text: string) => unknown;
  toFile: (data: object, sortedKeys?: readonly string[]) => string;
}

export function tidyObject(
  object: Readonly<Record<string, unknown>>,
  fields: readonly TidyField[],
): Record<string, unknown>;
export function toJsonText(value: unknown, fields?: readonly TidyField[]): string;
export function createFormat(config: TidyConfig): JsonFormat;
