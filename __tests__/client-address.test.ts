/**
 * @jest-environment node
 */
import { clientKey } from "../server/inquiries/intake/client-address";

describe("clientKey: the client the rate limit counts", () => {
  it.each([
    ["192.0.2.77"],
    ["192.0.2.77:4444"],
    ["::ffff:192.0.2.77"],
    ["::ffff:c000:24d"],
    ["::FFFF:C000:024D"],
    ["0:0:0:0:0:ffff:c000:24d"],
    ["[::ffff:c000:24d]:443"],
    [" 192.0.2.77 "],
  ])("counts %j as the IPv4 client 192.0.2.77", (spelling) => {
    expect(clientKey(spelling)).toBe("192.0.2.77");
  });

  it.each([
    ["2001:db8:1:2::1"],
    ["2001:DB8:1:2:AAAA:BBBB:CCCC:DDDD"],
    ["2001:0db8:0001:0002:0000:0000:0000:0009"],
    ["[2001:db8:1:2::9]:8443"],
    ["2001:db8:1:2::1%eth0"],
  ])("counts %j as the IPv6 network 2001:db8:1:2::/64", (spelling) => {
    expect(clientKey(spelling)).toBe("2001:db8:1:2::/64");
  });

  it("tells apart addresses and networks that differ", () => {
    expect(clientKey("192.0.2.78")).not.toBe(clientKey("192.0.2.77"));
    expect(clientKey("::ffff:c000:24e")).not.toBe(clientKey("::ffff:c000:24d"));
    expect(clientKey("2001:db8:1:3::1")).not.toBe(clientKey("2001:db8:1:2::1"));
    // An IPv4-mapped address is the IPv4 client, not an IPv6 network that holds every IPv4 address.
    expect(clientKey("::ffff:198.51.100.1")).not.toBe(clientKey("::ffff:c000:24d"));
  });

  it("counts what is no address as itself, and nothing as one unknown client", () => {
    expect(clientKey("not-an-address")).toBe("not-an-address");
    expect(clientKey(undefined)).toBe("unknown");
    expect(clientKey("")).toBe("unknown");
  });
});
