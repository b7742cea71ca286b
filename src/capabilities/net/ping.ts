/**
 * net.ping: the system's ping, run with an argument array and the pinned
 * address (never a name an argument parser could take for an option), its
 * output parsed into a table. net.trace (trace.ts) runs the same way.
 */
import { define } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import { dnsServerInput } from "./operatorInputs.ts";

export interface PingReply {
  seq: number;
  ttl: number | null;
  ms: number | null;
}

/** Replies from iputils ping's output (LC_ALL=C); a sequence number with no reply is lost. Refuses nothing. */
export function parsePing(output: string, count: number): PingReply[] {
  const got = new Map<number, PingReply>();
  for (const m of output.matchAll(/icmp_seq=(\d+)(?: ttl=(\d+))? time=([\d.]+) ms/g)) {
    const seq = Number(m[1]);
    got.set(seq, { seq, ttl: m[2] ? Number(m[2]) : null, ms: Number(m[3]) });
  }
  return Array.from({ length: count }, (_, i) => got.get(i + 1) ?? { seq: i + 1, ttl: null, ms: null });
}

/** The refusal when a system tool the capability runs is not installed: net.tool.missing, with the package to install. */
export function toolMissing(tool: string, pkg: string): RtaError {
  return new RtaError(
    "net.tool.missing",
    `${tool} is not installed on the machine running rta`,
    `the person running rta can install it (Debian and Ubuntu: apt-get install ${pkg})`,
  );
}

/** The inputs net.ping and net.trace share. */
export const hostInputs = {
  host: { type: "string", description: "the host name or address", required: true, positional: true },
  server: dnsServerInput,
} as const;

export const netPing = define({
  name: "net.ping",
  summary: "Ping a host: each reply's time and TTL, and what was lost",
  searchWords: ["icmp", "latency", "is it up", "reachability"],
  safety: "read",
  reaches: "host",
  inputs: { ...hostInputs, count: { type: "integer", description: "how many pings", range: [1, 10], default: 4 } },
  result: {
    shape: "table",
    columns: [
      { name: "seq", doc: "the ping's number, from 1" },
      { name: "ttl", doc: "the reply's time to live" },
      { name: "ms", doc: "round trip, or null when it was lost" },
    ],
  },
  examples: [{ command: "rta net ping example.com --count 3", note: "three pings" }],
  async run(args, ctx) {
    const dest = await ctx.net.resolve(args.host, args.server);
    const count = args.count;
    const ran = await ctx.spawn(["ping", "-n", "-c", String(count), "-i", "0.2", "-W", "1", dest.address]);
    if (!ran) throw toolMissing("ping", "iputils-ping");
    if (ran.code > 1)
      throw new RtaError(
        "net.unreachable",
        `ping could not reach ${dest.host}: ${ran.stderr.trim().split("\n")[0] ?? ""}`,
        "check the host",
      );
    const out = ctx.rows();
    for (const r of parsePing(ran.stdout, count)) out.add([r.seq, r.ttl, r.ms]);
    return out.finish();
  },
});
