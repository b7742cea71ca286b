/**
 * What kind of place an IP address is. A destination read that lands on a
 * loopback, private, link-local or cloud-metadata address is refused unless
 * the grant names that exact host or address: these are where an agent that
 * can choose a destination could reach what the machine alone can.
 */
import type { AddressClass } from "../../core/access.ts";
import { isIP } from "../../core/lazyNet.ts";

/** Cloud metadata endpoints: AWS/GCP/Azure/OpenStack (169.254.169.254), ECS (169.254.170.2), Alibaba, Azure's wire server, AWS over IPv6. */
const METADATA = new Set(["169.254.169.254", "169.254.170.2", "100.100.100.200", "168.63.129.16", "fd00:ec2::254"]);

function v4(address: string): number[] {
  return address.split(".").map(Number);
}

function inV4(parts: number[], base: string, bits: number): boolean {
  const b = v4(base);
  const n = (p: number[]) =>
    ((p[0] as number) << 24) | ((p[1] as number) << 16) | ((p[2] as number) << 8) | (p[3] as number);
  const mask = bits === 0 ? 0 : ~0 << (32 - bits);
  return (n(parts) & mask) === (n(b) & mask);
}

/** The sixteen bytes of an IPv6 address. */
function v6Bytes(address: string): number[] {
  let text = address.toLowerCase().split("%")[0] as string;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".", lastColon)) {
    const parts = v4(text.slice(lastColon + 1));
    tail = [((parts[0] as number) << 8) | (parts[1] as number), ((parts[2] as number) << 8) | (parts[3] as number)];
    text = `${text.slice(0, lastColon)}:0:0`;
  }
  const [head, rest] = text.split("::") as [string, string | undefined];
  const h = head ? head.split(":").map((x) => Number.parseInt(x, 16)) : [];
  const r = rest !== undefined && rest !== "" ? rest.split(":").map((x) => Number.parseInt(x, 16)) : [];
  const groups = rest === undefined ? h : [...h, ...Array(8 - h.length - r.length).fill(0), ...r];
  if (tail.length) groups.splice(6, 2, ...tail);
  return groups.flatMap((g) => [(g >> 8) & 0xff, g & 0xff]);
}

/** The prefixes of translated IPv6 addresses, as bytes. */
const NAT64_WELL_KNOWN = [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0];
const NAT64_LOCAL_USE = [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01];
const SIIT_TRANSLATED = [0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0];

function startsWith(bytes: number[], prefix: number[]): boolean {
  return prefix.every((x, i) => bytes[i] === x);
}

/** The class of an IPv4 or IPv6 address (a zone index ignored); what is no address at all is reserved. */
export function classify(address: string): AddressClass {
  const family = isIP(address.split("%")[0] as string);
  if (family === 4) {
    const p = v4(address);
    if (METADATA.has(address)) return "metadata";
    if (inV4(p, "0.0.0.0", 8)) return "unspecified";
    if (inV4(p, "127.0.0.0", 8)) return "loopback";
    if (inV4(p, "10.0.0.0", 8) || inV4(p, "172.16.0.0", 12) || inV4(p, "192.168.0.0", 16) || inV4(p, "100.64.0.0", 10))
      return "private";
    if (inV4(p, "169.254.0.0", 16)) return "link-local";
    if (inV4(p, "224.0.0.0", 4)) return "multicast";
    if (inV4(p, "240.0.0.0", 4) || inV4(p, "192.0.0.0", 24) || inV4(p, "198.18.0.0", 15)) return "reserved";
    return "public";
  }
  if (family === 6) {
    const b = v6Bytes(address);
    const canonical = b.every((x) => x === 0) ? "::" : undefined;
    if (canonical === "::") return "unspecified";
    if (b.slice(0, 15).every((x) => x === 0) && b[15] === 1) return "loopback";
    // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible addresses are the IPv4 address they carry.
    if (b.slice(0, 10).every((x) => x === 0) && ((b[10] === 0xff && b[11] === 0xff) || (b[10] === 0 && b[11] === 0))) {
      return classify(b.slice(12).join("."));
    }
    // A translated address (NAT64's 64:ff9b::/96, SIIT's ::ffff:0:0:0/96) or a 6to4 one (2002::/16) is dialled
    // as the IPv4 address it carries, by a translator or relay on the caller's behalf: it is what it carries.
    if (startsWith(b, NAT64_WELL_KNOWN) || startsWith(b, SIIT_TRANSLATED)) return classify(b.slice(12).join("."));
    if (b[0] === 0x20 && b[1] === 0x02) return classify(b.slice(2, 6).join("."));
    // 64:ff9b:1::/48 is for a network's own translator (RFC 8215), which reaches what that network holds.
    if (startsWith(b, NAT64_LOCAL_USE)) return "private";
    if (
      b[0] === 0xfd &&
      b[1] === 0x00 &&
      b[2] === 0x0e &&
      b[3] === 0xc2 &&
      b.slice(4, 14).every((x) => x === 0) &&
      b[15] === 0x54 &&
      b[14] === 0x02
    )
      return "metadata";
    if (((b[0] as number) & 0xfe) === 0xfc) return "private";
    if (b[0] === 0xfe && ((b[1] as number) & 0xc0) === 0x80) return "link-local";
    if (b[0] === 0xff) return "multicast";
    return "public";
  }
  return "reserved";
}

/** True for the classes a grant has to name by host or address. */
export function isSensitive(c: AddressClass): boolean {
  return c !== "public";
}
