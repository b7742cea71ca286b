/**
 * A real DNS server on 127.0.0.1 for tests, over UDP and TCP (dns-packet over
 * dgram and net), serving test zones. A name maps to its records by type; a
 * name absent from the zone is NXDOMAIN, a type absent from a present name is
 * NODATA. A name listed in `truncate` is answered over UDP with the TC bit
 * only, so the client must ask again over TCP. A record's data may be a
 * function, called on each query (for answers that change between lookups).
 */
import dgram from "node:dgram";
import net from "node:net";
import * as packet from "dns-packet";

export type Zone = Record<string, Record<string, unknown[] | (() => unknown[])>>;

export interface DnsTestServer {
  port: number;
  address: string;
  queries: { name: string; type: string; over: "udp" | "tcp" }[];
  close(): void;
}

export async function startDnsServer(zone: Zone, truncate: string[] = []): Promise<DnsTestServer> {
  const queries: DnsTestServer["queries"] = [];
  const answer = (msg: Buffer, over: "udp" | "tcp"): Buffer => {
    const q = packet.decode(msg);
    const question = q.questions?.[0] as { name: string; type: string };
    queries.push({ name: question.name, type: question.type, over });
    const names = zone[question.name.toLowerCase()];
    const base = { type: "response" as const, id: q.id, flags: packet.AUTHORITATIVE_ANSWER, questions: q.questions };
    if (over === "udp" && truncate.includes(question.name))
      return packet.encode({ ...base, flags: packet.TRUNCATED_RESPONSE, answers: [] });
    // rcode 3, NXDOMAIN, in the low bits of the flags
    if (!names) return packet.encode({ ...base, flags: packet.AUTHORITATIVE_ANSWER | 3, answers: [] });
    const records = names[question.type];
    const data = typeof records === "function" ? records() : (records ?? []);
    return packet.encode({
      ...base,
      answers: data.map((d) => ({
        type: question.type,
        name: question.name,
        ttl: 300,
        class: "IN",
        data: d,
      })) as packet.Answer[],
    });
  };
  const tcpServer = () =>
    net.createServer((sock) => {
      let buf = Buffer.alloc(0);
      sock.on("data", (d: Buffer) => {
        buf = Buffer.concat([buf, d]);
        if (buf.length >= 2 && buf.length >= buf.readUInt16BE(0) + 2) {
          const reply = answer(buf.subarray(2, 2 + buf.readUInt16BE(0)), "tcp");
          sock.end(Buffer.concat([Buffer.from([reply.length >> 8, reply.length & 0xff]), reply]));
        }
      });
      sock.on("error", () => {});
    });
  // UDP and TCP share one port number: the port UDP was given may be a TCP socket's already, so another is tried
  const { udp, tcp, port } = await bothOnOnePort(answer, tcpServer);
  return {
    port,
    address: `127.0.0.1:${port}`,
    queries,
    close: () => {
      udp.close();
      tcp.close();
    },
  };
}

/** A UDP socket and a TCP server on one free port of 127.0.0.1, trying again where TCP finds the port taken. */
async function bothOnOnePort(
  answer: (msg: Buffer, over: "udp" | "tcp") => Buffer,
  tcpServer: () => net.Server,
): Promise<{ udp: dgram.Socket; tcp: net.Server; port: number }> {
  for (let attempt = 0; ; attempt++) {
    const udp = dgram.createSocket("udp4");
    udp.on("message", (msg, rinfo) => udp.send(answer(msg, "udp"), rinfo.port, rinfo.address));
    await new Promise<void>((r) => udp.bind(0, "127.0.0.1", () => r()));
    const port = (udp.address() as { port: number }).port;
    const tcp = tcpServer();
    const listened = await new Promise<Error | undefined>((r) => {
      tcp.once("error", (e) => r(e));
      tcp.listen(port, "127.0.0.1", () => r(undefined));
    });
    if (listened === undefined) return { udp, tcp, port };
    udp.close();
    if (attempt >= 20) throw listened;
  }
}
