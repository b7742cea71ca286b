/**
 * net.ping and net.trace: the system's ping and traceroute (or tracepath),
 * run with an argument array, LC_ALL=C and the pinned address (never a name
 * an argument parser could take for an option), their output parsed into a
 * table.
 */
import { define, type RunContext } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import { resolveDestination } from "./destination.ts";
import { dnsServerInput } from "./operatorInputs.ts";

/** How long the tool may run at most, whatever it was asked. */
const TOOL_TIMEOUT_MS = 60_000;

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a system tool; undefined when it is not installed. */
export async function runTool(argv: string[], signal?: AbortSignal): Promise<Ran | undefined> {
  let proc: ReturnType<typeof Bun.spawn>;
  try {
    proc = Bun.spawn(argv, {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      env: { LC_ALL: "C", PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" },
      ...(signal ? { signal } : {}),
    });
  } catch {
    return undefined; // not installed
  }
  const timer = setTimeout(() => proc.kill(), TOOL_TIMEOUT_MS);
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout as ReadableStream).text(),
    new Response(proc.stderr as ReadableStream).text(),
    proc.exited,
  ]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

export interface PingReply {
  seq: number;
  ttl: number | null;
  ms: number | null;
}

/** Replies from iputils ping's output (LC_ALL=C); a sequence number with no reply is lost. */
export function parsePing(output: string, count: number): PingReply[] {
  const got = new Map<number, PingReply>();
  for (const m of output.matchAll(/icmp_seq=(\d+)(?: ttl=(\d+))? time=([\d.]+) ms/g)) {
    const seq = Number(m[1]);
    got.set(seq, { seq, ttl: m[2] ? Number(m[2]) : null, ms: Number(m[3]) });
  }
  return Array.from({ length: count }, (_, i) => got.get(i + 1) ?? { seq: i + 1, ttl: null, ms: null });
}

export interface Hop {
  hop: number;
  address: string | null;
  ms: number | null;
}

/** Hops from `traceroute -n -q 1` or `tracepath -n` output (LC_ALL=C). */
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

function missing(tool: string, pkg: string): RtaError {
  return new RtaError(
    "net.tool.missing",
    `${tool} is not installed on the machine running rta`,
    `the person running rta can install it (Debian and Ubuntu: apt-get install ${pkg})`,
  );
}

const hostInputs = {
  host: { type: "string" as const, description: "the host name or address", required: true, positional: true },
  server: dnsServerInput,
};

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
    const dest = await resolveDestination(String(args.host), ctx, args.server, "net.ping");
    const count = args.count as number;
    const ran = await runTool(["ping", "-n", "-c", String(count), "-i", "0.2", "-W", "1", dest.address], ctx.signal);
    if (!ran) throw missing("ping", "iputils-ping");
    if (ran.code > 1)
      throw new RtaError(
        "net.unreachable",
        `ping could not reach ${dest.host}: ${ran.stderr.trim().split("\n")[0] ?? ""}`,
        "check the host",
      );
    const out = ctx.rows(["seq", "ttl", "ms"]);
    for (const r of parsePing(ran.stdout, count)) out.add([r.seq, r.ttl, r.ms]);
    return out.finish();
  },
});

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
  async run(args, ctx: RunContext) {
    const dest = await resolveDestination(String(args.host), ctx, args.server, "net.trace");
    const hops = String(args.max_hops);
    const ran =
      (await runTool(["traceroute", "-n", "-q", "1", "-w", "1", "-m", hops, dest.address], ctx.signal)) ??
      (await runTool(["tracepath", "-n", "-m", hops, dest.address], ctx.signal));
    if (!ran) throw missing("traceroute", "traceroute");
    const out = ctx.rows(["hop", "address", "ms"]);
    for (const h of parseTrace(ran.stdout)) out.add([h.hop, h.address, h.ms]);
    return out.finish();
  },
});
