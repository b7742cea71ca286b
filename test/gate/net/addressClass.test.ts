/** The address classifier, as a unit: no packet is sent to any of these addresses. */
import { expect, test } from "bun:test";
import type { AddressClass } from "../../../src/core/access.ts";
import { classify, isSensitive } from "../../../src/gate/net/addressClass.ts";

const cases: [string, AddressClass][] = [
  ["127.0.0.1", "loopback"],
  ["127.8.9.10", "loopback"],
  ["::1", "loopback"],
  ["0:0:0:0:0:0:0:1", "loopback"],
  ["::ffff:127.0.0.1", "loopback"],
  ["10.1.2.3", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["172.32.0.1", "public"],
  ["192.168.1.1", "private"],
  ["100.64.0.1", "private"],
  ["fc00::1", "private"],
  ["fd12:3456::1", "private"],
  ["::ffff:10.0.0.1", "private"],
  ["169.254.1.1", "link-local"],
  ["fe80::1", "link-local"],
  ["fe80::1%eth0", "link-local"],
  ["169.254.169.254", "metadata"],
  ["::ffff:169.254.169.254", "metadata"],
  ["::ffff:a9fe:a9fe", "metadata"],
  ["169.254.170.2", "metadata"],
  ["100.100.100.200", "metadata"],
  ["168.63.129.16", "metadata"],
  ["fd00:ec2::254", "metadata"],
  // what a translator or relay reaches on the caller's behalf: the IPv4 address carried
  ["64:ff9b::7f00:1", "loopback"],
  ["64:ff9b::10.0.0.5", "private"],
  ["64:ff9b::a9fe:a9fe", "metadata"],
  ["64:ff9b::808:808", "public"],
  ["64:ff9b:1::a00:5", "private"],
  ["::ffff:0:7f00:1", "loopback"],
  ["::ffff:0:10.1.2.3", "private"],
  ["2002:7f00:1::", "loopback"],
  ["2002:a9fe:a9fe::1", "metadata"],
  ["2002:808:808::1", "public"],
  ["0.0.0.0", "unspecified"],
  ["::", "unspecified"],
  ["224.0.0.1", "multicast"],
  ["ff02::1", "multicast"],
  ["255.255.255.255", "reserved"],
  ["93.184.216.34", "public"],
  ["8.8.8.8", "public"],
  ["2606:4700::1111", "public"],
  ["not-an-address", "reserved"],
];

for (const [address, expected] of cases) {
  test(`${address} is ${expected}`, () => {
    expect(classify(address)).toBe(expected);
    expect(isSensitive(classify(address))).toBe(expected !== "public");
  });
}
