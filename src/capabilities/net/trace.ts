/**
 * net.trace: the system's traceroute (or tracepath when it is missing), run
 * with an argument array and the pinned address, its hops parsed into a table.
 */
import { define } from "../../core/capability.ts";
import { hostInputs, toolMissing } from "./ping.ts";

export interface Hop {
  hop: number;
  address: string | null;
  ms: number | null;
}

/** Hops from `traceroute -n -q 1` or `tracepath -n` output (LC_ALL=C); a hop with no answer has a null address. Refuses nothing. */
export function parseTrace(output: string): Hop[] {
  const hops = new Map<number, Hop>();
  for (const line of output.split("\n")) {
    const tr = line.match(/^\s*(\d+)\s+(\*|\S+)(?:\s+([\d.]+) ms)?/);
    const tp = line.match(/^\s*(\d+)\??:\s+(\S+)\s+([\d.]+)ms/);
    const m = tp ?? tr;
    if (!m || line.includes("traceroute to") || line.includes("[LOCALHOST]")) continue;
    const hop = Number(m[1]);
    if (hops.has(hop) && hops.get(hop)?.address !== null) continue;
    const address = m[2] === "*" || m[2] === "no" ? null : (m[2] as string);
    hops.set(hop, { hop, address, ms: m[3] ? Number(m[3]) : null });
  }
  return [...hops.values()].sort((a, b) => a.hop - b.hop);
}

export const netTrace = define({
  name: "net.trace",
  summary: "Trace the route to a host, hop by hop",
  searchWords: ["traceroute", "tracepath", "route", "hops"],
  safety: "read",
  reaches: "host",
  inputs: {
    ...hostInputs,
    max_hops: { type: "integer", description: "the most hops to try", range: [1, 30], default: 15 },
  },
  result: {
    shape: "table",
    columns: [
      { name: "hop", doc: "the hop's number, from 1" },
      { name: "address", doc: "who answered, or null for no answer" },
      { name: "ms", doc: "round trip" },
    ],
  },
  examples: [{ command: "rta net trace example.com --max-hops 10", note: "the route, ten hops at most" }],
  async run(args, ctx) {
    const dest = await ctx.net.resolve(args.host, args.server);
    const hops = String(args.max_hops);
    const ran =
      (await ctx.spawn(["traceroute", "-n", "-q", "1", "-w", "1", "-m", hops, dest.address])) ??
      (await ctx.spawn(["tracepath", "-n", "-m", hops, dest.address]));
    if (!ran) throw toolMissing("traceroute", "traceroute");
    const out = ctx.rows();
    for (const h of parseTrace(ran.stdout)) out.add([h.hop, h.address, h.ms]);
    return out.finish();
  },
});
