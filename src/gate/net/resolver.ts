/**
 * A DNS stub resolver on dns-packet: UDP first, TCP when the answer comes back
 * truncated. The socket and codec modules load on the first query, not at
 * start-up. Bun's node:dns splits multi-string TXT records and confuses NODATA
 * with NXDOMAIN, so it is not used. The servers are the operator's (a
 * connection, config) or /etc/resolv.conf's; an agent never chooses them.
 */
import { randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import type * as Packet from "dns-packet";
import type { Answer, DnsResult, RecordType } from "../../core/access.ts";
import { RtaError } from "../../core/errors.ts";
import * as net from "../../core/lazyNet.ts";

/** How long one server is given to answer before the next is asked. */
export const DNS_TIMEOUT_MS = 3000;
/** The largest answer taken over TCP: DNS messages are at most 64 KiB. */
const TCP_MAX = 65_535;

export interface DnsServer {
  host: string;
  port: number;
}

/** "127.0.0.1:5353", "[::1]:53", "9.9.9.9" (port 53); refuses core.config.invalid what is no address and port. */
function parseServer(text: string): DnsServer {
  const v6 = text.match(/^\[([^\]]+)\](?::(\d+))?$/);
  if (v6) return { host: v6[1] as string, port: Number(v6[2] ?? 53) };
  const [host, port] =
    text.includes(":") && text.split(":").length === 2 ? (text.split(":") as [string, string]) : [text, "53"];
  if (!net.isIP(host) || !/^\d+$/.test(port) || Number(port) < 1 || Number(port) > 65535) {
    throw new RtaError(
      "core.config.invalid",
      `the DNS server ${JSON.stringify(text)} is not an address and port`,
      "write it like 127.0.0.1:53 or [::1]:53",
    );
  }
  return { host, port: Number(port) };
}

/** The name servers /etc/resolv.conf lists; none when it cannot be read. */
export function systemServers(file = "/etc/resolv.conf"): DnsServer[] {
  let body = "";
  try {
    body = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  return body
    .split("\n")
    .map((l) => l.trim().match(/^nameserver\s+(\S+)/)?.[1])
    .filter((h): h is string => h !== undefined && net.isIP(h.split("%")[0] as string) !== 0)
    .map((host) => ({ host, port: 53 }));
}

/** The servers a call asks: the operator's (host:port, comma-separated), else the system's; refuses core.config.invalid a bad one. */
export function dnsServers(server: unknown): DnsServer[] {
  return typeof server === "string" && server !== ""
    ? server.split(",").map((s) => parseServer(s.trim()))
    : systemServers();
}

/**
 * Asks the servers in turn for `name`'s records of `type`, each within
 * `timeoutMs`. Refuses net.dns.noserver with no server to ask and
 * net.dns.timeout when none answers; an NXDOMAIN or SERVFAIL is an answer,
 * for the caller to judge.
 */
export async function query(
  name: string,
  type: RecordType,
  servers: DnsServer[],
  timeoutMs = DNS_TIMEOUT_MS,
): Promise<DnsResult> {
  if (servers.length === 0) {
    throw new RtaError(
      "net.dns.noserver",
      "there is no DNS server to ask",
      'the person running rta can name one in a connection or config (server = "9.9.9.9:53")',
    );
  }
  const packet = await loadPacket();
  const message = packet.encode({
    type: "query",
    id: randomInt(1, 65535),
    flags: packet.RECURSION_DESIRED,
    questions: [{ type, name, class: "IN" }],
  });
  let last: unknown;
  for (const server of servers) {
    try {
      let reply = await overUdp(message, server, timeoutMs, packet);
      if ((reply.flags ?? 0) & packet.TRUNCATED_RESPONSE) reply = await overTcp(message, server, timeoutMs, packet);
      return { rcode: (reply as { rcode?: string }).rcode ?? "NOERROR", answers: (reply.answers ?? []).map(answerOf) };
    } catch (err) {
      last = err;
    }
  }
  if (last instanceof RtaError) throw last;
  throw new RtaError(
    "net.dns.timeout",
    `no DNS server answered for ${name} within ${timeoutMs} ms`,
    "try again, or ask the person running rta to check the DNS server",
  );
}

async function overUdp(
  message: Buffer,
  server: DnsServer,
  timeoutMs: number,
  packet: typeof Packet,
): Promise<Packet.Packet> {
  const dgram = await import("node:dgram");
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket(net.isIPv6(server.host) ? "udp6" : "udp4");
    const id = message.readUInt16BE(0);
    const timer = setTimeout(
      () => finish(new RtaError("net.dns.timeout", "the DNS server did not answer", "try again")),
      timeoutMs,
    );
    const finish = (err: Error | undefined, reply?: Packet.Packet) => {
      clearTimeout(timer);
      socket.close();
      if (err) reject(err);
      else resolve(reply as Packet.Packet);
    };
    socket.on("error", (err) => finish(err));
    socket.on("message", (buf) => {
      try {
        const reply = packet.decode(buf);
        if (reply.id === id) finish(undefined, reply);
      } catch {
        // not a DNS message for us: keep waiting
      }
    });
    socket.send(message, server.port, server.host);
  });
}

function overTcp(message: Buffer, server: DnsServer, timeoutMs: number, packet: typeof Packet): Promise<Packet.Packet> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: server.host, port: server.port });
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(
      () => fail(new RtaError("net.dns.timeout", "the DNS server did not answer over TCP", "try again")),
      timeoutMs,
    );
    const fail = (err: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    };
    socket.on("error", fail);
    socket.on("connect", () =>
      socket.write(Buffer.concat([Buffer.from([message.length >> 8, message.length & 0xff]), message])),
    );
    socket.on("data", (d: Buffer) => {
      chunks.push(d);
      size += d.length;
      if (size > TCP_MAX + 2)
        return fail(new RtaError("net.dns.timeout", "the DNS server's answer is too large", "try again"));
      const all = Buffer.concat(chunks);
      if (all.length >= 2 && all.length >= all.readUInt16BE(0) + 2) {
        clearTimeout(timer);
        socket.end();
        try {
          resolve(packet.decode(all.subarray(2, 2 + all.readUInt16BE(0))));
        } catch (err) {
          reject(err);
        }
      }
    });
  });
}

let packetModule: typeof Packet | undefined;
async function loadPacket(): Promise<typeof Packet> {
  packetModule ??= await import("dns-packet");
  return packetModule;
}

function text(v: unknown): string {
  if (Buffer.isBuffer(v)) return v.toString("utf8");
  if (Array.isArray(v)) return v.map(text).join("");
  return String(v);
}

function answerOf(a: Packet.Answer): Answer {
  const d = (a as { data: unknown }).data as Record<string, unknown> | string | Buffer | unknown[];
  let data: string;
  switch (a.type) {
    case "MX": {
      const mx = d as { preference: number; exchange: string };
      data = `${mx.preference} ${mx.exchange}`;
      break;
    }
    case "TXT":
      // The strings of one record, joined: SPF, DKIM and DMARC read them as one.
      data = text(d);
      break;
    case "SOA": {
      const s = d as Record<string, unknown>;
      data = `${s.mname} ${s.rname} ${s.serial} ${s.refresh} ${s.retry} ${s.expire} ${s.minimum}`;
      break;
    }
    case "SRV": {
      const s = d as Record<string, unknown>;
      data = `${s.priority} ${s.weight} ${s.port} ${s.target}`;
      break;
    }
    case "CAA": {
      const c = d as Record<string, unknown>;
      data = `${c.flags ?? 0} ${c.tag} "${c.value}"`;
      break;
    }
    default:
      data = text(d);
  }
  return { name: a.name, type: a.type, ttl: (a as { ttl?: number }).ttl ?? 0, data };
}
