/** net.port: whether TCP ports accept a connection, each with a timeout. */
import type { Socket } from "node:net";
import { define } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import { dnsServerInput } from "./operatorInputs.ts";

/** At most this many ports in one call: a scan of a whole range is not what this is for. */
const MAX_PORTS = 64;

/** Up to 64 ports from "22,80,443", each once; refuses core.input.invalid more, or what is not a port. */
export function parsePorts(text: string): number[] {
  const ports = text.split(",").map((p) => p.trim());
  if (ports.length > MAX_PORTS || ports.some((p) => !/^\d{1,5}$/.test(p) || Number(p) < 1 || Number(p) > 65535)) {
    throw new RtaError(
      "core.input.invalid",
      `ports must be up to ${MAX_PORTS} numbers from 1 to 65535, separated by commas`,
      "e.g. 22,80,443",
    );
  }
  return [...new Set(ports.map(Number))];
}

/** Whether a connection, as it is dialled, is accepted (open), refused (closed) or not answered in time (filtered); refuses nothing. */
export function probeTcp(
  dial: () => Socket,
  timeoutMs: number,
): Promise<{ state: "open" | "closed" | "filtered"; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = dial();
    const done = (state: "open" | "closed" | "filtered") => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ state, ms: Math.round(performance.now() - started) });
    };
    const timer = setTimeout(() => done("filtered"), timeoutMs);
    socket.once("connect", () => done("open"));
    socket.once("error", () => done("closed"));
  });
}

export const netPort = define({
  name: "net.port",
  summary: "Check whether TCP ports on a host accept a connection",
  searchWords: ["port check", "telnet", "nc", "is it listening", "open ports"],
  safety: "read",
  reaches: "host",
  inputs: {
    host: { type: "string", description: "the host name or address", required: true, positional: true },
    ports: { type: "string", description: "ports, separated by commas (at most 64)", required: true, positional: true },
    timeout_ms: { type: "integer", description: "how long to wait for each", range: [50, 10_000], default: 2000 },
    server: dnsServerInput,
  },
  result: {
    shape: "table",
    columns: [
      { name: "port", doc: "the port" },
      { name: "state", doc: "open (accepted), closed (refused) or filtered (no answer in time)" },
      { name: "ms", doc: "how long the answer took" },
    ],
  },
  examples: [{ command: "rta net port example.com 22,80,443", note: "three ports at once" }],
  async run(args, ctx) {
    // the list is read before the host is looked up: a bad one is said as such, and costs no lookup
    const ports = parsePorts(args.ports);
    const dest = await ctx.net.resolve(args.host, args.server);
    const results = await Promise.all(ports.map((p) => probeTcp(() => ctx.net.dial(dest, p), args.timeout_ms)));
    const out = ctx.rows();
    ports.forEach((p, i) => {
      out.add([p, results[i]?.state ?? "filtered", results[i]?.ms ?? 0]);
    });
    return out.finish();
  },
});
