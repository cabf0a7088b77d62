/**
 * The icon names an editor may use in content. Kept apart from the icon
 * components so that the content schema (also run by gatsby-node and the
 * content checker, outside React) does not pull in any UI code.
 */
export const iconNames = [
  "uniform",
  "tactical",
  "furniture",
  "supplies",
  "badge",
  "truck",
  "ruler",
  "needle",
  "clipboard",
  "building",
] as const;

export type IconName = (typeof iconNames)[number];

export const isIconName = (name: string): name is IconName => (iconNames as readonly string[]).includes(name);
