import net from "node:net";

/** The 64-bit network part of an IPv6 address: one home or office usually has a whole /64. */
const ipv6Prefix64 = (address: string): string => {
  const [head = "", tail = ""] = address.split("::");
  const headGroups = head === "" ? [] : head.split(":");
  const tailGroups = tail === "" ? [] : tail.split(":");
  const missing = address.includes("::") ? 8 - headGroups.length - tailGroups.length : 0;
  const groups = [...headGroups, ...Array<string>(Math.max(0, missing)).fill("0"), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((group) => (Number.parseInt(group, 16) || 0).toString(16))
    .join(":")}::/64`;
};

/**
 * The key the rate limit counts a client under. One IPv4 address may be written several ways (as an
 * IPv4-mapped IPv6 address, with a port from a proxy's header); an IPv6 client can change its address
 * within its /64 at will, so the /64 is the client. Anything that is no IP address counts as itself.
 */
export const clientKey = (raw: string | undefined | null): string => {
  let address = (raw ?? "").trim().toLowerCase();
  // [2001:db8::1]:443 and 192.0.2.7:4444, as some proxies write them.
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed?.[1]) address = bracketed[1];
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(":"));
  address = address.replace(/%.*$/, "");
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(address);
  if (mapped?.[1]) address = mapped[1];
  switch (net.isIP(address)) {
    case 4:
      return address;
    case 6:
      return ipv6Prefix64(address);
    default:
      return address || "unknown";
  }
};
