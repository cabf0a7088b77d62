import ipaddr from "ipaddr.js";

/** One home or office usually has a whole IPv6 /64, and can change its address within it at will. */
const IPV6_CLIENT_PREFIX_GROUPS = 4;

/** The network an IPv6 address belongs to, as the client: `2001:db8:1:2::/64`. */
const ipv6ClientNetwork = (address: ipaddr.IPv6): string => {
  const network = new ipaddr.IPv6([
    ...address.parts.slice(0, IPV6_CLIENT_PREFIX_GROUPS),
    ...Array<number>(8 - IPV6_CLIENT_PREFIX_GROUPS).fill(0),
  ]);
  return `${network.toRFC5952String()}/${IPV6_CLIENT_PREFIX_GROUPS * 16}`;
};

/**
 * The address alone, from the forms proxies write it in: `[2001:db8::1]:443` and `192.0.2.7:4444` carry
 * a port, and a bare IPv6 address may carry a zone (`fe80::1%eth0`), which names the local interface,
 * not the client.
 */
const addressPart = (raw: string): string => {
  const text = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  if (bracketed?.[1]) return bracketed[1];
  const withPort = /^([^:]+):\d+$/.exec(text);
  if (withPort?.[1]) return withPort[1];
  return text;
};

/**
 * The key the rate limit counts a client under. ipaddr.js reads the address, so every spelling of one
 * address is one client: an IPv4 address however it is written, as itself or IPv4-mapped in IPv6
 * (`::ffff:192.0.2.77`, `::ffff:c000:24d`), and an IPv6 address in any case and abbreviation. An IPv6
 * client is its /64. Anything that is no IP address counts as itself.
 */
export const clientKey = (raw: string | undefined | null): string => {
  const text = addressPart(raw ?? "");
  const withoutZone = text.replace(/%.*$/, "");
  if (!ipaddr.isValid(withoutZone)) return text.toLowerCase() || "unknown";
  // process() turns an IPv4-mapped IPv6 address into the IPv4 address it carries.
  const address = ipaddr.process(withoutZone);
  return address instanceof ipaddr.IPv6 ? ipv6ClientNetwork(address) : address.toString();
};
