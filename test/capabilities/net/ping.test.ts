import { describe, expect, test } from "bun:test";
import { builtinCatalogue } from "../../../src/capabilities/builtinCatalogue.ts";
import { parsePing } from "../../../src/capabilities/net/ping.ts";
import { parseTrace } from "../../../src/capabilities/net/trace.ts";
import type { AgentOrigin } from "../../../src/core/call.ts";
import { runCall } from "../../../src/gate/pipeline.ts";
import { grantFor, testDeps } from "../../support/fixtures.ts";
import { installed } from "../../support/systemTools.ts";

const agent: AgentOrigin = { kind: "agent", name: "claude", client: "c", session: "s", transport: "memory" };

describe("parsing", () => {
  test("ping: replies by sequence, a missing one lost", () => {
    const out = `PING 10.0.0.1 (10.0.0.1) 56(84) bytes of data.
64 bytes from 10.0.0.1: icmp_seq=1 ttl=64 time=0.024 ms
64 bytes from 10.0.0.1: icmp_seq=3 ttl=63 time=12.5 ms

--- 10.0.0.1 ping statistics ---
3 packets transmitted, 2 received, 33.3333% packet loss, time 404ms
rtt min/avg/max/mdev = 0.024/6.2/12.5/6.2 ms
`;
    expect(parsePing(out, 3)).toEqual([
      { seq: 1, ttl: 64, ms: 0.024 },
      { seq: 2, ttl: null, ms: null },
      { seq: 3, ttl: 63, ms: 12.5 },
    ]);
  });

  test("traceroute -n -q 1 and tracepath -n", () => {
    const tr = `traceroute to 10.9.9.9 (10.9.9.9), 5 hops max, 60 byte packets
 1  10.0.0.1  0.321 ms
 2  *
 3  10.9.9.9  4.500 ms
`;
    expect(parseTrace(tr)).toEqual([
      { hop: 1, address: "10.0.0.1", ms: 0.321 },
      { hop: 2, address: null, ms: null },
      { hop: 3, address: "10.9.9.9", ms: 4.5 },
    ]);
    const tp = ` 1?: [LOCALHOST]                      pmtu 65535
 1:  10.0.0.1                                              0.040ms
 2:  10.9.9.9                                              0.050ms reached
     Resume: pmtu 65535 hops 2 back 2
`;
    expect(parseTrace(tp)).toEqual([
      { hop: 1, address: "10.0.0.1", ms: 0.04 },
      { hop: 2, address: "10.9.9.9", ms: 0.05 },
    ]);
  });
});

// ping and traceroute are optional system tools: where one is missing, the test asserts what a person is told.
describe("the real tools, on 127.0.0.1, or net.tool.missing where they are not installed", () => {
  function deps(host: string) {
    const d = testDeps();
    grantFor(d, { target: "net", host });
    return d;
  }

  test("net.ping replies from loopback, through a grant naming the address", async () => {
    const out = await runCall(
      { capability: "net_ping", args: { host: "127.0.0.1", count: 2 }, origin: agent },
      builtinCatalogue(),
      deps("127.0.0.1"),
    );
    if (!installed("ping")) {
      expect(out.ok ? "ok" : [out.error.code, out.error.message, out.error.hint]).toEqual([
        "net.tool.missing",
        "ping is not installed on the machine running rta",
        "the person running rta can install it (Debian and Ubuntu: apt-get install iputils-ping)",
      ]);
      return;
    }
    if (!out.ok) throw new Error(`${out.error.code}: ${out.error.message}`);
    expect(out.value).toMatchObject({ type: "table", columns: ["seq", "ttl", "ms"], total: 2 });
    const rows = (out.value as { rows: unknown[][] }).rows;
    expect(rows.map((r) => r[0])).toEqual([1, 2]);
    expect(rows.every((r) => typeof r[2] === "number")).toBe(true);
  });

  test("net.trace reaches loopback in one hop (traceroute, or tracepath)", async () => {
    const out = await runCall(
      { capability: "net_trace", args: { host: "127.0.0.1", max_hops: 3 }, origin: agent },
      builtinCatalogue(),
      deps("127.0.0.1"),
    );
    if (!installed("traceroute", "tracepath")) {
      expect(out.ok ? "ok" : [out.error.code, out.error.message, out.error.hint]).toEqual([
        "net.tool.missing",
        "traceroute is not installed on the machine running rta",
        "the person running rta can install it (Debian and Ubuntu: apt-get install traceroute)",
      ]);
      return;
    }
    if (!out.ok) throw new Error(`${out.error.code}: ${out.error.message}`);
    expect((out.value as { rows: unknown[][] }).rows[0]).toEqual([1, "127.0.0.1", expect.any(Number)]);
  });

  test("without a grant naming it, loopback is refused before any packet", async () => {
    const out = await runCall(
      { capability: "net_ping", args: { host: "127.0.0.1" }, origin: agent },
      builtinCatalogue(),
      deps("example.test"),
    );
    expect(out.ok ? "ok" : out.error.code).toBe("core.grant.required");
  });
});

describe("with the tools the test hands in", () => {
  test("net.ping runs the argv it was given through the call's spawn, and a tool that is missing is said so", async () => {
    const ran: (readonly string[])[] = [];
    const replies = `64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.5 ms\n`;
    const d = testDeps({
      spawn: () => async (argv) => {
        ran.push(argv);
        return argv[0] === "ping" ? { code: 0, stdout: replies, stderr: "" } : undefined;
      },
    });
    grantFor(d, { target: "net", host: "127.0.0.1" });
    const out = await runCall(
      { capability: "net_ping", args: { host: "127.0.0.1", count: 1 }, origin: agent },
      builtinCatalogue(),
      d,
    );
    if (!out.ok) throw new Error(`${out.error.code}: ${out.error.message}`);
    expect((out.value as { rows: unknown[][] }).rows).toEqual([[1, 64, 0.5]]);
    expect(ran).toEqual([["ping", "-n", "-c", "1", "-i", "0.2", "-W", "1", "127.0.0.1"]]);
    const traced = await runCall(
      { capability: "net_trace", args: { host: "127.0.0.1" }, origin: agent },
      builtinCatalogue(),
      d,
    );
    expect(traced.ok ? "ok" : traced.error.code).toBe("net.tool.missing");
  });
});
