import {
  Armchair,
  BadgeCheck,
  Building2,
  ClipboardList,
  type LucideIcon,
  Printer,
  Ruler,
  Scissors,
  Shield,
  Shirt,
  Truck,
} from "lucide-react";
import { type IconName, isIconName } from "../../content-contract/icon-names";

const icons: Record<IconName, LucideIcon> = {
  uniform: Shirt,
  tactical: Shield,
  furniture: Armchair,
  supplies: Printer,
  badge: BadgeCheck,
  truck: Truck,
  ruler: Ruler,
  needle: Scissors,
  clipboard: ClipboardList,
  building: Building2,
};

interface IconProps {
  name: string;
  size?: number;
  className?: string;
}

/** A decorative icon chosen by name in content; the text beside it carries the meaning. */
export const Icon = ({ name, size = 32, className }: IconProps) => {
  if (!isIconName(name)) {
    throw new Error(`Unknown icon "${name}" in content; use one of: ${Object.keys(icons).join(", ")}`);
  }
  const Component = icons[name];
  return <Component aria-hidden="true" focusable="false" size={size} strokeWidth={1.75} className={className} />;
};
